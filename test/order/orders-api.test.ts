// The order endpoints as a client sees them (docs/api.md#endpoints, docs/orders.md#status-machine): payment methods,
// pricing, the response shape, free orders, unique transfer amounts under
// concurrency, idempotency, store isolation, listing, and the status machine driven
// by the `store-admin` CLI (run in this process, test/helpers/cli.ts).
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { api, type ApiResponse } from "../helpers/http.js";
import { createCliRunner } from "../helpers/cli.js";
import { buyer, createBundle, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const DAY_MS = 24 * 60 * 60 * 1000;
const GATEWAY_CODES = ["qris", "gopay", "shopeepay", "bca_va", "bni_va", "bri_va", "permata_va", "credit_card"];

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.close();
});

type Store = Awaited<ReturnType<typeof createStore>>;

function createOrder(store: Store, json: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return api(stack.baseUrl, "/v1/orders", { method: "POST", key: store.key, json, headers });
}

function getOrder(store: Store, id: string): Promise<ApiResponse> {
  return api(stack.baseUrl, `/v1/orders/${id}`, { key: store.key });
}

/** Creates an order that must succeed and returns `data`. */
async function created(t: ExecutionContext, store: Store, json: unknown): Promise<any> {
  const response = await createOrder(store, json);
  t.is(response.status, 201, response.text);
  t.true(response.body.success);
  return response.body.data;
}

async function orderCount(storeId: string): Promise<number> {
  const [row] = await stack.orderSql<{ n: number }[]>`select count(*)::int as n from orders where store_id = ${storeId}`;
  return row!.n;
}

function assertError(t: ExecutionContext, response: ApiResponse, status: number, code: string) {
  t.is(response.status, status, response.text);
  t.is(response.body?.success, false, response.text);
  t.is(response.body?.error?.code, code, response.text);
  t.true(typeof response.body?.error?.message === "string" && response.body.error.message.length > 0);
}

// ---------------------------------------------------------------------------------
// GET /v1/payment-methods

test("payment methods: bank_transfer when the store has a bank account, then the gateway codes", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Bank Store");
  const response = await api(stack.baseUrl, "/v1/payment-methods", { key: store.key });
  t.is(response.status, 200, response.text);
  t.true(response.body.success);
  const items: any[] = response.body.data.items;
  t.deepEqual(items.map((m) => m.code).sort(), ["bank_transfer", ...GATEWAY_CODES].sort());
  for (const method of items) {
    t.deepEqual(Object.keys(method).sort(), ["code", "kind", "name", "provider", "settlement_channel"]);
    t.true(typeof method.name === "string" && method.name.length > 0);
  }
  const bank = items.find((m) => m.code === "bank_transfer");
  t.like(bank, { code: "bank_transfer", kind: "bank_transfer", provider: "manual", settlement_channel: "seller_bank" });
  for (const method of items.filter((m) => m.code !== "bank_transfer")) {
    t.like(method, { kind: "gateway", provider: "sandbox", settlement_channel: "gateway" }, method.code);
  }
});

test("payment methods: no bank_transfer for a store without a bank account", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "No Bank Store", false);
  const response = await api(stack.baseUrl, "/v1/payment-methods", { key: store.key });
  t.is(response.status, 200, response.text);
  const items: any[] = response.body.data.items;
  t.deepEqual(items.map((m) => m.code).sort(), [...GATEWAY_CODES].sort());
  t.true(items.every((m) => m.kind === "gateway" && m.provider === "sandbox" && m.settlement_channel === "gateway"));

  // And a gateway order works there.
  const product = await createProduct(stack, store.storeId, "Sarung", 150_000);
  const data = await created(t, store, { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "gopay" });
  t.is(data.payment.kind, "gateway");
  t.is(data.order.amount, 150_000);
});

// ---------------------------------------------------------------------------------
// Pricing

test("pricing: line totals, subtotal and a unique code on top for bank transfer", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Pricing Store");
  const kopi = await createProduct(stack, store.storeId, "Kopi Gayo", 12_500);
  const teh = await createProduct(stack, store.storeId, "Teh Melati", 7_000);
  const paket = await createBundle(stack, store.storeId, "Paket Sarapan", 30_000, [kopi.id, teh.id]);
  const hampers = await createBundle(stack, store.storeId, "Hampers", 250_000, [kopi.id]);
  const items = [
    { product_id: kopi.id, quantity: 3 },
    { bundle_id: paket.id, quantity: 2 },
    { product_id: teh.id, quantity: 1 },
    { bundle_id: hampers.id, quantity: 4 },
  ];
  const data = await created(t, store, { items, buyer, payment_method: "bank_transfer" });
  const { order, payment } = data;
  t.deepEqual(order.items, [
    { type: "product", title: "Kopi Gayo", quantity: 3, unit_price: 12_500, line_total: 37_500, product_id: kopi.id },
    { type: "bundle", title: "Paket Sarapan", quantity: 2, unit_price: 30_000, line_total: 60_000, bundle_id: paket.id },
    { type: "product", title: "Teh Melati", quantity: 1, unit_price: 7_000, line_total: 7_000, product_id: teh.id },
    { type: "bundle", title: "Hampers", quantity: 4, unit_price: 250_000, line_total: 1_000_000, bundle_id: hampers.id },
  ]);
  const subtotal = 37_500 + 60_000 + 7_000 + 1_000_000;
  t.is(order.subtotal, subtotal);
  const code = payment.seller_bank.unique_amount_code;
  t.true(Number.isInteger(code) && code >= 1 && code <= 999, String(code));
  t.is(order.amount, subtotal + code);
  t.is(payment.amount, subtotal + code);
  t.is(payment.seller_bank.transfer_amount, order.amount);

  // The same items paid through the gateway cost exactly the subtotal.
  const gateway = await created(t, store, { items, buyer, payment_method: "bca_va" });
  t.is(gateway.order.subtotal, subtotal);
  t.is(gateway.order.amount, subtotal);
  t.is(gateway.payment.amount, subtotal);
  t.is(gateway.payment.seller_bank, null);
  t.deepEqual(gateway.order.items, order.items);
});

