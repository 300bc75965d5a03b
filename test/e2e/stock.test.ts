// Stock through the whole stack (docs/orders.md#stock, docs/catalog.md#stock): real
// HTTP, the real catalog and order services on real PostgreSQL, the stock relay and
// the catalog's sweep running. Only what the whole stack proves: concurrent buyers of
// the last units, replays, every way an order ends giving back or selling its units,
// a restocking refund, and a late payment of units sold meanwhile.
import test from "ava";
import { api, waitFor } from "../helpers/http.js";
import { buyer, createStore, ItemStatus, startStack, type Stack } from "../helpers/stack.js";
import { notify } from "../helpers/webhooks.js";

let stack: Stack;
test.before(async () => {
  // The expiry sweeper looks often, so an order made due expires at once.
  stack = await startStack({ sweepEveryMs: 200 });
});
test.after.always(async () => {
  await stack?.close();
});

/** A store with a live key and one published product tracking `stock` units. */
async function stockedShop(name: string, stock: number, bank = true) {
  const store = await createStore(stack, undefined, name, bank);
  const { item } = await stack.catalog.createProduct({ storeId: store.storeId, title: "Kopi Gayo 250 g", price: 85_000n, status: ItemStatus.PUBLISHED, stock: { quantity: BigInt(stock) } });
  return { ...store, productId: item!.id };
}

type Shop = Awaited<ReturnType<typeof stockedShop>>;

/** The product's stock and what new orders may still take, as the catalog says now. */
async function stockOf(shop: Shop) {
  const { items } = await stack.catalog.getItems({ storeId: shop.storeId, ids: [shop.productId] });
  return { stock: Number(items[0]!.stock), available: Number(items[0]!.available) };
}

function order(shop: Shop, quantity: number, paymentMethod = "bank_transfer", headers: Record<string, string> = {}) {
  return api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: shop.key,
    headers,
    json: { items: [{ product_id: shop.productId, quantity }], buyer, payment_method: paymentMethod },
  });
}

async function made(shop: Shop, quantity: number, paymentMethod = "bank_transfer") {
  const response = await order(shop, quantity, paymentMethod);
  if (response.status !== 201) throw new Error(response.text);
  return response.body.data.order;
}

// Alone: 50 requests at once are the load here, not the other tests.
test.serial("50 buyers at once for the last 10 units: exactly 10 orders are made, 40 are refused 409 OUT_OF_STOCK naming the line", async (t) => {
  const shop = await stockedShop("Last Units Store", 10);
  // The key is known to the gateway before the 50 come (its first use is looked up once).
  t.is((await api(stack.baseUrl, "/v1/products?limit=1", { key: shop.key })).status, 200);
  const answers = await Promise.all(Array.from({ length: 50 }, () => order(shop, 1)));
  const statuses = answers.map((answer) => answer.status);
  t.is(statuses.filter((status) => status === 201).length, 10, JSON.stringify(statuses));
  const refused = answers.filter((answer) => answer.status === 409);
  t.is(refused.length, 40);
  for (const answer of refused) {
    t.deepEqual(answer.body.error, {
      code: "OUT_OF_STOCK",
      message: "items[0].quantity: out of stock",
      details: [{ field: "items[0].quantity", message: "out of stock", available: 0 }],
    });
  }
  t.deepEqual(await stockOf(shop), { stock: 10, available: 0 });
  const [written] = await stack.orderSql<{ count: number }[]>`select count(*)::int as count from orders where store_id = ${shop.storeId} and holds_stock`;
  t.is(written!.count, 10);
  // What is left is said as it is: 1 more than there is names how many there are.
  const short = await stockedShop("Few Units Store", 3);
  const tooMany = await order(short, 4);
  t.is(tooMany.status, 409);
  t.deepEqual(tooMany.body.error.details, [{ field: "items[0].quantity", message: "only 3 available", available: 3 }]);
});

test("an Idempotency-Key replay answers the first order again and holds nothing more", async (t) => {
  const shop = await stockedShop("Replay Store", 10);
  const first = await order(shop, 2, "bank_transfer", { "Idempotency-Key": "stock-replay-1" });
  t.is(first.status, 201, first.text);
  const replay = await order(shop, 2, "bank_transfer", { "Idempotency-Key": "stock-replay-1" });
  t.is(replay.status, 201, replay.text);
  t.is(replay.headers.get("idempotent-replayed"), "true");
  t.is(replay.body.data.order.id, first.body.data.order.id);
  t.deepEqual(await stockOf(shop), { stock: 10, available: 8 });
});

