import { createHash } from "node:crypto";
import test from "ava";
import { startFakeMidtrans, type FakeMidtrans } from "../helpers/fake-midtrans.js";
import { api, waitFor } from "../helpers/http.js";
import { buyer, createBundle, createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";

// Gateway payment sessions against a real Snap-speaking HTTP server (docs/payments.md#payment-sessions).
// The fake's mode is shared state, so the tests run one at a time.

const SERVER_KEY = "SB-Mid-server-test";
const CLIENT_KEY = "SB-Mid-client-test";

function midtransEnv(fake: FakeMidtrans, extra: Record<string, string> = {}) {
  return {
    PAYMENT_GATEWAY: "midtrans",
    MIDTRANS_BASE_URL: fake.url,
    MIDTRANS_SERVER_KEY: SERVER_KEY,
    MIDTRANS_CLIENT_KEY: CLIENT_KEY,
    MIDTRANS_TIMEOUT: "500ms",
    ...extra,
  };
}

interface Shop {
  key: string;
  storeId: string;
  products: { id: string; price: number }[];
  bundle: { id: string; price: number };
}

async function openShop(stack: Stack, name: string): Promise<Shop> {
  const shop = await createStore(stack, undefined, name);
  const a = await createProduct(stack, shop.storeId, "Kopi Gayo 250 g", 15_000);
  const b = await createProduct(stack, shop.storeId, "Teh Melati 100 g", 7_500);
  const bundle = await createBundle(stack, shop.storeId, "Paket Sarapan", 20_000, [a.id, b.id]);
  return {
    key: shop.key,
    storeId: shop.storeId,
    products: [
      { id: a.id, price: 15_000 },
      { id: b.id, price: 7_500 },
    ],
    bundle: { id: bundle.id, price: 20_000 },
  };
}

const REDIRECT = {
  success_url: "https://shop.example/thanks",
  return_url: "https://shop.example/cart",
  error_url: "https://shop.example/oops",
};

/** 2 × 15 000 + 3 × 7 500 + 1 × 20 000 = 72 500. */
function mixedOrder(shop: Shop, paymentMethod = "qris") {
  return {
    items: [
      { product_id: shop.products[0]!.id, quantity: 2 },
      { product_id: shop.products[1]!.id, quantity: 3 },
      { bundle_id: shop.bundle.id, quantity: 1 },
    ],
    buyer,
    payment_method: paymentMethod,
    redirect: REDIRECT,
  };
}
const MIXED_TOTAL = 2 * 15_000 + 3 * 7_500 + 20_000;

function simpleOrder(shop: Shop, paymentMethod = "qris") {
  return { items: [{ product_id: shop.products[0]!.id, quantity: 1 }], buyer, payment_method: paymentMethod };
}

async function createOrder(stack: Stack, shop: Shop, body: unknown) {
  const response = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: shop.key, json: body });
  if (response.status !== 201) throw new Error(`POST /v1/orders answered ${response.status}: ${response.text}`);
  return response.body.data;
}

async function getOrder(stack: Stack, shop: Shop, id: string) {
  return api(stack.baseUrl, `/v1/orders/${id}`, { key: shop.key });
}

const redirectUrlFor = (fake: FakeMidtrans, token: string) => `${fake.url}/snap/v4/redirection/${token}`;

let fake: FakeMidtrans;
let stack: Stack;
let shop: Shop;

test.before(async () => {
  fake = await startFakeMidtrans({ serverKey: SERVER_KEY });
  stack = await startStack({ orderEnv: midtransEnv(fake) });
  shop = await openShop(stack, "Warung Kopi");
});
test.after.always(async () => {
  await stack?.close();
  await fake?.close();
});
test.afterEach.always(() => {
  fake.mode = "ok";
});

