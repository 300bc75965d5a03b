// POST /v1/orders/{order_id}/refunds (docs/refunds.md) on the whole stack: a bank-transfer
// order, marked paid, refunded in part and then in full (`manual`, succeeded at once);
// what may not be refunded is CONFLICT, more than is left names `amount`, bad bodies
// name their field, another store's order is not found, and Idempotency-Key replays.
import test, { type ExecutionContext } from "ava";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.close();
});

async function shop(name: string) {
  const store = await createStore(stack, Plan.GROWTH, name);
  const product = await createProduct(stack, store.storeId, "Kain Songket", 250_000);
  /** A bank-transfer order, marked paid as the seller would. */
  const paidOrder = async () => {
    const created = await api(stack.baseUrl, "/v1/orders", {
      method: "POST",
      key: store.key,
      json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
    });
    if (created.status !== 201) throw new Error(created.text);
    const order = created.body.data.order;
    await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: order.id });
    return order as { id: string; amount: number };
  };
  const refund = (orderId: string, json: unknown, headers: Record<string, string> = {}) =>
    api(stack.baseUrl, `/v1/orders/${orderId}/refunds`, { method: "POST", key: store.key, json, headers });
  return { ...store, paidOrder, refund };
}

function assertInvalid(t: ExecutionContext, response: { status: number; body: any; text: string }, field: string, why: string) {
  t.is(response.status, 400, `${why}: ${response.text}`);
  t.is(response.body?.error?.code, "INVALID_REQUEST", why);
  t.is(response.body?.error?.details?.[0]?.field, field, `${why} names ${field}`);
}

test("a bank-transfer order is refunded in part, then the rest; a third refund is CONFLICT", async (t) => {
  const s = await shop("Refund Store");
  const order = await s.paidOrder();

  const first = await s.refund(order.id, { amount: 100_000, reason: "One piece was damaged", reference: "BCA-TRF-0001" });
  t.is(first.status, 201, first.text);
  t.deepEqual(Object.keys(first.body.data).sort(), ["order", "refund"]);
  const refund = first.body.data.refund;
  // Not asked to restock: the refund says so (docs/api.md, refunds.md).
  t.like(refund, { amount: 100_000, reason: "One piece was damaged", reference: "BCA-TRF-0001", status: "succeeded", method: "manual", failure_message: null, restock: false });
  t.false(Number.isNaN(Date.parse(refund.created_at)));
  t.like(first.body.data.order, { id: order.id, status: "paid", refunded_amount: 100_000 });
  t.is(first.body.data.order.refunds.length, 1);

  const tooMuch = await s.refund(order.id, { amount: order.amount, reason: "Everything" });
  assertInvalid(t, tooMuch, "amount", "more than is left");

  const rest = await s.refund(order.id, { reason: "Buyer returned the rest" });
  t.is(rest.status, 201, rest.text);
  t.like(rest.body.data.refund, { amount: order.amount - 100_000, status: "succeeded", method: "manual", reference: null });
  t.like(rest.body.data.order, { status: "refunded", refunded_amount: order.amount });

  const read = await api(stack.baseUrl, `/v1/orders/${order.id}`, { key: s.key });
  t.like(read.body.data.order, { status: "refunded", refunded_amount: order.amount });
  t.deepEqual(read.body.data.order.refunds.map((r: { id: string }) => r.id), [refund.id, rest.body.data.refund.id], "oldest first");

  const third = await s.refund(order.id, { amount: 1, reason: "Again" });
  t.is(third.status, 409, third.text);
  t.is(third.body.error.code, "CONFLICT");
});

test("bad bodies and ids are INVALID_REQUEST naming the field; another store's order is NOT_FOUND", async (t) => {
  const s = await shop("Refund Validation Store");
  const order = await s.paidOrder();
  const cases: [unknown, string, string][] = [
    [{ reason: "ok", note: "x" }, "note", "an unknown field"],
    [{ amount: 0, reason: "ok" }, "amount", "amount 0"],
    [{ amount: -5, reason: "ok" }, "amount", "a negative amount"],
    [{ amount: 1.5, reason: "ok" }, "amount", "amount 1.5"],
    [{ amount: "10", reason: "ok" }, "amount", 'amount "10"'],
    [{ amount: 10 }, "reason", "no reason"],
    [{ amount: 10, reason: "" }, "reason", "an empty reason"],
    [{ amount: 10, reason: "x".repeat(201) }, "reason", "a reason of 201 characters"],
    [{ amount: 10, reason: "line\u0000break" }, "reason", "a control character"],
    [{ amount: 10, reason: "ok", reference: "r".repeat(101) }, "reference", "a reference of 101 characters"],
    [{ amount: 10, reason: "ok", restock: "yes" }, "restock", "restock that is not true or false"],
  ];
  for (const [body, field, why] of cases) assertInvalid(t, await s.refund(order.id, body), field, why);
  assertInvalid(t, await s.refund("not-a-uuid", { reason: "ok" }), "order_id", "a non-UUID order id");
  t.like((await api(stack.baseUrl, `/v1/orders/${order.id}`, { key: s.key })).body.data.order, { status: "paid", refunded_amount: 0, refunds: [] }, "nothing was refunded");

  const other = await shop("Refund Neighbour Store");
  const theirs = await other.paidOrder();
  const foreign = await s.refund(theirs.id, { reason: "Not mine" });
  t.is(foreign.status, 404, foreign.text);
  t.is(foreign.body.error.code, "NOT_FOUND");
});

test("Idempotency-Key: the same body replays the first answer; another body with the key is CONFLICT", async (t) => {
  const s = await shop("Refund Replay Store");
  const order = await s.paidOrder();
  const headers = { "Idempotency-Key": "refund-replay-1" };
  const first = await s.refund(order.id, { amount: 5_000, reason: "Late delivery" }, headers);
  t.is(first.status, 201, first.text);
  t.is(first.headers.get("idempotent-replayed"), null);
  const again = await s.refund(order.id, { amount: 5_000, reason: "Late delivery" }, headers);
  t.is(again.status, 201, again.text);
  t.is(again.headers.get("idempotent-replayed"), "true");
  t.deepEqual(again.body, first.body, "the same body");
  const other = await s.refund(order.id, { amount: 6_000, reason: "Late delivery" }, headers);
  t.is(other.status, 409, other.text);
  t.is(other.body.error.code, "CONFLICT");
  const read = await api(stack.baseUrl, `/v1/orders/${order.id}`, { key: s.key });
  t.is(read.body.data.order.refunds.length, 1, "one refund for the key");
  t.is(read.body.data.order.refunded_amount, 5_000);
});
