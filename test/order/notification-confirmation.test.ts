// A Midtrans notification that would move money is applied only as the gateway's status
// answer confirms it, on the whole stack against the fake Midtrans. The signature covers
// only order_id, status_code and gross_amount, so a signed body can be replayed with
// another transaction_status: these prove that such a body changes nothing the gateway
// does not confirm, that a genuine one still pays, and that a gateway that cannot be
// asked defers the change (503, so Midtrans sends it again) rather than applying it
// unconfirmed. The fake's modes are shared state, so the tests run one at a time. The
// status checks' own interval is left long, so no check races these notifications.
import test, { type ExecutionContext } from "ava";
import { fakeMidtransEnv, startFakeMidtrans, type FakeMidtrans } from "../helpers/fake-midtrans.js";
import { api, type ApiResponse } from "../helpers/http.js";
import { midtransNotification, postNotification } from "../helpers/midtrans-notify.js";
import { buyer, createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";

const SERVER_KEY = "SB-Mid-server-confirm";

let fake: FakeMidtrans;
let stack: Stack;
let shop: { key: string; productId: string };

test.before(async () => {
  fake = await startFakeMidtrans({ serverKey: SERVER_KEY });
  stack = await startStack({
    orderEnv: fakeMidtransEnv(fake.url, SERVER_KEY),
  });
  const store = await createStore(stack, undefined, "Confirmed Shop");
  shop = { key: store.key, productId: (await createProduct(stack, store.storeId, "Kopi Toraja", 80_000)).id };
});

test.after.always(async () => {
  await stack?.close();
  await fake?.close();
});

test.beforeEach(() => {
  fake.coreMode = "ok";
});

interface Order {
  id: string;
  payment_reference: string;
  amount: number;
}

async function gatewayOrder(): Promise<Order> {
  const response = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: shop.key,
    json: { items: [{ product_id: shop.productId, quantity: 1 }], buyer, payment_method: "qris" },
  });
  if (response.status !== 201) throw new Error(response.text);
  return response.body.data.order;
}

/** What the API shows of the order, and what it wrote: history and events. */
async function recordOf(order: Order) {
  const read = (await api(stack.baseUrl, `/v1/orders/${order.id}`, { key: shop.key })).body.data.order;
  const history = await stack.orderSql<{ change: string; cause: string; detail: string | null }[]>`
    select coalesce(from_status, '∅') || '→' || to_status as change, cause, detail from order_status_history where order_id = ${order.id} order by id`;
  const events = await stack.orderSql<{ event_type: string }[]>`select event_type from outbox where order_id = ${order.id}`;
  return {
    status: read.status as string,
    refunded: read.refunded_amount as number,
    refunds: (read.refunds as unknown[]).length,
    history: history.map((row) => ({ ...row })),
    events: events.map((row) => row.event_type).sort(),
  };
}

function assertAck(t: ExecutionContext, response: ApiResponse, order: Order, status: string, changed: boolean) {
  t.is(response.status, 200, response.text);
  t.deepEqual(response.body, { success: true, data: { order_id: order.id, status, changed } });
}

/** The buyer paid: the gateway says settlement, and its notification arrives. */
async function paid(t: ExecutionContext): Promise<{ order: Order; notification: Record<string, unknown> }> {
  const order = await gatewayOrder();
  fake.setStatus(order.payment_reference, "settlement");
  const notification = fake.notification(order.payment_reference)!;
  assertAck(t, await postNotification(stack.baseUrl, notification), order, "paid", true);
  return { order, notification };
}

test.serial("a genuine settlement, confirmed by the gateway's status answer, pays the order once", async (t) => {
  const { order, notification } = await paid(t);
  t.is(fake.statusChecks(order.payment_reference).length, 1, "the gateway was asked");
  t.like(await recordOf(order), {
    status: "paid",
    history: [
      { change: "∅→pending", cause: "created" },
      { change: "pending→paid", cause: "midtrans settlement", detail: "confirmed by the gateway's status answer" },
    ],
    events: ["order.created", "order.paid", "orderUpdated"],
  });
  // Midtrans resends it: still one payment.
  assertAck(t, await postNotification(stack.baseUrl, notification), order, "paid", false);
  t.is((await recordOf(order)).history.length, 2);
});