test("pricing: an order keeps the price it was made at when the catalog price changes", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Snapshot Store");
  const batik = await createProduct(stack, store.storeId, "Batik Tulis", 450_000);
  const paket = await createBundle(stack, store.storeId, "Paket Batik", 800_000, [batik.id]);
  const items = [
    { product_id: batik.id, quantity: 2 },
    { bundle_id: paket.id, quantity: 1 },
  ];
  const first = await created(t, store, { items, buyer, payment_method: "bank_transfer" });

  await stack.catalog.setItemPrice({ storeId: store.storeId, itemId: batik.id, price: 999_000n });
  await stack.catalog.setItemPrice({ storeId: store.storeId, itemId: paket.id, price: 1_500_000n });

  const again = await getOrder(store, first.order.id);
  t.is(again.status, 200, again.text);
  t.deepEqual(
    again.body.data.order.items.map((item: any) => [item.unit_price, item.line_total]),
    [
      [450_000, 900_000],
      [800_000, 800_000],
    ],
  );
  t.is(again.body.data.order.subtotal, 1_700_000);
  t.is(again.body.data.order.amount, first.order.amount);
  t.is(again.body.data.payment.seller_bank.transfer_amount, first.order.amount);

  const listed = await api(stack.baseUrl, "/v1/orders", { key: store.key });
  t.deepEqual(listed.body.data.items[0].items, first.order.items);

  // A new order pays the new price.
  const second = await created(t, store, { items, buyer, payment_method: "qris" });
  t.is(second.order.subtotal, 2 * 999_000 + 1_500_000);
});

// ---------------------------------------------------------------------------------
// Response shape

const ORDER_KEYS = [
  "amount",
  "buyer",
  "checkout_url",
  "created_at",
  "currency",
  "expires_at",
  "external_id",
  "id",
  "items",
  "livemode",
  "metadata",
  "payment_link_id",
  "payment_method",
  "payment_provider",
  "payment_reference",
  "payment_url",
  "refunded_amount",
  "refunds",
  "requires_payment",
  "settlement_channel",
  "status",
  "subtotal",
  "updated_at",
];
const PAYMENT_KEYS = ["amount", "checkout_url", "currency", "expires_at", "kind", "method", "payment_url", "provider", "seller_bank", "snap"];

function assertCommonShape(t: ExecutionContext, data: any) {
  t.deepEqual(Object.keys(data).sort(), ["order", "payment", "redirect"]);
  const { order, payment } = data;
  t.deepEqual(Object.keys(order).sort(), ORDER_KEYS);
  t.is(order.livemode, true, "a live key's order is live");
  t.deepEqual(Object.keys(payment).sort(), PAYMENT_KEYS);
  t.deepEqual(Object.keys(data.redirect).sort(), ["error_url", "return_url", "success_url"]);
  t.regex(order.id, UUID);
  t.regex(order.payment_reference, /^[A-Z0-9-]{8,40}$/);
  t.is(order.currency, "IDR");
  t.is(payment.currency, "IDR");
  for (const time of [order.created_at, order.updated_at, order.expires_at, payment.expires_at]) t.regex(time, ISO_Z);
  t.is(Date.parse(order.expires_at) - Date.parse(order.created_at), DAY_MS, "expires_at = created_at + 24 h");
  t.is(payment.expires_at, order.expires_at);
  t.is(order.checkout_url, `${stack.baseUrl}/checkout/${order.id}`);
  t.is(payment.checkout_url, order.checkout_url);
  t.is(payment.payment_url, order.payment_url);
  t.is(payment.amount, order.amount);
  t.is(payment.method, order.payment_method);
  t.is(payment.provider, order.payment_provider);
}

