// POST /v1/payments/notifications/midtrans (docs/orders.md#status-machine, docs/payments.md#notifications): the signature and the
// amount are checked before anything changes, every transaction status maps onto the
// status machine, and each change writes one history row and its two outbox events.
import test, { type ExecutionContext } from "ava";
import { api, type ApiResponse } from "../helpers/http.js";
import { midtransNotification, postNotification, type NotificationFields } from "../helpers/midtrans-notify.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
let store: Awaited<ReturnType<typeof createStore>>;
let productId: string;
test.before(async () => {
  stack = await startStack();
  store = await createStore(stack, Plan.GROWTH, "Notification Store");
  productId = (await createProduct(stack, store.storeId, "Sepatu Lari", 350_000)).id;
});
test.after.always(async () => {
  await stack?.close();
});

interface Order {
  id: string;
  payment_reference: string;
  amount: number;
}

async function createOrder(t: ExecutionContext, paymentMethod = "qris"): Promise<Order> {
  const response = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: productId, quantity: 1 }], buyer, payment_method: paymentMethod },
  });
  t.is(response.status, 201, response.text);
  return response.body.data.order;
}

function signed(order: Order, fields: NotificationFields, overrides: Record<string, unknown> = {}) {
  return midtransNotification(order.payment_reference, order.amount, fields, stack.config.MIDTRANS_SERVER_KEY, overrides);
}

function notify(order: Order, fields: NotificationFields, overrides: Record<string, unknown> = {}): Promise<ApiResponse> {
  return postNotification(stack.baseUrl, signed(order, fields, overrides));
}

async function statusOf(order: Order): Promise<string> {
  const response = await api(stack.baseUrl, `/v1/orders/${order.id}`, { key: store.key });
  return response.body.data.order.status;
}

/** Status, history and outbox of an order, as written. */
async function recordOf(order: Order) {
  const history = await stack.orderSql<{ from_status: string | null; to_status: string }[]>`
    select from_status, to_status from order_status_history where order_id = ${order.id} order by id`;
  const outbox = await stack.orderSql<{ event_type: string }[]>`
    select event_type from outbox where order_id = ${order.id} order by created_at, event_type`;
  return {
    status: await statusOf(order),
    history: history.map((row) => `${row.from_status ?? "∅"}→${row.to_status}`),
    outbox: outbox.map((row) => row.event_type).sort(),
  };
}

const CREATED = { status: "pending", history: ["∅→pending"], outbox: ["order.created"] };

function assertAnswer(t: ExecutionContext, response: ApiResponse, order: Order, status: string, changed: boolean) {
  t.is(response.status, 200, response.text);
  t.deepEqual(response.body, { success: true, data: { order_id: order.id, status, changed } });
}

function assertError(t: ExecutionContext, response: ApiResponse, status: number, code: string) {
  t.is(response.status, status, response.text);
  t.is(response.body?.success, false, response.text);
  t.is(response.body?.error?.code, code, response.text);
}

test("a valid settlement pays the order: one history row, orderUpdated and order.paid", async (t) => {
  const order = await createOrder(t);
  t.deepEqual(await recordOf(order), CREATED);

  assertAnswer(t, await notify(order, { transaction_status: "settlement" }), order, "paid", true);

  t.deepEqual(await recordOf(order), {
    status: "paid",
    history: ["∅→pending", "pending→paid"],
    outbox: ["order.created", "order.paid", "orderUpdated"],
  });
  const [event] = await stack.orderSql<{ payload: any }[]>`
    select payload from outbox where order_id = ${order.id} and event_type = 'order.paid'`;
  t.is(event!.payload.type, "order.paid");
  t.is(event!.payload.data.previous_status, "pending");
  t.is(event!.payload.data.order.status, "paid");
  t.is(event!.payload.data.store_id, store.storeId);
});