test("an order refused after its units were held (a bank transfer to a store without a bank account) gives them back at once, long before the sweep would", async (t) => {
  const shop = await stockedShop("No Bank Store", 5, false);
  const refused = await order(shop, 2, "bank_transfer");
  t.is(refused.status, 400, refused.text);
  t.is(refused.body.error.details[0].field, "payment_method");
  // STOCK_CONFIRM_SECONDS is 120: only the order service's own release frees them sooner.
  await waitFor(async () => (await stockOf(shop)).available === 5, 10_000);
  t.deepEqual(await stockOf(shop), { stock: 5, available: 5 });
});

test("cancelled, expired and failed orders give their units back within 60 s; a paid order's units are sold", async (t) => {
  const shop = await stockedShop("Every End Store", 10);
  const cancelled = await made(shop, 1);
  const expired = await made(shop, 2);
  const failed = await made(shop, 3, "qris");
  const paid = await made(shop, 4, "qris");
  t.deepEqual(await stockOf(shop), { stock: 10, available: 0 });

  t.is((await api(stack.baseUrl, `/v1/orders/${cancelled.id}/cancel`, { method: "POST", key: shop.key })).status, 200);
  await stack.orderSql`update orders set expires_at = now() - interval '1 second' where id = ${expired.id}`;
  await notify(t, stack, failed, { transaction_status: "deny" });
  await notify(t, stack, paid, { transaction_status: "settlement" });

  const tookMs = await waitFor(async () => (await stockOf(shop)).available === 6 && (await stockOf(shop)).stock === 6, 60_000);
  t.true(tookMs < 60_000);
  t.deepEqual(await stockOf(shop), { stock: 6, available: 6 }, "4 sold; the 6 others free again");
  const statusOf = async (id: string) => (await api(stack.baseUrl, `/v1/orders/${id}`, { key: shop.key })).body.data.order.status;
  t.deepEqual(await Promise.all([cancelled, expired, failed, paid].map((one) => statusOf(one.id))), ["cancelled", "expired", "failed", "paid"]);
});

test("a refund that asks to restock puts the order's sold units back; one that does not leaves them sold", async (t) => {
  const shop = await stockedShop("Restock Store", 10);
  const kept = await made(shop, 2);
  const returned = await made(shop, 3);
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: kept.id });
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: returned.id });
  await waitFor(async () => (await stockOf(shop)).stock === 5, 30_000);

  const refund = (id: string, body: Record<string, unknown>) => api(stack.baseUrl, `/v1/orders/${id}/refunds`, { method: "POST", key: shop.key, json: { reason: "returned", ...body } });
  const plain = await refund(kept.id, {});
  t.is(plain.status, 201, plain.text);
  t.false(plain.body.data.refund.restock);
  const restocked = await refund(returned.id, { restock: true });
  t.is(restocked.status, 201, restocked.text);
  t.true(restocked.body.data.refund.restock);
  await waitFor(async () => (await stockOf(shop)).stock === 8, 30_000);
  t.deepEqual(await stockOf(shop), { stock: 8, available: 8 }, "the 3 returned are back, the 2 kept are not");
});

test("a late payment of units sold meanwhile is paid, and the product is oversold", async (t) => {
  const shop = await stockedShop("Late Payment Store", 1);
  const late = await made(shop, 1, "qris");
  await stack.orderSql`update orders set expires_at = now() - interval '1 second' where id = ${late.id}`;
  await waitFor(async () => (await stockOf(shop)).available === 1, 60_000);
  const other = await made(shop, 1, "qris");
  await notify(t, stack, other, { transaction_status: "settlement" });
  await waitFor(async () => (await stockOf(shop)).stock === 0, 30_000);

  const answer = await notify(t, stack, late, { transaction_status: "settlement" });
  t.like(answer, { status: "paid", changed: true });
  await waitFor(async () => (await stockOf(shop)).stock === -1, 30_000);
  t.deepEqual(await stockOf(shop), { stock: -1, available: 0 });
  const { lines } = await stack.catalog.getOrderStock({ storeId: shop.storeId, orderId: late.id });
  t.like(lines[0], { productId: shop.productId, quantity: 1n, state: "sold", oversold: true });
});