test.serial("a settlement notification replayed as a refund changes nothing while the gateway says settlement", async (t) => {
  const { order, notification } = await paid(t);
  const before = await recordOf(order);
  // The same signed body: order_id, status_code and gross_amount (all the signature covers) unchanged.
  const replays = [
    { ...notification, transaction_status: "refund" },
    { ...notification, transaction_status: "refund", refund_amount: `${order.amount}.00` },
    { ...notification, transaction_status: "partial_refund", refund_amount: "30000.00", refunds: [{ refund_chargeback_id: 99, refund_amount: "30000.00" }] },
  ];
  for (const replay of replays) assertAck(t, await postNotification(stack.baseUrl, replay), order, "paid", false);
  const after = await recordOf(order);
  t.deepEqual(after, before);
  t.is(after.refunded, 0);
  t.false(after.events.includes("order.refunded"));
  t.false(after.events.includes("refund.succeeded"));
  t.is(fake.statusChecks(order.payment_reference).length, 1 + replays.length, "each one was checked with the gateway");
});

test.serial("a refund notification records what the gateway says was refunded, not what it claims", async (t) => {
  const { order } = await paid(t);
  fake.refundAtGateway(order.payment_reference, 20_000, "one bag short");
  // Altered to claim the whole amount back.
  const inflated = { ...fake.notification(order.payment_reference)!, transaction_status: "refund", refund_amount: `${order.amount}.00`, refunds: [{ refund_chargeback_id: 1000, refund_amount: `${order.amount}.00` }] };
  assertAck(t, await postNotification(stack.baseUrl, inflated), order, "paid", true);
  const after = await recordOf(order);
  t.like(after, { status: "paid", refunded: 20_000, refunds: 1 });
  t.false(after.events.includes("order.refunded"));
});

test.serial("a forged settlement or capture for an order the gateway says is pending leaves it pending", async (t) => {
  const order = await gatewayOrder();
  const created = await recordOf(order);
  t.is(fake.transaction(order.payment_reference)?.transaction_status, "pending");
  for (const fields of [{ transaction_status: "settlement" }, { transaction_status: "capture", fraud_status: "accept" }]) {
    const forged = midtransNotification(order.payment_reference, order.amount, fields, SERVER_KEY);
    assertAck(t, await postNotification(stack.baseUrl, forged), order, "pending", false);
  }
  t.deepEqual(await recordOf(order), created);

  // An order the gateway has no transaction for at all (the buyer never reached the payment page).
  const unseen = await gatewayOrder();
  fake.snapTransactionsVisible = false;
  t.teardown(() => {
    fake.snapTransactionsVisible = true;
  });
  const forged = midtransNotification(unseen.payment_reference, unseen.amount, { transaction_status: "settlement" }, SERVER_KEY);
  assertAck(t, await postNotification(stack.baseUrl, forged), unseen, "pending", false);
  t.is((await recordOf(unseen)).status, "pending");
});

test.serial("with the gateway away a settlement is deferred (503, Retry-After) and applied once the gateway answers", async (t) => {
  const order = await gatewayOrder();
  const created = await recordOf(order);
  fake.setStatus(order.payment_reference, "settlement");
  const notification = fake.notification(order.payment_reference)!;
  for (const mode of ["down", "hang"] as const) {
    fake.coreMode = mode;
    const deferred = await postNotification(stack.baseUrl, notification);
    t.is(deferred.status, 503, `${mode}: ${deferred.text}`);
    t.is(deferred.body.error.code, "SERVICE_UNAVAILABLE");
    t.regex(deferred.headers.get("retry-after") ?? "", /^\d+$/);
    t.deepEqual(await recordOf(order), created, `${mode}: not applied unconfirmed`);
  }
  fake.coreMode = "ok";
  // Midtrans sends it again.
  assertAck(t, await postNotification(stack.baseUrl, notification), order, "paid", true);
  t.like(await recordOf(order), { status: "paid", events: ["order.created", "order.paid", "orderUpdated"] });
});