test("a bad signature is 401 UNAUTHORIZED and changes nothing", async (t) => {
  const order = await createOrder(t);
  const wrongKey = midtransNotification(order.payment_reference, order.amount, { transaction_status: "settlement" }, "not-the-server-key");
  const response = await postNotification(stack.baseUrl, wrongKey);
  assertError(t, response, 401, "UNAUTHORIZED");
  t.regex(response.headers.get("www-authenticate") ?? "", /^Bearer/);

  // A signature over other values than the body's (here: a tampered status code).
  const tampered = { ...signed(order, { transaction_status: "settlement" }), status_code: "201" };
  assertError(t, await postNotification(stack.baseUrl, tampered), 401, "UNAUTHORIZED");
  const garbage = signed(order, { transaction_status: "settlement" }, { signature_key: "00" });
  assertError(t, await postNotification(stack.baseUrl, garbage), 401, "UNAUTHORIZED");

  t.deepEqual(await recordOf(order), CREATED);
});

test("a gross_amount other than the order's amount is 400 INVALID_REQUEST and changes nothing", async (t) => {
  const order = await createOrder(t);
  for (const gross of [`${order.amount - 1}.00`, `${order.amount + 1}.00`, `${order.amount}.50`, "1.00", "abc"]) {
    const response = await notify(order, { transaction_status: "settlement", gross_amount: gross });
    assertError(t, response, 400, "INVALID_REQUEST");
  }
  t.deepEqual(await recordOf(order), CREATED);
  // The amount written as Midtrans writes it, and as a bare integer, both match.
  assertAnswer(t, await notify(order, { transaction_status: "pending", gross_amount: String(order.amount) }), order, "pending", false);
});

test("the same notification twice makes one transition and one set of events", async (t) => {
  const order = await createOrder(t);
  const body = signed(order, { transaction_status: "settlement" });
  assertAnswer(t, await postNotification(stack.baseUrl, body), order, "paid", true);
  assertAnswer(t, await postNotification(stack.baseUrl, body), order, "paid", false);
  // Midtrans may also resend it with a new transaction time: still the same fact.
  assertAnswer(t, await notify(order, { transaction_status: "settlement" }, { transaction_time: "2026-01-02 10:15:00" }), order, "paid", false);
  t.deepEqual(await recordOf(order), {
    status: "paid",
    history: ["∅→pending", "pending→paid"],
    outbox: ["order.created", "order.paid", "orderUpdated"],
  });
});

test("concurrent copies of one notification make one transition", async (t) => {
  const order = await createOrder(t);
  const body = signed(order, { transaction_status: "settlement" });
  const answers = await Promise.all(Array.from({ length: 6 }, () => postNotification(stack.baseUrl, body)));
  for (const answer of answers) t.is(answer.status, 200, answer.text);
  t.is(answers.filter((answer) => answer.body.data.changed).length, 1);
  t.deepEqual((await recordOf(order)).outbox, ["order.created", "order.paid", "orderUpdated"]);
});

const mappings: { fields: NotificationFields; to: string | undefined }[] = [
  { fields: { transaction_status: "settlement" }, to: "paid" },
  { fields: { transaction_status: "capture", fraud_status: "accept" }, to: "paid" },
  { fields: { transaction_status: "capture", fraud_status: "challenge" }, to: undefined },
  { fields: { transaction_status: "deny" }, to: "failed" },
  { fields: { transaction_status: "failure" }, to: "failed" },
  { fields: { transaction_status: "cancel" }, to: "cancelled" },
  { fields: { transaction_status: "expire" }, to: "expired" },
  { fields: { transaction_status: "pending" }, to: undefined },
];

for (const { fields, to } of mappings) {
  const name = fields.fraud_status ? `${fields.transaction_status}+${fields.fraud_status}` : fields.transaction_status;
  test(`${name} on a pending order → ${to ?? "no change"}`, async (t) => {
    const order = await createOrder(t);
    const response = await notify(order, fields);
    if (to === undefined) {
      assertAnswer(t, response, order, "pending", false);
      t.deepEqual(await recordOf(order), CREATED);
      return;
    }
    assertAnswer(t, response, order, to, true);
    t.deepEqual(await recordOf(order), {
      status: to,
      history: ["∅→pending", `pending→${to}`],
      outbox: ["order.created", `order.${to}`, "orderUpdated"].sort(),
    });
  });
}

