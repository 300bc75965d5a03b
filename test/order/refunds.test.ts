// Refunds and the gateway's own word (docs/refunds.md) on real PostgreSQL, against a local
// fake of Midtrans speaking Snap and the Core API (status, refund, expire). The fake's
// modes are shared state, so the tests run one at a time. The router tests
// (refunds.router.test.ts) cover every rule in memory; these prove what only the real
// database and HTTP show: row locks under concurrency, the sweeper's retries, and two
// order-service processes sharing the checks.
import test from "ava";
import type { Order } from "../../gen/order/v1/order_pb.js";
import { fakeMidtransEnv, startFakeMidtrans, type FakeMidtrans } from "../helpers/fake-midtrans.js";
import { midtransNotification } from "../helpers/midtrans-notify.js";
import { api, waitFor } from "../helpers/http.js";
import { SHARED_NATS_URL } from "../helpers/nats.js";
import { freePort } from "../helpers/process.js";
import { createServices, type Services } from "../helpers/service-processes.js";
import { buyer, createProduct, createStore, ItemStatus, startStack, type Stack } from "../helpers/stack.js";

const SERVER_KEY = "SB-Mid-server-refunds";

let fake: FakeMidtrans;
let stack: Stack;
let shop: { storeId: string; key: string; productId: string };

const midtransEnv = (fakeUrl: string, extra: Record<string, string> = {}) => fakeMidtransEnv(fakeUrl, SERVER_KEY, extra);

test.before(async () => {
  fake = await startFakeMidtrans({ serverKey: SERVER_KEY });
  // Short check interval: the sweeper then runs every 250 ms (a quarter of it).
  stack = await startStack({ orderEnv: midtransEnv(fake.url, { PAYMENT_STATUS_CHECK_AFTER: "1s" }), sweepEveryMs: 200 });
  const store = await createStore(stack, undefined, "Refund Shop");
  const product = await createProduct(stack, store.storeId, "Kopi Gayo", 100_000);
  shop = { storeId: store.storeId, key: store.key, productId: product.id };
});

test.after.always(async () => {
  await stack?.close();
  await fake?.close();
});

test.beforeEach(() => {
  fake.mode = "ok";
  fake.coreMode = "ok";
});

/** A qris order, as the public API makes it. */
async function gatewayOrder(quantity = 1) {
  const response = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: shop.key,
    json: { items: [{ product_id: shop.productId, quantity }], buyer, payment_method: "qris" },
  });
  if (response.status !== 201) throw new Error(response.text);
  return response.body.data.order as { id: string; payment_reference: string; amount: number };
}

/** A qris order the buyer paid: the fake settles it and its notification arrives. */
async function paidOrder(quantity = 1) {
  const order = await gatewayOrder(quantity);
  fake.setStatus(order.payment_reference, "settlement");
  const notified = await api(stack.baseUrl, "/v1/payments/notifications/midtrans", {
    method: "POST",
    json: midtransNotification(order.payment_reference, order.amount, { transaction_status: "settlement" }, SERVER_KEY),
  });
  if (notified.body?.data?.status !== "paid") throw new Error(notified.text);
  return order;
}

function refund(orderId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return api(stack.baseUrl, `/v1/orders/${orderId}/refunds`, { method: "POST", key: shop.key, json: body, headers });
}

const readOrder = async (id: string) => (await api(stack.baseUrl, `/v1/orders/${id}`, { key: shop.key })).body.data.order;

const eventTypes = async (orderId: string) =>
  (await stack.orderSql<{ event_type: string }[]>`select event_type from outbox where order_id = ${orderId} order by created_at`).map((row) => row.event_type);

test.serial("a partial refund at the gateway, then the rest: the order turns refunded, with the gateway keeping the count", async (t) => {
  const order = await paidOrder(2);
  const first = await refund(order.id, { amount: 50_000, reason: "one bag arrived torn" });
  t.is(first.status, 201, first.text);
  t.like(first.body.data.refund, { amount: 50_000, status: "succeeded", method: "gateway", failure_message: null });
  t.is(first.body.data.order.refunded_amount, 50_000);
  const rest = await refund(order.id, { reason: "the rest went back" });
  t.is(rest.status, 201, rest.text);
  t.is(rest.body.data.refund.amount, order.amount - 50_000);
  t.like(rest.body.data.order, { status: "refunded", refunded_amount: order.amount });
  t.is(fake.transaction(order.payment_reference)?.transaction_status, "refund");
  t.deepEqual(
    fake.refunds(order.payment_reference).map((request) => request.body.refund_key),
    [first.body.data.refund.id, rest.body.data.refund.id],
  );
  const events = await eventTypes(order.id);
  t.is(events.filter((type) => type === "refund.succeeded").length, 2);
  t.true(events.includes("order.refunded"));
  t.is((await refund(order.id, { amount: 1, reason: "more" })).status, 409);
});

