// POST /v1/bank-mutations (docs/reconciliation.md#the-api) through the gateway: the envelope, the guards,
// every result a bank feed can get, and bad input that names the field and applies
// nothing of the call. Real HTTP, gRPC and PostgreSQL.
import test from "ava";
import { randomUUID } from "node:crypto";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.close();
});

const later = (ms = 60_000) => new Date(Date.now() + ms).toISOString();

async function shopWithOrder(name: string, price = 170_000) {
  const shop = await createStore(stack, Plan.GROWTH, name);
  const product = await createProduct(stack, shop.storeId, "Kain Tenun", price);
  const created = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: shop.key,
    json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
  });
  if (created.status !== 201) throw new Error(created.text);
  return { shop, order: created.body.data.order, transferAmount: created.body.data.payment.seller_bank.transfer_amount as number };
}

const post = (key: string, body: unknown) => api(stack.baseUrl, "/v1/bank-mutations", { method: "POST", key, json: body });
const status = async (key: string, orderId: string) => (await api(stack.baseUrl, `/v1/orders/${orderId}`, { key })).body.data.order.status;

test("a credit of the exact transfer amount pays its order; again it is duplicate; a debit is ignored", async (t) => {
  const { shop, order, transferAmount } = await shopWithOrder("Feed Store");
  const id = `BCA-${randomUUID()}`;
  const credit = { id, amount: transferAmount, type: "credit", occurred_at: later(), description: "TRSF E-BANKING CR BUDI" };
  const first = await post(shop.key, { mutations: [credit, { id: `${id}-fee`, amount: 6_500, type: "debit", occurred_at: later() }] });
  t.is(first.status, 200, first.text);
  t.deepEqual(first.body, {
    success: true,
    data: {
      results: [
        { id, result: "matched", order_id: order.id, reason: null },
        { id: `${id}-fee`, result: "ignored", order_id: null, reason: null },
      ],
    },
  });
  t.is(await status(shop.key, order.id), "paid");
  t.truthy(first.headers.get("ratelimit"), "the usual /v1 guards ran");

  const again = await post(shop.key, { mutations: [credit] });
  t.deepEqual(again.body.data.results, [{ id, result: "duplicate", order_id: order.id, reason: null }]);
});

test("unmatched credits say why; another store's order is never paid by this store's feed", async (t) => {
  const { shop, order, transferAmount } = await shopWithOrder("Unmatched Store");
  // Another price: its transfer amount can never be this store's.
  const other = await shopWithOrder("Other Store", 250_000);
  const results = await post(shop.key, {
    mutations: [
      { id: `u-${randomUUID()}`, amount: 999_999_999, type: "credit", occurred_at: later() },
      { id: `u-${randomUUID()}`, amount: transferAmount, type: "credit", occurred_at: new Date(Date.parse(order.created_at) - 3_600_000).toISOString() },
      { id: `u-${randomUUID()}`, amount: other.transferAmount, type: "credit", occurred_at: later() },
    ],
  });
  t.is(results.status, 200, results.text);
  t.deepEqual(
    results.body.data.results.map((r: { result: string; reason: string }) => [r.result, r.reason]),
    [
      ["unmatched", "no order with this amount"],
      ["unmatched", "transfer before order"],
      ["unmatched", "no order with this amount"],
    ],
  );
  t.is(await status(other.shop.key, other.order.id), "pending");
});

test("bad input names the field, and nothing of the call is applied", async (t) => {
  const { shop, order, transferAmount } = await shopWithOrder("Bad Feed Store");
  const good = { id: `g-${randomUUID()}`, amount: transferAmount, type: "credit", occurred_at: later(), description: "ok" };
  const cases: [unknown, string][] = [
    [{ mutations: [] }, "mutations"],
    [{ mutations: Array.from({ length: 501 }, (_, n) => ({ ...good, id: `m-${n}` })) }, "mutations"],
    [{ mutations: [good, { ...good, id: "" }] }, "mutations[1].id"],
    [{ mutations: [good, { ...good, id: "x".repeat(101) }] }, "mutations[1].id"],
    [{ mutations: [good, { amount: 1, type: "credit", occurred_at: later() }] }, "mutations[1].id"],
    [{ mutations: [good, { ...good, id: "a", amount: 0 }] }, "mutations[1].amount"],
    [{ mutations: [good, { ...good, id: "a", amount: -5 }] }, "mutations[1].amount"],
    [{ mutations: [good, { ...good, id: "a", amount: 1.5 }] }, "mutations[1].amount"],
    [{ mutations: [good, { ...good, id: "a", amount: "170906" }] }, "mutations[1].amount"],
    [{ mutations: [good, { ...good, id: "a", type: "transfer" }] }, "mutations[1].type"],
    [{ mutations: [good, { ...good, id: "a", occurred_at: "2026-11-20T10:15:00" }] }, "mutations[1].occurred_at"],
    [{ mutations: [good, { ...good, id: "a", occurred_at: "yesterday" }] }, "mutations[1].occurred_at"],
    [{ mutations: [good, { ...good, id: "a", description: "d".repeat(501) }] }, "mutations[1].description"],
    [{ mutations: [good, { ...good, id: "a", colour: "red" }] }, "mutations[1].colour"],
  ];
  for (const [body, field] of cases) {
    const response = await post(shop.key, body);
    t.is(response.status, 400, `${field}: ${response.text}`);
    t.is(response.body.error.code, "INVALID_REQUEST");
    t.is(response.body.error.details?.[0]?.field, field, response.text);
  }
  t.is(await status(shop.key, order.id), "pending", "the good mutation beside a bad one was not applied");
  const retried = await post(shop.key, { mutations: [good] });
  t.is(retried.body.data.results[0].result, "matched", "and its id was not used up");
});

test("the guards of every /v1 call: no key 401, a starter store 403, over 1 MiB 413", async (t) => {
  const { shop } = await shopWithOrder("Guarded Feed Store");
  const anonymous = await api(stack.baseUrl, "/v1/bank-mutations", { method: "POST", json: { mutations: [] } });
  t.is(anonymous.status, 401);
  const starter = await createStore(stack, Plan.STARTER, "Starter Feed Store");
  t.is((await post(starter.key, { mutations: [] })).status, 403);
  const huge = await post(shop.key, { mutations: [{ id: "x", amount: 1, type: "credit", occurred_at: later(), description: "d".repeat(1024 * 1024) }] });
  t.is(huge.status, 413, huge.text);
  // Bigger than the API's usual 64 KiB is fine here: 500 mutations with long descriptions.
  const big = Array.from({ length: 500 }, (_, n) => ({ id: `big-${randomUUID()}-${n}`, amount: 1_000 + n, type: "debit", occurred_at: later(), description: "d".repeat(400) }));
  const accepted = await post(shop.key, { mutations: big });
  t.is(accepted.status, 200, accepted.text.slice(0, 300));
  t.is(accepted.body.data.results.length, 500);
  t.true(accepted.body.data.results.every((r: { id: string; result: string }, n: number) => r.id === big[n]!.id && r.result === "ignored"), "in request order");
});