test("refund on a paid order → refunded", async (t) => {
  const order = await createOrder(t);
  assertAnswer(t, await notify(order, { transaction_status: "settlement" }), order, "paid", true);
  assertAnswer(t, await notify(order, { transaction_status: "refund" }), order, "refunded", true);
  t.deepEqual(await recordOf(order), {
    status: "refunded",
    history: ["∅→pending", "pending→paid", "paid→refunded"],
    outbox: ["order.created", "order.paid", "order.refunded", "orderUpdated", "orderUpdated", "refund.succeeded"],
  });
});

test("a transition the status machine refuses is acknowledged with changed=false and changes nothing", async (t) => {
  const order = await createOrder(t);
  assertAnswer(t, await notify(order, { transaction_status: "settlement" }), order, "paid", true);
  const paid = await recordOf(order);

  assertAnswer(t, await notify(order, { transaction_status: "deny" }), order, "paid", false);
  assertAnswer(t, await notify(order, { transaction_status: "expire" }), order, "paid", false);
  assertAnswer(t, await notify(order, { transaction_status: "cancel" }), order, "paid", false);
  t.deepEqual(await recordOf(order), paid);

  // A refund before any payment is refused the same way.
  const unpaid = await createOrder(t);
  assertAnswer(t, await notify(unpaid, { transaction_status: "refund" }), unpaid, "pending", false);
  t.deepEqual(await recordOf(unpaid), CREATED);
});

test("a late settlement on a failed order pays it (the buyer retried)", async (t) => {
  const order = await createOrder(t);
  assertAnswer(t, await notify(order, { transaction_status: "deny" }), order, "failed", true);
  assertAnswer(t, await notify(order, { transaction_status: "settlement" }), order, "paid", true);
  t.deepEqual((await recordOf(order)).history, ["∅→pending", "pending→failed", "failed→paid"]);
  const [event] = await stack.orderSql<{ previous: string }[]>`
    select payload->'data'->>'previous_status' as previous from outbox where order_id = ${order.id} and event_type = 'order.paid'`;
  t.is(event!.previous, "failed");
});

test("an unknown order is 404 NOT_FOUND", async (t) => {
  const ghost = { id: "", payment_reference: "SO-NOSUCHORDER9", amount: 350_000 };
  assertError(t, await notify(ghost, { transaction_status: "settlement" }), 404, "NOT_FOUND");
});

test("a bank-transfer order cannot be settled by a gateway notification", async (t) => {
  const order = await createOrder(t, "bank_transfer");
  assertError(t, await notify(order, { transaction_status: "settlement" }), 404, "NOT_FOUND");
  t.deepEqual(await recordOf(order), CREATED);
});

test("a body that is not JSON is 415, malformed or incomplete JSON is 400", async (t) => {
  const order = await createOrder(t);
  const body = JSON.stringify(signed(order, { transaction_status: "settlement" }));

  const plain = await api(stack.baseUrl, "/v1/payments/notifications/midtrans", {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body,
  });
  assertError(t, plain, 415, "INVALID_REQUEST");
  const form = await api(stack.baseUrl, "/v1/payments/notifications/midtrans", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "order_id=x",
  });
  assertError(t, form, 415, "INVALID_REQUEST");

  const broken = await api(stack.baseUrl, "/v1/payments/notifications/midtrans", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: body.slice(0, -5),
  });
  assertError(t, broken, 400, "INVALID_REQUEST");
  const { signature_key: _dropped, ...unsigned } = JSON.parse(body);
  assertError(t, await postNotification(stack.baseUrl, unsigned), 400, "INVALID_REQUEST");

  t.deepEqual(await recordOf(order), CREATED);
});

test("the notification endpoint needs no API key and answers only POST", async (t) => {
  const get = await api(stack.baseUrl, "/v1/payments/notifications/midtrans");
  assertError(t, get, 405, "METHOD_NOT_ALLOWED");
  t.is(get.headers.get("allow"), "POST");
});
