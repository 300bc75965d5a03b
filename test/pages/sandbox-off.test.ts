// With real Midtrans the sandbox pages serve test orders only (docs/payments.md#test-orders,
// docs/payments.md#sandbox-pages). A Snap token in hand (every buyer has one) must not be a way
// to pay: each /sandbox/… path answers 404 for it, and the order stays pending. Before
// this rule, POST /sandbox/pay/{snap token}/pay signed a settlement with the real server
// key. A test order never reaches Midtrans: its payment page is the sandbox's, and its
// Pay button pays it without Midtrans being asked.
import test from "ava";
import { startFakeMidtrans, type FakeMidtrans } from "../helpers/fake-midtrans.js";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";

const SERVER_KEY = "SB-Mid-server-sandbox-off";

let fake: FakeMidtrans;
let stack: Stack;
let store: Awaited<ReturnType<typeof createStore>>;
let productId: string;

test.before(async () => {
  fake = await startFakeMidtrans({ serverKey: SERVER_KEY });
  stack = await startStack({
    orderEnv: {
      PAYMENT_GATEWAY: "midtrans",
      MIDTRANS_BASE_URL: fake.url,
      MIDTRANS_SERVER_KEY: SERVER_KEY,
      MIDTRANS_CLIENT_KEY: "SB-Mid-client-sandbox-off",
    },
  });
  store = await createStore(stack, undefined, "Warung Midtrans");
  productId = (await createProduct(stack, store.storeId, "Nasi Goreng", 25_000)).id;
});
test.after.always(async () => {
  await stack?.close();
  await fake?.close();
});

async function statusOf(orderId: string): Promise<string> {
  const response = await api(stack.baseUrl, `/v1/orders/${orderId}`, { key: store.key });
  return response.body.data.order.status;
}

test("with PAYMENT_GATEWAY=midtrans a live order's Snap token opens nothing on the sandbox's pages, and pays nothing there", async (t) => {
  const created = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: productId, quantity: 2 }], buyer, payment_method: "qris" },
  });
  t.is(created.status, 201, created.text);
  const data = created.body.data;
  t.is(data.payment.provider, "midtrans");
  const token: string = data.payment.snap.token;
  t.truthy(token);
  t.true(fake.transactions().some((request) => request.token === token), "the token came from the (fake) Snap API");
  t.false(String(data.order.payment_url).startsWith(stack.baseUrl), data.order.payment_url);

  const attempts: [string, string, RequestInit][] = [
    ["GET", `/sandbox/pay/${token}`, { headers: { accept: "application/json" } }],
    ["GET", `/sandbox/pay/${token}`, { headers: { accept: "text/html" } }],
    ["HEAD", `/sandbox/pay/${token}`, {}],
    ["POST", `/sandbox/pay/${token}/pay`, { headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" }],
    ["POST", `/sandbox/pay/${token}/fail`, { headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" }],
    ["GET", "/sandbox", {}],
    ["GET", "/sandbox/", {}],
  ];
  for (const [method, path, init] of attempts) {
    const response = await api(stack.baseUrl, path, { ...init, method });
    t.is(response.status, 404, `${method} ${path}: ${response.text}`);
  }

  t.is(await statusOf(data.order.id), "pending");
  const [changes] = await stack.orderSql<{ n: number }[]>`
    select count(*)::int as n from order_status_history where order_id = ${data.order.id}`;
  t.is(changes!.n, 1, "only the creation is in the order's history");
  const events = await stack.orderSql<{ event_type: string }[]>`select event_type from outbox where order_id = ${data.order.id}`;
  t.deepEqual(events.map((event) => event.event_type), ["order.created"]);
});

test("the hosted checkout page is still there in midtrans mode", async (t) => {
  const created = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: productId, quantity: 1 }], buyer, payment_method: "qris" },
  });
  t.is(created.status, 201, created.text);
  const page = await api(created.body.data.order.checkout_url, "");
  t.is(page.status, 200);
  t.regex(page.headers.get("content-type") ?? "", /^text\/html/);
});

// Serial: it counts the fake's calls, which the other tests add to.
test.serial("with PAYMENT_GATEWAY=midtrans a test order makes no Snap call: its page is the sandbox's, whose Pay button pays it", async (t) => {
  const snapCalls = fake.calls;
  const before = fake.requests.length;
  // Made through the order service as a test key's request is (testMode).
  const { detail } = await stack.orders.createOrder({
    storeId: store.storeId,
    items: [{ ref: { case: "productId", value: productId }, quantity: 1 }],
    buyer,
    paymentMethod: "qris",
    requestHash: "",
    testMode: true,
  });
  const order = detail!.order!;
  t.false(order.livemode);
  t.is(order.paymentProvider, "sandbox");
  t.true(order.paymentUrl.startsWith(`${stack.baseUrl}/sandbox/pay/`), order.paymentUrl);
  t.is(fake.calls, snapCalls, "no Snap call for a test order");

  const page = await api(order.paymentUrl, "", { headers: { accept: "text/html" } });
  t.is(page.status, 200, page.text);
  t.is((await api(stack.baseUrl, "/sandbox/snap.js")).status, 200);
  const paid = await api(`${order.paymentUrl}/pay`, "", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "", redirect: "manual" });
  t.is(paid.status, 303, paid.text);
  const { detail: after } = await stack.orders.getOrder({ storeId: store.storeId, orderId: order.id, testMode: true });
  t.is(after!.order!.status, "paid");
  t.deepEqual(
    fake.requests.slice(before).filter((request) => JSON.stringify(request).includes(order.paymentReference)),
    [],
    "Midtrans was never called about it, not even to confirm the payment",
  );

  // A live order still goes to Snap.
  const live = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: store.key, json: { items: [{ product_id: productId, quantity: 1 }], buyer, payment_method: "qris" } });
  t.is(live.status, 201, live.text);
  t.is(live.body.data.order.livemode, true);
  t.is(fake.calls, snapCalls + 1);
});

test("POST /v1/test/orders/{id}/simulate: a live key's order is 404 and untouched; a bad outcome is 400 naming outcome", async (t) => {
  const created = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: store.key, json: { items: [{ product_id: productId, quantity: 1 }], buyer, payment_method: "qris" } });
  t.is(created.status, 201, created.text);
  const orderId: string = created.body.data.order.id;
  const path = `/v1/test/orders/${orderId}/simulate`;
  const live = await api(stack.baseUrl, path, { method: "POST", key: store.key, json: { outcome: "paid" } });
  t.is(live.status, 404, live.text);
  t.like(live.body, { success: false, error: { code: "NOT_FOUND" } });
  t.is(await statusOf(orderId), "pending");
  const bad = await api(stack.baseUrl, path, { method: "POST", key: store.key, json: { outcome: "settled" } });
  t.is(bad.status, 400, bad.text);
  t.like(bad.body, { error: { code: "INVALID_REQUEST", details: [{ field: "outcome" }] } });
});