test("response shape of a bank-transfer order: 201 with order, payment and redirect", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Shape Store");
  const product = await createProduct(stack, store.storeId, "Songket", 1_250_000);
  const started = Date.now();
  const response = await createOrder(store, {
    items: [{ product_id: product.id, quantity: 2 }],
    buyer,
    payment_method: "bank_transfer",
    external_id: "INV-2024-0001",
  });
  t.is(response.status, 201, response.text);
  t.true(response.body.success);
  t.is(response.headers.get("idempotent-replayed"), null);
  const data = response.body.data;
  assertCommonShape(t, data);
  const { order, payment, redirect } = data;
  t.is(order.status, "pending");
  t.is(order.subtotal, 2_500_000);
  t.is(order.settlement_channel, "seller_bank");
  t.is(order.payment_provider, "manual");
  t.is(order.payment_method, "bank_transfer");
  t.deepEqual(order.buyer, buyer);
  t.is(order.external_id, "INV-2024-0001");
  t.is(order.payment_url, order.checkout_url);
  t.true(order.requires_payment);
  t.is(order.updated_at, order.created_at);
  const createdAt = Date.parse(order.created_at);
  t.true(createdAt >= started - 5_000 && createdAt <= Date.now() + 5_000, "created now");
  t.is(payment.kind, "bank_transfer");
  t.is(payment.snap, null);
  t.deepEqual(payment.seller_bank, {
    bank_name: "Bank Central Asia",
    bank_code: "BCA",
    account_number: "0001112223",
    account_holder: "Test Holder",
    payment_reference: order.payment_reference,
    unique_amount_code: order.amount - order.subtotal,
    transfer_amount: order.amount,
  });
  t.deepEqual(redirect, { success_url: order.checkout_url, return_url: order.checkout_url, error_url: order.checkout_url });

  // GET answers with the same document.
  const again = await getOrder(store, order.id);
  t.is(again.status, 200, again.text);
  t.deepEqual(again.body, { success: true, data });

  // Without external_id it is null.
  const plain = await created(t, store, { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" });
  t.is(plain.order.external_id, null);
  t.not(plain.order.payment_reference, order.payment_reference);
});

test("response shape of a gateway order: a sandbox session with its snap token and payment page", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Gateway Shape Store");
  const product = await createProduct(stack, store.storeId, "Tenun Ikat", 300_000);
  const data = await created(t, store, { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "qris" });
  assertCommonShape(t, data);
  const { order, payment } = data;
  t.is(order.status, "pending");
  t.is(order.amount, 300_000);
  t.is(order.settlement_channel, "gateway");
  t.is(order.payment_provider, "sandbox");
  t.is(order.payment_method, "qris");
  t.true(order.requires_payment);
  t.is(payment.kind, "gateway");
  t.is(payment.seller_bank, null);
  t.truthy(payment.snap);
  t.deepEqual(Object.keys(payment.snap).sort(), ["client_key", "snap_script_url", "token"]);
  t.true(typeof payment.snap.token === "string" && payment.snap.token.length > 0);
  t.is(payment.snap.client_key, "sandbox-client-key");
  t.is(order.payment_url, `${stack.baseUrl}/sandbox/pay/${payment.snap.token}`);

  // GET reuses the live session.
  const again = await getOrder(store, order.id);
  t.deepEqual(again.body.data, data);
});

test("redirect: the request's URLs, else the store's, else checkout_url", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Redirect Store");
  const product = await createProduct(stack, store.storeId, "Keris", 2_000_000);
  const items = [{ product_id: product.id, quantity: 1 }];
  const urls = {
    success_url: "https://shop.example.com/thanks?o=1",
    return_url: "https://shop.example.com/cart",
    error_url: "http://shop.example.com/oops",
  };
  const full = await created(t, store, { items, buyer, payment_method: "bank_transfer", redirect: urls });
  t.deepEqual(full.redirect, urls);
  t.deepEqual((await getOrder(store, full.order.id)).body.data.redirect, urls);

  const partial = await created(t, store, { items, buyer, payment_method: "gopay", redirect: { success_url: urls.success_url } });
  t.deepEqual(partial.redirect, {
    success_url: urls.success_url,
    return_url: partial.order.checkout_url,
    error_url: partial.order.checkout_url,
  });

  // A store with its own redirect URLs supplies them when the request does not.
  const { store: withRedirects } = await stack.stores.createStore({
    name: "Store With Redirects",
    plan: Plan.GROWTH,
    bankAccount: { bankName: "Bank Mandiri", bankCode: "MANDIRI", accountNumber: "1234567890", accountHolder: "Toko" },
    redirects: { successUrl: "https://store.example.com/ok", returnUrl: "https://store.example.com/back", errorUrl: "" },
  });
  const key = await stack.stores.createApiKey({ storeId: withRedirects!.id, name: "test" });
  const other: Store = { storeId: withRedirects!.id, keyId: key.apiKey!.id, key: key.secret };
  const otherProduct = await createProduct(stack, other.storeId, "Wayang", 500_000);
  const defaults = await created(t, other, { items: [{ product_id: otherProduct.id, quantity: 1 }], buyer, payment_method: "bank_transfer" });
  t.deepEqual(defaults.redirect, {
    success_url: "https://store.example.com/ok",
    return_url: "https://store.example.com/back",
    error_url: defaults.order.checkout_url,
  });
  const overridden = await created(t, other, {
    items: [{ product_id: otherProduct.id, quantity: 1 }],
    buyer,
    payment_method: "bank_transfer",
    redirect: { success_url: urls.success_url },
  });
  t.deepEqual(overridden.redirect, {
    success_url: urls.success_url,
    return_url: "https://store.example.com/back",
    error_url: overridden.order.checkout_url,
  });
});

// ---------------------------------------------------------------------------------
// Free orders

test("a free order is paid at once, needs no payment and no payment_method", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Free Store");
  const freebie = await createProduct(stack, store.storeId, "Stiker Gratis", 0);
  const data = await created(t, store, { items: [{ product_id: freebie.id, quantity: 3 }], buyer });
  assertCommonShape(t, data);
  const { order, payment } = data;
  t.is(order.status, "paid");
  t.is(order.subtotal, 0);
  t.is(order.amount, 0);
  t.is(order.payment_method, "none");
  t.is(order.payment_provider, "none");
  t.is(order.settlement_channel, "none");
  t.false(order.requires_payment);
  t.is(order.payment_url, order.checkout_url);
  t.is(payment.kind, "none");
  t.is(payment.seller_bank, null);
  t.is(payment.snap, null);
  t.is(payment.amount, 0);

  const again = await getOrder(store, order.id);
  t.is(again.body.data.order.status, "paid");
  t.false(again.body.data.order.requires_payment);

  // It went through the status machine: created pending, then paid, with its events.
  const history = await stack.orderSql`select from_status, to_status from order_status_history where order_id = ${order.id} order by id`;
  t.deepEqual(
    history.map((row) => [row.from_status, row.to_status]),
    [
      [null, "pending"],
      ["pending", "paid"],
    ],
  );
  const events = await stack.orderSql`select event_type from outbox where order_id = ${order.id} order by created_at, event_type`;
  t.deepEqual(events.map((row) => row.event_type).sort(), ["order.created", "order.paid", "orderUpdated"]);

  // Naming a method on a free order changes nothing: there is nothing to pay.
  const named = await created(t, store, { items: [{ product_id: freebie.id, quantity: 1 }], buyer, payment_method: "qris" });
  t.is(named.payment.kind, "none");
  t.is(named.order.payment_method, "none");
  t.is(named.order.status, "paid");
});

