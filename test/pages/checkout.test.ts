// The hosted checkout page (docs/payments.md#hosted-checkout) as a buyer's browser gets it: real HTTP,
// server-rendered HTML, no key, the order id as the capability.
import { randomUUID } from "node:crypto";
import test, { type ExecutionContext } from "ava";
import { api, type ApiResponse } from "../helpers/http.js";
import { visibleText } from "../helpers/midtrans-notify.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.close();
});

type Store = Awaited<ReturnType<typeof createStore>>;

const rupiah = (amount: number) => `Rp ${new Intl.NumberFormat("id-ID").format(amount)}`;

async function createOrder(t: ExecutionContext, store: Store, json: unknown): Promise<any> {
  const response = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: store.key, json });
  t.is(response.status, 201, response.text);
  return response.body.data;
}

/** GETs an absolute URL the API handed out, as a browser preferring `language` would (no key). */
async function open(url: string, language = "en"): Promise<ApiResponse> {
  if (!url.startsWith(stack.baseUrl + "/")) throw new Error(`${url} is not on the gateway (${stack.baseUrl})`);
  return api(url, "", { headers: { "accept-language": language } });
}

function assertHtmlPage(t: ExecutionContext, response: ApiResponse, status: number) {
  t.is(response.status, status, response.text);
  t.regex(response.headers.get("content-type") ?? "", /^text\/html; charset=utf-8/);
  t.is(response.headers.get("cache-control"), "no-store");
  const csp = response.headers.get("content-security-policy") ?? "";
  t.regex(csp, /default-src 'none'/);
  t.notRegex(csp, /script-src/, "the page needs no script, so none is allowed");
  t.regex(response.text, /^<!doctype html>/i);
  t.regex(response.text, /<meta name="viewport" content="width=device-width, initial-scale=1"\s*\/?>/);
  t.notRegex(response.text, /<script/i, "the page works without JavaScript");
}

test("a bank-transfer order's checkout page shows the exact transfer amount and the seller's account", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Toko Batik Sari");
  const shirt = await createProduct(stack, store.storeId, "Kemeja Batik", 145_000);
  const scarf = await createProduct(stack, store.storeId, "Selendang", 72_500);
  const data = await createOrder(t, store, {
    items: [
      { product_id: shirt.id, quantity: 2 },
      { product_id: scarf.id, quantity: 2 },
    ],
    buyer,
    payment_method: "bank_transfer",
  });
  const bank = data.payment.seller_bank;
  const amount: number = bank.transfer_amount;
  t.is(amount, 435_000 + bank.unique_amount_code);
  t.is(data.order.checkout_url, `${stack.baseUrl}/checkout/${data.order.id}`);

  const page = await open(data.order.checkout_url);
  assertHtmlPage(t, page, 200);
  const text = visibleText(page.text);
  // The exact amount, formatted and as plain digits to copy.
  t.true(text.includes(`Transfer exactly ${rupiah(amount)}`), text);
  t.true(text.includes(String(amount)), text);
  t.true(text.includes("including the last 3 digits"), text);
  t.true(text.includes(`unique code ${bank.unique_amount_code}`), text);
  // Where to send it.
  t.true(text.includes("Bank Central Asia"), text);
  t.true(text.includes("0001112223"), text);
  t.true(text.includes("Test Holder"), text);
  t.true(text.includes(data.order.payment_reference), text);
  // What was bought.
  t.true(text.includes("Toko Batik Sari"), text);
  t.true(text.includes(`Kemeja Batik 2 × ${rupiah(145_000)} ${rupiah(290_000)}`), text);
  t.true(text.includes(`Selendang 2 × ${rupiah(72_500)} ${rupiah(145_000)}`), text);
  t.true(text.includes(`Total ${rupiah(amount)}`), text);
  t.true(text.includes("Awaiting payment"), text);
  t.true(text.includes("Pay before"), text);
  t.regex(page.text, new RegExp(`<time datetime="${data.order.expires_at.replace(/\./g, "\\.")}"`));
});

