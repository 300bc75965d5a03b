// Payment links on the real stack (docs/payments.md#payment-links): a link made with the
// API, its public page in the buyer's language, the order it makes paid in the sandbox
// with the webhook naming the link, and the pages that refuse: 410 for a link that is
// deactivated, expired or used up, 429 past the per-address limit or the link's cap of
// orders waiting for payment. One stack; each test speaks from its own client address
// (TRUST_PROXY), so the per-address buckets of one test never touch another's.
import test, { type ExecutionContext } from "ava";
import { MAX_PENDING_LINK_ORDERS } from "../../common/payment-links.js";
import { api, waitFor } from "../helpers/http.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { startReceiver } from "../helpers/receiver.js";
import { newShop, type Shop } from "../helpers/webhooks.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "in-process" }, env: { TRUST_PROXY: "127.0.0.1", PAYMENT_LINK_ORDERS_PER_MINUTE: "5" } });
});
test.after.always(async () => {
  await stack?.close();
});

let addresses = 0;
/** A client address of the test's own. */
const newAddress = () => `203.0.113.${++addresses}`;

async function makeLink(t: ExecutionContext, shop: Shop, fields: Record<string, unknown> = {}) {
  const made = await api(stack.baseUrl, "/v1/payment-links", { method: "POST", key: shop.key, json: { items: [{ product_id: shop.productId, quantity: 2 }], ...fields } });
  t.is(made.status, 201, made.text);
  return made.body.data;
}

/** A browser on the link's page: GET shows it, post() sends the form with its token and cookie. */
async function buyer(url: string, address: string, language?: string) {
  const headers: Record<string, string> = { accept: "text/html", "x-forwarded-for": address, ...(language ? { "accept-language": language } : {}) };
  const page = await fetch(url, { headers, redirect: "manual" });
  const html = await page.text();
  const cookie = page.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  async function post(fields: Record<string, string>, options: { csrf?: string } = {}) {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...headers, cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: options.csrf ?? csrf, ...fields }).toString(),
      redirect: "manual",
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }
  return { status: page.status, headers: page.headers, html, post };
}

const details = { name: "Siti Aminah", email: "siti@example.co.id", phone: "+6281311112222" };

test("a buyer opens the link, fills the form, pays in the sandbox; the order and its webhook carry the link", async (t) => {
  const shop = await newShop(stack, "Link Store");
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  await stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: receiver.url });
  const link = await makeLink(t, shop, { payment_methods: ["qris", "bank_transfer"], usage_limit: 10 });
  t.like(link, { active: true, livemode: true, payment_methods: ["qris", "bank_transfer"], usage_limit: 10, paid_count: 0, expires_at: null });
  t.is(link.url, `${stack.baseUrl}/pay/${link.slug}`);

  // Indonesian unless the browser prefers English; the hosted pages' headers.
  const page = await buyer(link.url, newAddress());
  t.is(page.status, 200);
  t.regex(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
  for (const words of ["Link Store", "Kaos Polos", "Rp 150.000", "Nama", "Telepon", "Lanjut ke pembayaran", "QRIS", "Transfer Bank"]) t.true(page.html.includes(words), words);
  const english = await buyer(link.url, newAddress(), "en");
  for (const words of ["Name", "Phone", "Continue to payment"]) t.true(english.html.includes(words), words);

  // A bad field comes back on the form, named; a forged post (no token) orders nothing.
  const bad = await page.post({ ...details, email: "siti", payment_method: "qris" });
  t.is(bad.status, 400);
  t.true(bad.text.includes("Isi alamat email yang valid"));
  t.true(bad.text.includes('value="Siti Aminah"'), "what was typed stays");
  t.is((await page.post({ ...details, payment_method: "qris" }, { csrf: "forged-token-forged-token" })).status, 403);

  const placed = await page.post({ ...details, payment_method: "qris" });
  t.is(placed.status, 303, placed.text);
  const orderId = /^\/checkout\/([0-9a-f-]{36})$/.exec(placed.headers.get("location") ?? "")?.[1];
  t.truthy(orderId);
  const order = (await api(stack.baseUrl, `/v1/orders/${orderId}`, { key: shop.key })).body.data.order;
  t.like(order, { status: "pending", payment_link_id: link.id, amount: 150_000, payment_method: "qris", buyer: details });

  const paid = await fetch(`${order.payment_url}/pay`, { method: "POST", redirect: "manual" });
  t.is(paid.status, 303);
  await waitFor(() => receiver.received.some((entry) => JSON.parse(entry.body).type === "order.paid"), 30_000);
  const events = receiver.received.map((entry) => JSON.parse(entry.body));
  t.true(events.length >= 2);
  for (const event of events) t.is(event.data.order.payment_link_id, link.id, event.type);
  const listed = (await api(stack.baseUrl, "/v1/payment-links", { key: shop.key })).body.data.items;
  t.like(listed[0], { id: link.id, paid_count: 1 });
});