// ---------------------------------------------------------------------------------
// Unique transfer amounts under concurrency

async function inBatches<T>(count: number, size: number, make: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let done = 0; done < count; done += size) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(size, count - done) }, make))));
  }
  return out;
}

test.serial("200 concurrent bank-transfer orders get 200 distinct amounts; at 999 pending the amount is full", async (t) => {
  t.timeout(10 * 60_000);
  const store = await createStore(stack, Plan.GROWTH, "Busy Store");
  const product = await createProduct(stack, store.storeId, "Kaos Polos", 50_000);
  const body = { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" };

  const burstStarted = Date.now();
  const burst = await Promise.all(Array.from({ length: 200 }, () => createOrder(store, body)));
  const burstMs = Date.now() - burstStarted;
  t.log(`200 concurrent POST /v1/orders: ${burstMs} ms`);
  t.deepEqual(
    burst.filter((r) => r.status !== 201).map((r) => r.text),
    [],
  );
  const amounts = new Set(burst.map((r) => r.body.data.payment.seller_bank.transfer_amount));
  t.is(amounts.size, 200);
  for (const r of burst) {
    const { order, payment } = r.body.data;
    t.is(order.subtotal, 50_000);
    t.is(order.amount, payment.seller_bank.transfer_amount);
    t.true(order.amount >= 50_001 && order.amount <= 50_999);
  }

  const fillStarted = Date.now();
  const rest = await inBatches(799, 50, () => createOrder(store, body));
  const fillMs = Date.now() - fillStarted;
  t.log(`799 more in batches of 50: ${fillMs} ms (total ${burstMs + fillMs} ms for 999 orders)`);
  t.deepEqual(
    rest.filter((r) => r.status !== 201).map((r) => r.text),
    [],
  );
  for (const r of rest) amounts.add(r.body?.data?.payment?.seller_bank?.transfer_amount);
  t.is(amounts.size, 999);
  t.deepEqual(
    [...amounts].sort((a, b) => a - b),
    Array.from({ length: 999 }, (_, n) => 50_001 + n),
  );
  t.is(await orderCount(store.storeId), 999);

  // The thousandth pending order of this amount has no code left.
  const full = await createOrder(store, body);
  assertError(t, full, 409, "CONFLICT");
  t.is(await orderCount(store.storeId), 999);

  // The gateway does not need a code, and another store's amounts are its own.
  const gateway = await createOrder(store, { ...body, payment_method: "qris" });
  t.is(gateway.status, 201, gateway.text);
  t.is(gateway.body.data.order.amount, 50_000);
  const neighbour = await createStore(stack, Plan.GROWTH, "Neighbour Store");
  const neighbourProduct = await createProduct(stack, neighbour.storeId, "Kaos Polos", 50_000);
  const elsewhere = await createOrder(neighbour, { ...body, items: [{ product_id: neighbourProduct.id, quantity: 1 }] });
  t.is(elsewhere.status, 201, elsewhere.text);

  // A cancelled order keeps its amount through BANK_MATCH_GRACE (a late transfer must
  // not pay a newer order, docs/reconciliation.md#unique-codes); a paid one gives it back.
  const cancelled = burst[16]!.body.data.order;
  await stack.orders.cancelOrder({ storeId: store.storeId, orderId: cancelled.id });
  assertError(t, await createOrder(store, body), 409, "CONFLICT");
  const victim = burst[17]!.body.data.order;
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: victim.id });
  const reused = await createOrder(store, body);
  t.is(reused.status, 201, reused.text);
  t.is(reused.body.data.payment.seller_bank.transfer_amount, victim.amount);
  assertError(t, await createOrder(store, body), 409, "CONFLICT");

  // Other subtotals whose ranges overlap the full one avoid its amounts too:
  // 49,999 + 1..999 has only 50,000 free; 50,500 + 1..999 only 51,000 and up.
  const below = await createProduct(stack, store.storeId, "Kaos Murah", 49_999);
  const lower = await createOrder(store, { ...body, items: [{ product_id: below.id, quantity: 1 }] });
  t.is(lower.status, 201, lower.text);
  t.is(lower.body.data.payment.seller_bank.transfer_amount, 50_000);
  t.is(lower.body.data.payment.seller_bank.unique_amount_code, 1);
  const above = await createProduct(stack, store.storeId, "Kaos Mahal", 50_500);
  const higher = await createOrder(store, { ...body, items: [{ product_id: above.id, quantity: 1 }] });
  t.is(higher.status, 201, higher.text);
  t.true(higher.body.data.payment.seller_bank.transfer_amount >= 51_000);
  t.true(higher.body.data.payment.seller_bank.transfer_amount <= 51_499);

  // Every one of them announced itself.
  const [missing] = await stack.orderSql<{ n: number }[]>`
    select count(*)::int as n from orders o
    where o.store_id = ${store.storeId}
      and (select count(*) from outbox e where e.order_id = o.id and e.event_type = 'order.created') <> 1`;
  t.is(missing!.n, 0);
});