test.serial("the fake speaks Snap: wrong server key → 401, unbalanced item_details → 400", async (t) => {
  const good = {
    transaction_details: { order_id: "SO-SELFTEST01", gross_amount: 3000 },
    item_details: [{ id: "a", price: 1000, quantity: 3, name: "A" }],
  };
  const post = (authKey: string, body: unknown) =>
    api(fake.url, "/snap/v1/transactions", {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`${authKey}:`).toString("base64")}` },
      json: body,
    });

  const wrongKey = await post("SB-Mid-server-wrong", good);
  t.is(wrongKey.status, 401);
  t.true(Array.isArray(wrongKey.body.error_messages));

  const unbalanced = await post(SERVER_KEY, { ...good, item_details: [{ id: "a", price: 1000, quantity: 2, name: "A" }] });
  t.is(unbalanced.status, 400);
  t.deepEqual(unbalanced.body.error_messages, ["transaction_details.gross_amount is not equal to the sum of item_details"]);

  const stringAmount = await post(SERVER_KEY, { ...good, transaction_details: { order_id: "SO-SELFTEST01", gross_amount: "3000" } });
  t.is(stringAmount.status, 400);

  const ok = await post(SERVER_KEY, good);
  t.is(ok.status, 201);
  t.regex(ok.body.token, /^[0-9a-f-]{36}$/);
  t.is(ok.body.redirect_url, redirectUrlFor(fake, ok.body.token));
});

test.serial("the payment methods are offered by midtrans", async (t) => {
  const response = await api(stack.baseUrl, "/v1/payment-methods", { key: shop.key });
  t.is(response.status, 200);
  const gateway = response.body.data.items.filter((item: any) => item.kind === "gateway");
  t.true(gateway.length > 0);
  t.true(gateway.some((item: any) => item.code === "qris"));
  t.true(gateway.some((item: any) => item.code === "bca_va"));
  for (const item of gateway) {
    t.is(item.provider, "midtrans");
    t.is(item.settlement_channel, "gateway");
  }
});

test.serial("POST /v1/orders with qris prepares exactly one Snap session and shows it", async (t) => {
  const before = fake.calls;
  const data = await createOrder(stack, shop, mixedOrder(shop));
  t.is(fake.calls, before + 1);

  const sent = fake.transactions(data.order.payment_reference);
  t.is(sent.length, 1);
  t.is(sent[0]!.status, 201);
  const token = sent[0]!.token!;

  t.is(data.order.status, "pending");
  t.is(data.order.amount, MIXED_TOTAL);
  t.is(data.order.payment_provider, "midtrans");
  t.is(data.order.payment_method, "qris");
  t.true(data.order.requires_payment);
  t.is(data.payment.kind, "gateway");
  t.is(data.payment.provider, "midtrans");
  t.is(data.payment.seller_bank, null);
  t.deepEqual(data.payment.snap, {
    token,
    client_key: CLIENT_KEY,
    snap_script_url: data.payment.snap.snap_script_url,
  });
  t.true(data.payment.snap.snap_script_url.endsWith("/snap/snap.js"));
  t.is(data.payment.snap.snap_script_url, `${fake.url}/snap/snap.js`);
  t.is(data.payment.payment_url, redirectUrlFor(fake, token));
  t.is(data.order.payment_url, redirectUrlFor(fake, token));
  t.is(data.order.checkout_url, `${stack.baseUrl}/checkout/${data.order.id}`);
  t.deepEqual(data.redirect, REDIRECT);
});

test.serial("the Snap request carries the server key, the order's reference, amount and items", async (t) => {
  const data = await createOrder(stack, shop, mixedOrder(shop));
  const [request] = fake.transactions(data.order.payment_reference);
  t.truthy(request);
  const { headers, body } = request!;

  t.is(headers.authorization, `Basic ${Buffer.from(`${SERVER_KEY}:`).toString("base64")}`);
  t.regex(String(headers["content-type"]), /^application\/json/);

  t.deepEqual(body.transaction_details, { order_id: data.order.payment_reference, gross_amount: data.order.amount });
  t.is(body.transaction_details.gross_amount, MIXED_TOTAL);

  // One entry per order line, each as Snap wants it, summing to gross_amount.
  t.is(body.item_details.length, 3);
  for (const item of body.item_details) {
    t.is(typeof item.id, "string");
    t.is(typeof item.name, "string");
    t.true(Number.isInteger(item.price));
    t.true(Number.isInteger(item.quantity));
  }
  const sum = body.item_details.reduce((total: number, item: any) => total + item.price * item.quantity, 0);
  t.is(sum, body.transaction_details.gross_amount);
  t.deepEqual(
    body.item_details.map((item: any) => [item.id, item.price, item.quantity]),
    [
      [shop.products[0]!.id, 15_000, 2],
      [shop.products[1]!.id, 7_500, 3],
      [shop.bundle.id, 20_000, 1],
    ],
  );
  t.deepEqual(
    body.item_details.map((item: any) => item.name),
    data.order.items.map((item: any) => item.title),
  );

  t.deepEqual(body.enabled_payments, ["other_qris"]);
  t.is(body.callbacks.finish, REDIRECT.success_url);
  t.is(body.callbacks.finish, data.redirect.success_url);

  // The default payment window is 24 h: the page lives (just under) as long as the order.
  t.is(body.expiry.unit, "minute");
  t.true(body.expiry.duration === 1439 || body.expiry.duration === 1440, `duration ${body.expiry.duration}`);
  t.regex(body.expiry.start_time, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0700$/);

  t.deepEqual(body.customer_details, { first_name: buyer.name, email: buyer.email, phone: buyer.phone });
});

test.serial("bca_va maps onto Snap's bca_va", async (t) => {
  const data = await createOrder(stack, shop, mixedOrder(shop, "bca_va"));
  const [request] = fake.transactions(data.order.payment_reference);
  t.deepEqual(request!.body.enabled_payments, ["bca_va"]);
  t.is(data.payment.method, "bca_va");
  t.not(data.payment.snap, null);
  t.is(data.payment.payment_url, redirectUrlFor(fake, request!.token!));
});

test.serial("without redirect URLs, the Snap finish callback is the store's default (checkout)", async (t) => {
  const data = await createOrder(stack, shop, simpleOrder(shop));
  const [request] = fake.transactions(data.order.payment_reference);
  t.is(request!.body.callbacks.finish, data.redirect.success_url);
  t.is(data.redirect.success_url, data.order.checkout_url);
});

test.serial("GET /v1/orders/{id} reuses the live session: no new Snap call, same token", async (t) => {
  const data = await createOrder(stack, shop, simpleOrder(shop));
  const token = data.payment.snap.token;
  const before = fake.calls;

  for (let n = 0; n < 3; n++) {
    const got = await getOrder(stack, shop, data.order.id);
    t.is(got.status, 200);
    t.is(got.body.data.payment.snap.token, token);
    t.is(got.body.data.payment.payment_url, redirectUrlFor(fake, token));
    t.is(got.body.data.order.payment_url, redirectUrlFor(fake, token));
  }
  const concurrent = await Promise.all(Array.from({ length: 10 }, () => getOrder(stack, shop, data.order.id)));
  t.true(concurrent.every((got) => got.status === 200 && got.body.data.payment.snap.token === token));
  t.is(fake.calls, before);
  t.is(fake.transactions(data.order.payment_reference).length, 1);
});

test.serial("GET /v1/orders (the list) never calls the gateway, even for orders without a session", async (t) => {
  const withSession = await createOrder(stack, shop, simpleOrder(shop));
  fake.mode = "fail";
  const without = await createOrder(stack, shop, simpleOrder(shop, "gopay"));
  t.is(without.payment.snap, null);
  fake.mode = "ok";

  const before = fake.calls;
  const list = await api(stack.baseUrl, "/v1/orders?limit=50", { key: shop.key });
  t.is(list.status, 200);
  const byId = new Map(list.body.data.items.map((order: any) => [order.id, order]));
  const listedWith: any = byId.get(withSession.order.id);
  const listedWithout: any = byId.get(without.order.id);
  t.truthy(listedWith);
  t.truthy(listedWithout);
  t.is(listedWith.payment_url, redirectUrlFor(fake, withSession.payment.snap.token));
  t.is(listedWithout.payment_url, listedWithout.checkout_url);
  const pending = await api(stack.baseUrl, "/v1/orders?status=pending", { key: shop.key });
  t.is(pending.status, 200);
  t.is(fake.calls, before);
  t.is(fake.transactions(without.order.payment_reference).length, 1); // the failed attempt at creation only
});

test.serial("gateway answering 500: the order is still created, and the next GET prepares the session", async (t) => {
  fake.mode = "fail";
  const before = fake.calls;
  const created = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: shop.key, json: mixedOrder(shop) });
  t.is(created.status, 201);
  t.true(created.body.success);
  const data = created.body.data;
  t.true(fake.calls > before); // it did try
  t.is(data.order.status, "pending");
  t.is(data.order.amount, MIXED_TOTAL);
  t.true(data.order.requires_payment);
  t.is(data.payment.kind, "gateway");
  t.is(data.payment.snap, null);
  t.is(data.payment.payment_url, data.order.checkout_url);
  t.is(data.order.payment_url, data.order.checkout_url);

  // Still down: a read answers 200 without a session.
  const stillDown = await getOrder(stack, shop, data.order.id);
  t.is(stillDown.status, 200);
  t.is(stillDown.body.data.payment.snap, null);
  t.is(stillDown.body.data.payment.payment_url, data.order.checkout_url);

  fake.mode = "ok";
  const got = await getOrder(stack, shop, data.order.id);
  t.is(got.status, 200);
  const snap = got.body.data.payment.snap;
  t.not(snap, null);
  t.is(snap.client_key, CLIENT_KEY);
  const ok = fake.transactions(data.order.payment_reference).filter((r) => r.status === 201);
  t.is(ok.length, 1);
  t.is(snap.token, ok[0]!.token);
  t.is(got.body.data.payment.payment_url, redirectUrlFor(fake, snap.token));
  t.is(got.body.data.order.payment_url, redirectUrlFor(fake, snap.token));

  // And it is now the live session.
  const calls = fake.calls;
  const again = await getOrder(stack, shop, data.order.id);
  t.is(again.body.data.payment.snap.token, snap.token);
  t.is(fake.calls, calls);
});

test.serial("gateway hanging: the adapter times out, the order is created with snap null, next GET recovers", async (t) => {
  fake.mode = "hang";
  const before = fake.calls;
  const created = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: shop.key, json: simpleOrder(shop, "bca_va") });
  t.is(created.status, 201);
  const data = created.body.data;
  t.true(fake.calls > before);
  t.true(fake.transactions(data.order.payment_reference).every((r) => r.status === undefined)); // never answered
  t.is(data.order.status, "pending");
  t.is(data.payment.snap, null);
  t.is(data.payment.payment_url, data.order.checkout_url);

  const stillHanging = await getOrder(stack, shop, data.order.id);
  t.is(stillHanging.status, 200);
  t.is(stillHanging.body.data.payment.snap, null);

  fake.mode = "ok";
  const got = await getOrder(stack, shop, data.order.id);
  t.is(got.status, 200);
  t.not(got.body.data.payment.snap, null);
  t.is(got.body.data.payment.payment_url, redirectUrlFor(fake, got.body.data.payment.snap.token));
});

function signedNotification(order: { payment_reference: string; amount: number }, transactionStatus: string) {
  const n = {
    order_id: order.payment_reference,
    status_code: "200",
    gross_amount: `${order.amount}.00`,
    transaction_status: transactionStatus,
    fraud_status: "accept",
  };
  const signature_key = createHash("sha512")
    .update(n.order_id + n.status_code + n.gross_amount + SERVER_KEY)
    .digest("hex");
  return { ...n, signature_key };
}

test.serial("a paid order gets no new session: snap null, payment_url = checkout_url", async (t) => {
  const data = await createOrder(stack, shop, mixedOrder(shop));
  t.not(data.payment.snap, null);

  // The buyer pays: the gateway's status answer confirms the notification.
  fake.setStatus(data.order.payment_reference, "settlement");
  const notified = await api(stack.baseUrl, "/v1/payments/notifications/midtrans", {
    method: "POST",
    json: signedNotification(data.order, "settlement"),
  });
  t.is(notified.status, 200);
  t.is(notified.body.data.status, "paid");

  const before = fake.calls;
  const got = await getOrder(stack, shop, data.order.id);
  t.is(got.status, 200);
  t.is(got.body.data.order.status, "paid");
  t.false(got.body.data.order.requires_payment);
  t.is(got.body.data.payment.snap, null);
  t.is(got.body.data.payment.payment_url, data.order.checkout_url);
  t.is(got.body.data.order.payment_url, data.order.checkout_url);

  const list = await api(stack.baseUrl, "/v1/orders?status=paid", { key: shop.key });
  const listed = list.body.data.items.find((order: any) => order.id === data.order.id);
  t.is(listed.payment_url, data.order.checkout_url);
  t.is(fake.calls, before);
  t.is(fake.transactions(data.order.payment_reference).length, 1);
});

test.serial("an order paid while the gateway was down never gets a session", async (t) => {
  fake.mode = "fail";
  const data = await createOrder(stack, shop, simpleOrder(shop));
  t.is(data.payment.snap, null);
  fake.mode = "ok";
  // Paid some other way Midtrans knows of (the gateway has the transaction settled).
  fake.setStatus(data.order.payment_reference, "settlement", { gross_amount: data.order.amount });
  const notified = await api(stack.baseUrl, "/v1/payments/notifications/midtrans", {
    method: "POST",
    json: signedNotification(data.order, "settlement"),
  });
  t.is(notified.status, 200);

  const before = fake.calls;
  const got = await getOrder(stack, shop, data.order.id);
  t.is(got.body.data.order.status, "paid");
  t.is(got.body.data.payment.snap, null);
  t.is(got.body.data.payment.payment_url, data.order.checkout_url);
  t.is(fake.calls, before);
});

// A separate stack whose payment pages live 5 s, far shorter than the order. (Not 1 s:
// 50 reads through the whole stack can take over a second on a busy machine, and a
// renewed page that expired mid-burst would rightly be renewed again.)
test.serial("an expired session is replaced exactly once under 50 concurrent reads", async (t) => {
  const ttlFake = await startFakeMidtrans({ serverKey: SERVER_KEY });
  const ttlStack = await startStack({ orderEnv: midtransEnv(ttlFake, { PAYMENT_SESSION_TTL: "5s" }) });
  t.teardown(async () => {
    await ttlStack.close();
    await ttlFake.close();
  });
  const ttlShop = await openShop(ttlStack, "Toko Teh");

  const data = await createOrder(ttlStack, ttlShop, mixedOrder(ttlShop));
  t.is(ttlFake.calls, 1);
  const firstToken = data.payment.snap.token;
  t.is(data.payment.payment_url, redirectUrlFor(ttlFake, firstToken));
  // The Snap page is asked to live no longer than the session (Snap's minimum: 1 minute).
  t.deepEqual(
    [ttlFake.requests[0]!.body.expiry.unit, ttlFake.requests[0]!.body.expiry.duration],
    ["minute", 1],
  );

  // Wait until the database itself no longer counts the session as live.
  await waitFor(async () => {
    const [row] = await ttlStack.orderSql<{ live: number }[]>`
      select count(*)::int as live from payment_sessions
      where order_id = ${data.order.id} and expires_at > clock_timestamp()`;
    return row!.live === 0;
  }, 30_000);

  const answers = await Promise.all(Array.from({ length: 50 }, () => getOrder(ttlStack, ttlShop, data.order.id)));
  t.true(
    answers.every((a) => a.status === 200),
    JSON.stringify(answers.filter((a) => a.status !== 200).map((a) => a.body)),
  );
  t.is(ttlFake.calls, 2);
  const tokens = new Set(answers.map((a) => a.body.data.payment.snap?.token));
  t.is(tokens.size, 1);
  const [newToken] = tokens;
  t.truthy(newToken);
  t.not(newToken, firstToken);
  t.is(newToken, ttlFake.requests.at(-1)!.token);
  t.true(answers.every((a) => a.body.data.payment.payment_url === redirectUrlFor(ttlFake, newToken)));

  // The renewed page is asked for with the same order id, amount and items.
  const [first, second] = ttlFake.transactions();
  t.deepEqual(second!.body.transaction_details, first!.body.transaction_details);
  t.deepEqual(second!.body.item_details, first!.body.item_details);
  t.is(second!.body.transaction_details.order_id, data.order.payment_reference);
});