test("store, item and buyer text is escaped, never executed", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, `<script>alert(1)</script> & "Co"`);
  const product = await createProduct(stack, store.storeId, `<img src=x onerror=alert(2)> 'Tee'`, 50_000);
  const data = await createOrder(t, store, {
    items: [{ product_id: product.id, quantity: 1 }],
    buyer: { ...buyer, name: `<b onmouseover="alert(3)">Eve</b>` },
    payment_method: "bank_transfer",
  });

  const page = await open(data.order.checkout_url);
  assertHtmlPage(t, page, 200);
  t.false(page.text.includes("<script>"));
  t.false(page.text.includes("<img"));
  t.false(page.text.includes("<b "));
  // In text, `>` and `'` cannot open markup, so the renderer may leave them unescaped.
  const escaped = page.text.replace(/&gt;/g, ">").replace(/&#39;/g, "'");
  t.true(escaped.includes(`&lt;script>alert(1)&lt;/script> &amp; &quot;Co&quot;`));
  t.true(escaped.includes(`&lt;img src=x onerror=alert(2)> 'Tee'`));
  t.true(escaped.includes(`&lt;b onmouseover=&quot;alert(3)&quot;>Eve&lt;/b>`));
  // …and the buyer still reads them as written.
  const text = visibleText(page.text);
  t.true(text.includes(`<script>alert(1)</script> & "Co"`));
  t.true(text.includes(`<img src=x onerror=alert(2)> 'Tee'`));
  t.true(text.includes(`<b onmouseover="alert(3)">Eve</b>`));
});

test("a gateway order's checkout page links to its payment page", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "QRIS Shop");
  const product = await createProduct(stack, store.storeId, "Kopi Susu", 28_000);
  const data = await createOrder(t, store, {
    items: [{ product_id: product.id, quantity: 3 }],
    buyer,
    payment_method: "qris",
  });
  t.regex(data.order.payment_url, new RegExp(`^${stack.baseUrl}/sandbox/pay/`));

  const page = await open(data.order.checkout_url);
  assertHtmlPage(t, page, 200);
  t.true(page.text.includes(`href="${data.order.payment_url}"`), page.text);
  const text = visibleText(page.text);
  t.true(text.includes(`Pay ${rupiah(84_000)} now`), text);
  t.true(text.includes("QRIS"), text);
  t.false(text.includes("Transfer exactly"), text);

  // The link leads to a page that takes the payment.
  const payPage = await open(data.order.payment_url);
  assertHtmlPage(t, payPage, 200);
  t.true(visibleText(payPage.text).includes(rupiah(84_000)));
});

test("an unknown or malformed order id gets a 404 page in a browser, the JSON envelope elsewhere", async (t) => {
  const browser = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "accept-language": "en-US,en;q=0.9" };
  for (const id of [randomUUID(), "not-an-order", "00000000-0000-0000-0000-00000000000g"]) {
    const page = await api(stack.baseUrl, `/checkout/${id}`, { headers: browser });
    assertHtmlPage(t, page, 404);
    t.true(visibleText(page.text).includes("This order was not found"), page.text);
    const tool = await api(stack.baseUrl, `/checkout/${id}`);
    t.is(tool.status, 404);
    t.is(tool.body?.success, false);
    t.is(tool.body?.error?.code, "NOT_FOUND");
    t.regex(tool.headers.get("content-type") ?? "", /^application\/json/);
  }
  const apiMiss = await api(stack.baseUrl, "/v1/no-such-thing");
  t.is(apiMiss.status, 404);
  t.is(apiMiss.body?.error?.code, "NOT_FOUND");
  t.regex(apiMiss.headers.get("content-type") ?? "", /^application\/json/);
});

test("a paid order shows that it is paid and no longer asks for money", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Paid Store");
  const product = await createProduct(stack, store.storeId, "Teh Tarik", 15_000);
  const data = await createOrder(t, store, {
    items: [{ product_id: product.id, quantity: 1 }],
    buyer,
    payment_method: "bank_transfer",
  });
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: data.order.id });

  const page = await open(data.order.checkout_url);
  assertHtmlPage(t, page, 200);
  const text = visibleText(page.text);
  t.true(text.includes("Payment received"), text);
  t.true(text.includes("Paid"), text);
  t.false(text.includes("Transfer exactly"), text);
  t.false(text.includes("0001112223"), "the account number is only shown while payment is due");
  t.true(text.includes(`Total ${rupiah(data.order.amount)}`), text);
});