// ---------------------------------------------------------------------------------
// Idempotency

test("idempotency: the same key and body replays the first response byte for byte", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Idem Store");
  const product = await createProduct(stack, store.storeId, "Jamu", 20_000);
  const body = { items: [{ product_id: product.id, quantity: 2 }], buyer, payment_method: "bank_transfer", external_id: "cart-77" };
  const key = `idem-${randomUUID()}`;
  const first = await createOrder(store, body, { "idempotency-key": key });
  t.is(first.status, 201, first.text);
  t.is(first.headers.get("idempotent-replayed"), null);

  const second = await createOrder(store, body, { "idempotency-key": key });
  t.is(second.status, 201, second.text);
  t.is(second.headers.get("idempotent-replayed"), "true");
  t.is(second.text, first.text);

  // The same JSON with its keys in another order is the same body.
  const reordered = {
    payment_method: "bank_transfer",
    external_id: "cart-77",
    buyer: { phone: buyer.phone, email: buyer.email, name: buyer.name },
    items: [{ quantity: 2, product_id: product.id }],
  };
  const third = await createOrder(store, reordered, { "idempotency-key": key });
  t.is(third.status, 201, third.text);
  t.is(third.headers.get("idempotent-replayed"), "true");
  t.is(third.text, first.text);
  t.is(await orderCount(store.storeId), 1);

  // Without a key, the same body is simply a new order.
  const fresh = await createOrder(store, body);
  t.is(fresh.status, 201);
  t.not(fresh.body.data.order.id, first.body.data.order.id);
  t.is(await orderCount(store.storeId), 2);
});

test("idempotency: the same key with another body is 409 CONFLICT", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Idem Conflict Store");
  const product = await createProduct(stack, store.storeId, "Rendang", 75_000);
  const body = { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" };
  const key = `idem-${randomUUID()}`;
  const first = await createOrder(store, body, { "idempotency-key": key });
  t.is(first.status, 201, first.text);
  for (const other of [
    { ...body, items: [{ product_id: product.id, quantity: 2 }] },
    { ...body, payment_method: "qris" },
    { ...body, external_id: "x" },
  ]) {
    const response = await createOrder(store, other, { "idempotency-key": key });
    assertError(t, response, 409, "CONFLICT");
    t.is(response.headers.get("idempotent-replayed"), null);
  }
  t.is(await orderCount(store.storeId), 1);
  // The original still replays.
  const replay = await createOrder(store, body, { "idempotency-key": key });
  t.is(replay.status, 201);
  t.is(replay.text, first.text);
});

test("idempotency: 20 concurrent requests with one key make exactly one order", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Idem Race Store");
  const product = await createProduct(stack, store.storeId, "Sambal", 15_000);
  const body = { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" };
  const key = `race-${randomUUID()}`;
  const started = Date.now();
  const responses = await Promise.all(Array.from({ length: 20 }, () => createOrder(store, body, { "idempotency-key": key })));
  t.log(`20 concurrent POSTs with one key: ${Date.now() - started} ms`);
  t.is(await orderCount(store.storeId), 1);
  const ok = responses.filter((r) => r.status === 201);
  const conflicts = responses.filter((r) => r.status === 409);
  t.is(ok.length + conflicts.length, 20, responses.map((r) => `${r.status} ${r.text}`).join("\n"));
  t.true(ok.length >= 1);
  t.is(new Set(ok.map((r) => r.text)).size, 1, "every 201 carries the same body");
  for (const r of conflicts) assertError(t, r, 409, "CONFLICT");
  // Once settled, the key replays the one order.
  const after = await createOrder(store, body, { "idempotency-key": key });
  t.is(after.status, 201);
  t.is(after.text, ok[0]!.text);
  t.is(after.headers.get("idempotent-replayed"), "true");
});

test("idempotency: a key belongs to one store", async (t) => {
  const a = await createStore(stack, Plan.GROWTH, "Idem Store A");
  const b = await createStore(stack, Plan.GROWTH, "Idem Store B");
  const pa = await createProduct(stack, a.storeId, "Bakpia", 30_000);
  const pb = await createProduct(stack, b.storeId, "Bakpia", 30_000);
  const key = `shared-${randomUUID()}`;
  const ra = await createOrder(a, { items: [{ product_id: pa.id, quantity: 1 }], buyer, payment_method: "bank_transfer" }, { "idempotency-key": key });
  const rb = await createOrder(b, { items: [{ product_id: pb.id, quantity: 1 }], buyer, payment_method: "bank_transfer" }, { "idempotency-key": key });
  t.is(ra.status, 201, ra.text);
  t.is(rb.status, 201, rb.text);
  t.is(rb.headers.get("idempotent-replayed"), null);
  t.not(ra.body.data.order.id, rb.body.data.order.id);
  t.is(await orderCount(a.storeId), 1);
  t.is(await orderCount(b.storeId), 1);
  // Even the very same body in store B (an item of store A) is judged on its own there.
  const crossed = await createOrder(b, { items: [{ product_id: pa.id, quantity: 1 }], buyer, payment_method: "bank_transfer" }, { "idempotency-key": `other-${key}` });
  t.is(crossed.status, 400, crossed.text);
});