test.serial("an Idempotency-Key replays the first answer and refunds once", async (t) => {
  const order = await paidOrder();
  const headers = { "Idempotency-Key": `refund-${order.id}` };
  const first = await refund(order.id, { amount: 10_000, reason: "late" }, headers);
  const again = await refund(order.id, { amount: 10_000, reason: "late" }, headers);
  t.is(again.status, 201);
  t.is(again.headers.get("idempotent-replayed"), "true");
  t.deepEqual(again.body, first.body);
  t.is(fake.refunds(order.payment_reference).length, 1);
  t.is((await refund(order.id, { amount: 20_000, reason: "late" }, headers)).status, 409);
});

test.serial("10 concurrent refunds never add up to more than the order's amount", async (t) => {
  const order = await paidOrder(); // 100 000
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => refund(order.id, { amount: 30_000, reason: `part ${i}` })));
  const made = answers.filter((answer) => answer.status === 201);
  t.is(made.length, 3, answers.map((answer) => answer.status).join(","));
  t.true(answers.filter((answer) => answer.status !== 201).every((answer) => answer.status === 400 && answer.body.error.details[0].field === "amount"));
  const after = await readOrder(order.id);
  t.is(after.refunded_amount, 90_000);
  t.is(after.status, "paid");
  const [row] = await stack.orderSql<{ sum: number }[]>`select coalesce(sum(amount), 0)::int as sum from refunds where order_id = ${order.id} and status <> 'failed'`;
  t.is(row!.sum, 90_000);
});

test.serial("a refusal gives a failed refund with the gateway's message and refund.failed", async (t) => {
  const order = await paidOrder();
  fake.coreMode = "refuse";
  const answer = await refund(order.id, { reason: "customer asked" });
  t.is(answer.status, 201);
  t.like(answer.body.data.refund, { status: "failed", method: "gateway" });
  t.truthy(answer.body.data.refund.failure_message);
  t.like(answer.body.data.order, { status: "paid", refunded_amount: 0 });
  t.true((await eventTypes(order.id)).includes("refund.failed"));
});

test.serial("a gateway that is down leaves the refund pending; the sweeper settles it once, with the same refund_key", async (t) => {
  const order = await paidOrder();
  fake.coreMode = "down";
  const answer = await refund(order.id, { amount: 40_000, reason: "damaged" });
  t.is(answer.status, 201);
  t.is(answer.body.data.refund.status, "pending");
  t.is(answer.body.data.order.refunded_amount, 0);
  fake.coreMode = "ok";
  await waitFor(async () => (await readOrder(order.id)).refunded_amount === 40_000, 15_000);
  const attempts = fake.refunds(order.payment_reference);
  t.true(attempts.length >= 2);
  t.true(attempts.every((request) => request.body.refund_key === answer.body.data.refund.id));
  t.is(fake.transaction(order.payment_reference)?.refunds.length, 1, "refunded once at the gateway");
  t.is((await readOrder(order.id)).refunds[0].status, "succeeded");
  t.is((await eventTypes(order.id)).filter((type) => type === "refund.succeeded").length, 1);
});

test.serial("a partial_refund notification we did not ask for is recorded once", async (t) => {
  const order = await paidOrder();
  // Refunded in the Midtrans dashboard: the gateway's status answer lists it, and so does its notification.
  fake.refundAtGateway(order.payment_reference, 25_000, "refunded from the Midtrans dashboard");
  const body = fake.notification(order.payment_reference)!;
  t.is(body.transaction_status, "partial_refund");
  for (let i = 0; i < 2; i++) {
    const notified = await api(stack.baseUrl, "/v1/payments/notifications/midtrans", { method: "POST", json: body });
    t.is(notified.status, 200, notified.text);
  }
  const after = await readOrder(order.id);
  t.is(after.refunded_amount, 25_000);
  t.like(after.refunds, [{ amount: 25_000, status: "succeeded", method: "gateway", reason: "refunded from the Midtrans dashboard" }]);
  t.is(after.refunds.length, 1);
});