test("a cancelled order and a free order say so", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Status Store");
  const product = await createProduct(stack, store.storeId, "Gantungan Kunci", 9_000);
  const gift = await createProduct(stack, store.storeId, "Stiker Gratis", 0);
  const cancelled = await createOrder(t, store, {
    items: [{ product_id: product.id, quantity: 1 }],
    buyer,
    payment_method: "qris",
  });
  await stack.orders.cancelOrder({ storeId: store.storeId, orderId: cancelled.order.id });
  const cancelledText = visibleText((await open(cancelled.order.checkout_url)).text);
  t.true(cancelledText.includes("This order was cancelled"), cancelledText);
  t.false(cancelledText.includes("Pay Rp"), "no payment button on a cancelled order");

  const free = await createOrder(t, store, { items: [{ product_id: gift.id, quantity: 1 }], buyer });
  t.is(free.order.status, "paid");
  const freeText = visibleText((await open(free.order.checkout_url)).text);
  t.true(freeText.includes("Payment received"), freeText);
  t.true(freeText.includes(`Total ${rupiah(0)}`), freeText);
});

test("a buyer reads the checkout page in Indonesian unless the browser prefers English, and a pick on the page lasts the visit", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Toko Bahasa");
  const product = await createProduct(stack, store.storeId, "Kain Tenun", 250_000);
  const data = await createOrder(t, store, { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" });
  const amount = rupiah(data.payment.seller_bank.transfer_amount);
  const month = (language: string) => new Intl.DateTimeFormat(language, { month: "long", timeZone: "Asia/Jakarta" }).format(new Date(data.order.expires_at));

  for (const preference of ["", "id", "id-ID,id;q=0.9,en;q=0.8", "fr-FR,fr;q=0.9", "*"]) {
    const page = await open(data.order.checkout_url, preference);
    assertHtmlPage(t, page, 200);
    t.regex(page.text, /<html lang="id"/, preference);
    const text = visibleText(page.text);
    t.true(text.includes(`Transfer tepat sebesar ${amount}`), `${preference}: ${text}`);
    t.true(text.includes(`Bayar sebelum ${new Date(data.order.expires_at).toLocaleString("en-GB", { day: "numeric", timeZone: "Asia/Jakarta" })} ${month("id-ID")}`), text);
    t.false(text.includes("Transfer exactly"), text);
    t.true(page.text.includes(`href="?lang=en"`), "a link to the English page");
    t.regex(page.headers.get("vary") ?? "", /Accept-Language/i, "a cache keeps the languages apart");
  }
  for (const preference of ["en", "en-US,en;q=0.9,id;q=0.8", "en-GB"]) {
    const text = visibleText((await open(data.order.checkout_url, preference)).text);
    t.true(text.includes(`Transfer exactly ${amount}`), `${preference}: ${text}`);
    t.true(text.includes(month("en-GB")), text);
  }

  // The buyer picks English on an Indonesian browser: the pick is kept by a cookie for the visit.
  const picked = await api(`${data.order.checkout_url}?lang=en`, "", { headers: { "accept-language": "id" } });
  t.true(visibleText(picked.text).includes("Transfer exactly"), picked.text);
  t.regex(picked.text, /<html lang="en"/);
  const cookie = (picked.headers.get("set-cookie") ?? "").split(";")[0]!;
  t.regex(cookie, /=en$/);
  t.notRegex(picked.headers.get("set-cookie") ?? "", /expires|max-age/i, "kept for the visit, not for good");
  const again = await api(data.order.checkout_url, "", { headers: { "accept-language": "id", cookie } });
  t.true(visibleText(again.text).includes("Transfer exactly"), "the next page keeps English");
  t.true(again.text.includes(`href="?lang=id"`), "and offers Bahasa Indonesia back");
  const back = await api(`${data.order.checkout_url}?lang=id`, "", { headers: { "accept-language": "en", cookie } });
  t.true(visibleText(back.text).includes("Transfer tepat sebesar"), back.text);

  // The pages for what went wrong speak the same language.
  const missing = await api(stack.baseUrl, `/checkout/${randomUUID()}`, { headers: { accept: "text/html" } });
  t.is(missing.status, 404);
  t.true(visibleText(missing.text).includes("Pesanan ini tidak ditemukan"), missing.text);
});