test("idempotency: a request that fails validation does not use up its key", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Idem Retry Store");
  const product = await createProduct(stack, store.storeId, "Dodol", 10_000);
  const key = `retry-${randomUUID()}`;
  const good = { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" };

  // Refused by the shape check, the rules, and the catalog look-up in turn.
  const badShape = await createOrder(store, { ...good, coupon: "x" }, { "idempotency-key": key });
  assertError(t, badShape, 400, "INVALID_REQUEST");
  const badRule = await createOrder(store, { ...good, buyer: { ...buyer, email: "nope" } }, { "idempotency-key": key });
  assertError(t, badRule, 400, "INVALID_REQUEST");
  const badItem = await createOrder(store, { ...good, items: [{ product_id: randomUUID(), quantity: 1 }] }, { "idempotency-key": key });
  assertError(t, badItem, 400, "INVALID_REQUEST");
  t.is(badItem.body.error.details[0].field, "items[0].product_id");
  // The same failing body again still fails the same way (it is not replayed as a conflict).
  const badItemAgain = await createOrder(store, { ...good, items: [{ product_id: randomUUID(), quantity: 1 }] }, { "idempotency-key": key });
  assertError(t, badItemAgain, 400, "INVALID_REQUEST");
  t.is(await orderCount(store.storeId), 0);

  const fixed = await createOrder(store, good, { "idempotency-key": key });
  t.is(fixed.status, 201, fixed.text);
  t.is(fixed.headers.get("idempotent-replayed"), null);
  const replay = await createOrder(store, good, { "idempotency-key": key });
  t.is(replay.text, fixed.text);
  t.is(replay.headers.get("idempotent-replayed"), "true");
  t.is(await orderCount(store.storeId), 1);
});

// ---------------------------------------------------------------------------------
// Store isolation and GET /v1/orders/{id}