test.serial("a status check finds a settlement whose notification was lost", async (t) => {
  const order = await gatewayOrder();
  fake.setStatus(order.payment_reference, "settlement");
  await waitFor(async () => (await readOrder(order.id)).status === "paid", 10_000);
  const { history } = await stack.orders.getOrder({ storeId: shop.storeId, orderId: order.id, includeHistory: true });
  t.like(history.at(-1), { fromStatus: "pending", toStatus: "paid", cause: "gateway status check", detail: "settlement" });
  t.true(fake.statusChecks(order.payment_reference).length >= 1);
});

test.serial("an order that expires is expired at the gateway too, so the buyer cannot pay it after", async (t) => {
  const order = await gatewayOrder();
  await stack.orderSql`update orders set expires_at = clock_timestamp() where id = ${order.id}`;
  await waitFor(() => fake.expires(order.payment_reference).length > 0, 10_000);
  t.is((await readOrder(order.id)).status, "expired");
  t.is(fake.transaction(order.payment_reference)?.transaction_status, "expire");
  t.is(fake.expires(order.payment_reference).length, 1);
});

test.serial("two order-service processes share the checks: each order asked once per interval, all of them asked", async (t) => {
  const local = await startFakeMidtrans({ serverKey: SERVER_KEY });
  // A gateway that takes its time, and orders made apart: an instance busy with its
  // claimed checks leaves the orders that fall due meanwhile to the other, whatever the
  // phase of the two sweepers (when all fell due at once, one sweep could take them all).
  local.coreDelayMs = 600;
  const services: Services = await createServices({ natsUrl: SHARED_NATS_URL, env: midtransEnv(local.url, { PAYMENT_STATUS_CHECK_AFTER: "1s" }) });
  t.teardown(async () => {
    await services.close();
    await local.close();
  });
  await services.spawn("catalog");
  const first = await services.spawn("order");
  const second = await services.spawn("order", { ORDER_ADDR: `http://127.0.0.1:${await freePort()}` });
  const store = await createStore(services, undefined, "Shared Checks");
  const { item } = await services.catalog.createProduct({ storeId: store.storeId, title: "Teh", price: 10_000n, status: ItemStatus.PUBLISHED });
  const orders: Order[] = [];
  for (let i = 0; i < 12; i++) {
    const { detail } = await services.orders.createOrder({
      storeId: store.storeId,
      items: [{ ref: { case: "productId", value: item!.id }, quantity: 1 }],
      buyer,
      paymentMethod: "qris",
      requestHash: "",
    });
    orders.push(detail!.order!);
    // The first four are paid before anyone asks; the gateway's notifications are lost.
    if (i < 4) local.setStatus(detail!.order!.paymentReference, "settlement");
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  const settled = orders.slice(0, 4);
  // Asked at about 1 s and again 2 s later: wait for the second round of everyone.
  await waitFor(() => orders.every((order) => local.statusChecks(order.paymentReference).length >= (settled.includes(order) ? 1 : 2)), 20_000);
  for (const order of orders) {
    const times = local.statusChecks(order.paymentReference).map((request) => request.at);
    for (let i = 1; i < times.length; i++) t.true(times[i]! - times[i - 1]! >= 1_000, `${order.paymentReference} asked twice within an interval`);
  }
  const paid = await services.sql<{ id: string; rows: number }[]>`
    select order_id as id, count(*)::int as rows from orders.order_status_history
    where order_id = any(${settled.map((order) => order.id)}::uuid[]) and to_status = 'paid' and cause = 'gateway status check'
    group by order_id`;
  t.is(paid.length, 4, "every settled order paid by the status check");
  t.true(paid.every((row) => row.rows === 1), "each once");
  const checkedBy = (child: typeof first) => (child.output().match(/"msg":"gateway status checked"/g) ?? []).length;
  t.true(checkedBy(first) > 0 && checkedBy(second) > 0, `both instances checked (${checkedBy(first)}, ${checkedBy(second)})`);
});