test("a link deactivated, expired or used up answers 410 with a page that says so, in both languages", async (t) => {
  const shop = await newShop(stack, "Closed Link Store");
  const off = await makeLink(t, shop);
  const deactivated = await api(stack.baseUrl, `/v1/payment-links/${off.id}/deactivate`, { method: "POST", key: shop.key });
  t.like(deactivated.body.data, { id: off.id, active: false });
  const offPage = await buyer(off.url, newAddress());
  t.is(offPage.status, 410);
  t.true(offPage.html.includes("Tautan pembayaran ini sudah tidak aktif"));
  t.true((await buyer(off.url, newAddress(), "en")).html.includes("This payment link is no longer active"));

  const soon = await makeLink(t, shop, { expires_at: new Date(Date.now() + 1_500).toISOString() });
  const open = await buyer(soon.url, newAddress());
  t.is(open.status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1_600));
  t.is((await buyer(soon.url, newAddress())).status, 410);
  const late = await open.post({ ...details, payment_method: "bank_transfer" });
  t.is(late.status, 410, "a form opened before the expiry orders nothing after it");
  t.true(late.text.includes("sudah kedaluwarsa"));

  const once = await makeLink(t, shop, { usage_limit: 1 });
  const first = await buyer(once.url, newAddress());
  const placed = await first.post({ ...details, payment_method: "bank_transfer" });
  t.is(placed.status, 303);
  const orderId = placed.headers.get("location")!.split("/").pop();
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId });
  const usedUp = await buyer(once.url, newAddress(), "en");
  t.is(usedUp.status, 410);
  t.true(usedUp.html.includes("This payment link has been used up"));
});

test("one client address places at most PAYMENT_LINK_ORDERS_PER_MINUTE orders a minute; beyond it a 429 page with Retry-After", async (t) => {
  const shop = await newShop(stack, "Busy Address Store");
  const link = await makeLink(t, shop);
  const address = newAddress();
  const page = await buyer(link.url, address);
  const answers = await Promise.all(Array.from({ length: 8 }, () => page.post({ ...details, payment_method: "bank_transfer" })));
  t.deepEqual(
    answers.map((answer) => answer.status).sort(),
    [303, 303, 303, 303, 303, 429, 429, 429],
  );
  const refused = answers.find((answer) => answer.status === 429)!;
  t.regex(refused.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
  t.true(refused.text.includes("Terlalu banyak pesanan saat ini"));
  // Another client is not limited by this one.
  t.is((await (await buyer(link.url, newAddress())).post({ ...details, payment_method: "bank_transfer" })).status, 303);

  // An IPv6 client is its /64: five addresses of one /64 use its five orders up.
  const sixes = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => buyer(link.url, `2001:db8:5:7::${n}`)));
  const fromSixes = [];
  for (const page6 of sixes) fromSixes.push((await page6.post({ ...details, payment_method: "bank_transfer" })).status);
  t.deepEqual(fromSixes, [303, 303, 303, 303, 303, 429]);
  t.is((await (await buyer(link.url, "2001:db8:5:8::1")).post({ ...details, payment_method: "bank_transfer" })).status, 303, "the next /64 is another client");
});

test("a link with as many orders waiting for payment as its cap answers 429 until one is paid or lapses", async (t) => {
  const shop = await newShop(stack, "Capped Link Store", 1_000);
  const link = await makeLink(t, shop);
  const waiting: string[] = [];
  for (let n = 0; n < MAX_PENDING_LINK_ORDERS; n++) {
    const { detail } = await stack.orders.payPaymentLink({ slug: link.slug, buyer: details, paymentMethod: "bank_transfer" });
    waiting.push(detail!.order!.id);
  }
  const page = await buyer(link.url, newAddress());
  const refused = await page.post({ ...details, payment_method: "bank_transfer" });
  t.is(refused.status, 429);
  t.truthy(refused.headers.get("retry-after"));
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: waiting[0] });
  t.is((await page.post({ ...details, payment_method: "bank_transfer" })).status, 303);
});