test("another store's order is 404 NOT_FOUND and never listed; a non-UUID id is 400", async (t) => {
  const a = await createStore(stack, Plan.GROWTH, "Isolation A");
  const b = await createStore(stack, Plan.GROWTH, "Isolation B");
  const product = await createProduct(stack, a.storeId, "Lurik", 90_000);
  const mine = await created(t, a, { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" });
  const id = mine.order.id;

  assertError(t, await getOrder(b, id), 404, "NOT_FOUND");
  assertError(t, await getOrder(b, id.toUpperCase()), 404, "NOT_FOUND");
  assertError(t, await getOrder(a, randomUUID()), 404, "NOT_FOUND");
  const listed = await api(stack.baseUrl, "/v1/orders?limit=50", { key: b.key });
  t.is(listed.status, 200);
  t.deepEqual(listed.body.data.items, []);
  t.false(listed.body.data.has_more);
  const paid = await api(stack.baseUrl, "/v1/orders?status=pending", { key: b.key });
  t.deepEqual(paid.body.data.items, []);

  // Still there for its owner, by either spelling of the id.
  t.is((await getOrder(a, id)).status, 200);
  const upper = await getOrder(a, id.toUpperCase());
  t.is(upper.status, 200, upper.text);
  t.is(upper.body.data.order.id, id);

  for (const bad of ["not-a-uuid", "12345", `${id}x`, id.replace(/-/g, "")]) {
    const response = await getOrder(a, encodeURIComponent(bad));
    assertError(t, response, 400, "INVALID_REQUEST");
    t.is(response.body.error.details?.[0]?.field, "order_id");
  }
});

// ---------------------------------------------------------------------------------
// GET /v1/orders

test("GET /v1/orders: newest first, pages, the status filter, and strict query parsing", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "List Store");
  const product = await createProduct(stack, store.storeId, "Gula Aren", 18_000);
  const empty = await api(stack.baseUrl, "/v1/orders", { key: store.key });
  t.is(empty.status, 200);
  t.deepEqual(empty.body, { success: true, data: { items: [], has_more: false } });

  const ids: string[] = [];
  const details: any[] = [];
  for (let n = 0; n < 5; n++) {
    const data = await created(t, store, {
      items: [{ product_id: product.id, quantity: n + 1 }],
      buyer,
      payment_method: n === 4 ? "gopay" : "bank_transfer",
    });
    ids.push(data.order.id);
    details.push(data);
  }
  const newestFirst = [...ids].reverse();

  const all = await api(stack.baseUrl, "/v1/orders", { key: store.key });
  t.is(all.status, 200, all.text);
  t.deepEqual(
    all.body.data.items.map((o: any) => o.id),
    newestFirst,
  );
  t.false(all.body.data.has_more);
  // A listed order is the same object GET returns as `order`.
  t.deepEqual(all.body.data.items[1], details[3].order);
  t.deepEqual(all.body.data.items[0], (await getOrder(store, ids[4]!)).body.data.order);

  const pages: string[][] = [];
  const more: boolean[] = [];
  for (let offset = 0; offset < 6; offset += 2) {
    const page = await api(stack.baseUrl, `/v1/orders?limit=2&offset=${offset}`, { key: store.key });
    t.is(page.status, 200, page.text);
    pages.push(page.body.data.items.map((o: any) => o.id));
    more.push(page.body.data.has_more);
  }
  t.deepEqual(pages, [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
  t.deepEqual(more, [true, true, false]);
  const past = await api(stack.baseUrl, "/v1/orders?offset=10", { key: store.key });
  t.deepEqual(past.body.data, { items: [], has_more: false });
  const exact = await api(stack.baseUrl, "/v1/orders?limit=5", { key: store.key });
  t.is(exact.body.data.items.length, 5);
  t.false(exact.body.data.has_more);

  // Two of them paid, one cancelled.
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: ids[1]! });
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: ids[3]! });
  await stack.orders.cancelOrder({ storeId: store.storeId, orderId: ids[0]! });
  const paid = await api(stack.baseUrl, "/v1/orders?status=paid", { key: store.key });
  t.is(paid.status, 200, paid.text);
  t.deepEqual(
    paid.body.data.items.map((o: any) => [o.id, o.status, o.requires_payment]),
    [
      [ids[3], "paid", false],
      [ids[1], "paid", false],
    ],
  );
  const pending = await api(stack.baseUrl, "/v1/orders?status=pending&limit=1", { key: store.key });
  t.deepEqual(
    pending.body.data.items.map((o: any) => o.id),
    [ids[4]],
  );
  t.true(pending.body.data.has_more);
  const cancelled = await api(stack.baseUrl, "/v1/orders?status=cancelled", { key: store.key });
  t.deepEqual(
    cancelled.body.data.items.map((o: any) => o.id),
    [ids[0]],
  );
  const refunded = await api(stack.baseUrl, "/v1/orders?status=refunded", { key: store.key });
  t.deepEqual(refunded.body.data, { items: [], has_more: false });

  // Unknown parameters are ignored.
  const ignored = await api(stack.baseUrl, "/v1/orders?sort=asc&foo=bar", { key: store.key });
  t.is(ignored.status, 200);
  t.deepEqual(
    ignored.body.data.items.map((o: any) => o.id),
    newestFirst,
  );

  const refused: [string, string][] = [
    ["status=PAID", "status"],
    ["status=done", "status"],
    ["status=", "status"],
    ["status=paid&status=pending", "status"],
    ["limit=0", "limit"],
    ["limit=51", "limit"],
    ["limit=1.5", "limit"],
    ["limit=10abc", "limit"],
    ["limit=-1", "limit"],
    ["limit=", "limit"],
    ["limit=+5", "limit"],
    ["limit=%205", "limit"],
    ["limit=1e1", "limit"],
    ["limit=2&limit=3", "limit"],
    ["offset=-1", "offset"],
    ["offset=1.5", "offset"],
    ["offset=abc", "offset"],
    ["offset=", "offset"],
    ["offset=0&offset=2", "offset"],
  ];
  for (const [query, field] of refused) {
    const response = await api(stack.baseUrl, `/v1/orders?${query}`, { key: store.key });
    assertError(t, response, 400, "INVALID_REQUEST");
    t.is(response.body.error.details?.[0]?.field, field, query);
  }
  const edges = await api(stack.baseUrl, "/v1/orders?limit=50&offset=0", { key: store.key });
  t.is(edges.status, 200);
  const one = await api(stack.baseUrl, "/v1/orders?limit=1&offset=4", { key: store.key });
  t.deepEqual(
    one.body.data.items.map((o: any) => o.id),
    [ids[0]],
  );

  // starting_after: each page goes on after the last order of the one before, so a walk
  // sees every order once, newest first, at the same cost on every page.
  const walked: string[][] = [];
  let after = "";
  for (let page = 0; page < 5; page++) {
    const response = await api(stack.baseUrl, `/v1/orders?limit=2${after ? `&starting_after=${after}` : ""}`, { key: store.key });
    t.is(response.status, 200, response.text);
    walked.push(response.body.data.items.map((o: any) => o.id));
    if (!response.body.data.has_more) break;
    after = walked.at(-1)!.at(-1)!;
  }
  t.deepEqual(walked, [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
  const afterPaid = await api(stack.baseUrl, `/v1/orders?status=paid&starting_after=${ids[3]}`, { key: store.key });
  t.deepEqual(afterPaid.body.data.items.map((o: any) => o.id), [ids[1]], "with a filter, after the named order");
  t.deepEqual((await api(stack.baseUrl, `/v1/orders?starting_after=${ids[4]!.toUpperCase()}&limit=1`, { key: store.key })).body.data.items.map((o: any) => o.id), [ids[3]]);
  for (const [query, field] of [
    ["starting_after=not-a-uuid", "starting_after"],
    [`starting_after=${ids[1]}&offset=2`, "offset"],
  ] as const) {
    const response = await api(stack.baseUrl, `/v1/orders?${query}`, { key: store.key });
    assertError(t, response, 400, "INVALID_REQUEST");
    t.is(response.body.error.details?.[0]?.field, field, query);
  }
  const other = await createStore(stack, Plan.GROWTH, "Other List Store");
  assertError(t, await api(stack.baseUrl, `/v1/orders?starting_after=${ids[1]}`, { key: other.key }), 404, "NOT_FOUND");
  assertError(t, await api(stack.baseUrl, "/v1/orders?starting_after=00000000-0000-4000-8000-000000000000", { key: store.key }), 404, "NOT_FOUND");
});

// ---------------------------------------------------------------------------------
// The status machine through the operator CLI

const cli = createCliRunner(() => ({ CATALOG_ADDR: stack.catalogAddr, ORDER_ADDR: stack.orderAddr })).run;

async function historyOf(orderId: string) {
  const rows = await stack.orderSql`select from_status, to_status from order_status_history where order_id = ${orderId} order by id`;
  return rows.map((row) => [row.from_status, row.to_status]);
}

async function eventsOf(orderId: string) {
  return stack.orderSql<{ event_type: string; payload: any }[]>`
    select event_type, payload from outbox where order_id = ${orderId} order by created_at, id`;
}

test("store-admin order mark-paid and cancel drive the status machine, with history and events", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "CLI Order Store");
  const other = await createStore(stack, Plan.GROWTH, "CLI Other Store");
  const product = await createProduct(stack, store.storeId, "Kain Ulos", 350_000);
  const body = { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" };
  const toPay = (await created(t, store, body)).order;
  const toCancel = (await created(t, store, body)).order;
  const gatewayOrder = (await created(t, store, { ...body, payment_method: "shopeepay" })).order;

  // Every new order announced itself, and nothing else yet.
  for (const order of [toPay, toCancel, gatewayOrder]) {
    const events = await eventsOf(order.id);
    t.deepEqual(
      events.map((e) => e.event_type),
      ["order.created"],
    );
    t.is(events[0]!.payload.type, "order.created");
    t.is(events[0]!.payload.data.store_id, store.storeId);
    t.is(events[0]!.payload.data.previous_status, null);
    t.is(events[0]!.payload.data.order.id, order.id);
    t.is(events[0]!.payload.data.order.status, "pending");
    t.deepEqual(await historyOf(order.id), [[null, "pending"]]);
  }

  // mark-paid
  const paid = await cli(["order", "mark-paid", "--store", store.storeId, "--order", toPay.id]);
  t.is(paid.code, 0, paid.stderr);
  const printed = JSON.parse(paid.stdout);
  t.is(printed.id, toPay.id);
  t.is(printed.status, "paid");
  t.false(printed.requires_payment);
  t.is(printed.amount, toPay.amount);
  const afterPay = await getOrder(store, toPay.id);
  t.is(afterPay.body.data.order.status, "paid");
  t.false(afterPay.body.data.order.requires_payment);
  t.true(Date.parse(afterPay.body.data.order.updated_at) >= Date.parse(toPay.updated_at));
  t.deepEqual(await historyOf(toPay.id), [
    [null, "pending"],
    ["pending", "paid"],
  ]);
  const payEvents = await eventsOf(toPay.id);
  t.deepEqual(payEvents.map((e) => e.event_type).sort(), ["order.created", "order.paid", "orderUpdated"]);
  for (const event of payEvents.filter((e) => e.event_type !== "order.created")) {
    t.is(event.payload.type, event.event_type);
    t.is(event.payload.data.previous_status, "pending");
    t.is(event.payload.data.order.status, "paid");
    t.is(event.payload.data.order.id, toPay.id);
  }

  // cancel
  const cancelled = await cli(["order", "cancel", "--store", store.storeId, "--order", toCancel.id]);
  t.is(cancelled.code, 0, cancelled.stderr);
  t.is(JSON.parse(cancelled.stdout).status, "cancelled");
  const afterCancel = await getOrder(store, toCancel.id);
  t.is(afterCancel.body.data.order.status, "cancelled");
  t.false(afterCancel.body.data.order.requires_payment);
  t.deepEqual(await historyOf(toCancel.id), [
    [null, "pending"],
    ["pending", "cancelled"],
  ]);
  t.deepEqual((await eventsOf(toCancel.id)).map((e) => e.event_type).sort(), ["order.cancelled", "order.created", "orderUpdated"]);

  // A gateway order can be cancelled too; its payment page is gone with it.
  const gatewayCancelled = await cli(["order", "cancel", "--store", store.storeId, "--order", gatewayOrder.id]);
  t.is(gatewayCancelled.code, 0, gatewayCancelled.stderr);
  const gatewayAfter = await getOrder(store, gatewayOrder.id);
  t.is(gatewayAfter.body.data.order.status, "cancelled");
  t.is(gatewayAfter.body.data.order.payment_url, gatewayAfter.body.data.order.checkout_url);

  // Refused transitions: exit 1, a message on stderr, nothing changes.
  const historyBefore = await historyOf(toPay.id);
  const eventsBefore = (await eventsOf(toPay.id)).length;
  const refused = await cli(["order", "cancel", "--store", store.storeId, "--order", toPay.id]);
  t.is(refused.code, 1);
  t.true(refused.stderr.trim().length > 0);
  t.is(refused.stdout, "");
  t.is((await getOrder(store, toPay.id)).body.data.order.status, "paid");
  t.deepEqual(await historyOf(toPay.id), historyBefore);
  t.is((await eventsOf(toPay.id)).length, eventsBefore);

  const revive = await cli(["order", "mark-paid", "--store", store.storeId, "--order", toCancel.id]);
  t.is(revive.code, 1);
  t.true(revive.stderr.trim().length > 0);
  t.is((await getOrder(store, toCancel.id)).body.data.order.status, "cancelled");

  // Marking a paid order paid again changes nothing.
  await cli(["order", "mark-paid", "--store", store.storeId, "--order", toPay.id]);
  t.is((await getOrder(store, toPay.id)).body.data.order.status, "paid");
  t.deepEqual(await historyOf(toPay.id), historyBefore);
  t.is((await eventsOf(toPay.id)).length, eventsBefore);

  // Another store's operator cannot touch it.
  const pendingOne = (await created(t, store, body)).order;
  const foreign = await cli(["order", "mark-paid", "--store", other.storeId, "--order", pendingOne.id]);
  t.is(foreign.code, 1);
  t.true(foreign.stderr.trim().length > 0);
  t.is((await getOrder(store, pendingOne.id)).body.data.order.status, "pending");

  // The paid filter sees the change.
  const listed = await api(stack.baseUrl, "/v1/orders?status=paid", { key: store.key });
  t.deepEqual(
    listed.body.data.items.map((o: any) => o.id),
    [toPay.id],
  );
});
