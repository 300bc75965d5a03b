// The sandbox payment gateway end to end (docs/payments.md#sandbox-and-midtrans): an order made over REST, its
// payment page fetched over HTTP, the Pay or Fail form submitted as a browser would,
// and the order's status read back over REST. The page's buttons go through the
// public Midtrans notification endpoint, so this is also the production path.
import { runInNewContext } from "node:vm";
import test, { type ExecutionContext } from "ava";
import { api, type ApiResponse } from "../helpers/http.js";
import { visibleText } from "../helpers/midtrans-notify.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
let store: Awaited<ReturnType<typeof createStore>>;
let productId: string;
test.before(async () => {
  stack = await startStack();
  store = await createStore(stack, Plan.GROWTH, "Warung Sandbox");
  productId = (await createProduct(stack, store.storeId, "Nasi Goreng", 25_000)).id;
});
test.after.always(async () => {
  await stack?.close();
});

async function createQrisOrder(t: ExecutionContext, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: productId, quantity: 2 }], buyer, payment_method: "qris", ...extra },
  });
  t.is(response.status, 201, response.text);
  return response.body.data;
}

const decode = (text: string) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** The forms of a page: method, absolute action URL and the button's label. */
function formsOf(html: string, pageUrl: string) {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((match) => {
    const attributes = match[1]!;
    const action = /\baction="([^"]*)"/i.exec(attributes)?.[1] ?? "";
    return {
      method: (/\bmethod="([^"]*)"/i.exec(attributes)?.[1] ?? "get").toUpperCase(),
      action: new URL(decode(action), pageUrl).toString(),
      label: visibleText(match[2]!),
    };
  });
}

/** Opens the payment page and submits the form whose button reads `label`. */
async function press(t: ExecutionContext, paymentUrl: string, label: "Pay" | "Fail"): Promise<ApiResponse> {
  const page = await api(paymentUrl, "", { headers: { "accept-language": "en" } });
  t.is(page.status, 200, page.text);
  const form = formsOf(page.text, paymentUrl).find((candidate) => candidate.label === label);
  if (!form) throw new Error(`no "${label}" form on the payment page:\n${page.text}`);
  t.is(form.method, "POST");
  t.true(form.action.startsWith(stack.baseUrl + "/"), form.action);
  return api(form.action, "", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "",
  });
}

async function statusOf(orderId: string): Promise<string> {
  const response = await api(stack.baseUrl, `/v1/orders/${orderId}`, { key: store.key });
  return response.body.data.order.status;
}

test("Pay on the sandbox page settles the order and sends the buyer to the success URL", async (t) => {
  const data = await createQrisOrder(t);
  t.is(data.payment.provider, "sandbox");
  t.regex(data.order.payment_url, new RegExp(`^${stack.baseUrl}/sandbox/pay/[A-Za-z0-9_-]+$`));
  t.is(data.payment.snap.snap_script_url, `${stack.baseUrl}/sandbox/snap.js`);
  t.is(data.payment.snap.client_key, "sandbox-client-key");
  t.true(data.order.payment_url.endsWith(`/${data.payment.snap.token}`));

  const page = await api(data.order.payment_url, "");
  t.is(page.status, 200);
  t.regex(page.headers.get("content-type") ?? "", /^text\/html/);
  t.is(page.headers.get("cache-control"), "no-store");
  const text = visibleText(page.text);
  t.true(text.includes("Warung Sandbox"), text);
  t.true(text.includes("Rp 50.000"), text);
  t.true(text.includes("QRIS"), text);
  t.true(text.includes(data.order.payment_reference), text);

  const paid = await press(t, data.order.payment_url, "Pay");
  t.is(paid.status, 303, paid.text);
  t.is(paid.headers.get("location"), data.redirect.success_url);
  t.is(data.redirect.success_url, data.order.checkout_url, "with no redirect given, the buyer returns to the checkout page");

  t.is(await statusOf(data.order.id), "paid");
  // The checkout page the buyer lands on says so, in Indonesian when the browser does not prefer English.
  const checkout = await api(paid.headers.get("location")!, "");
  t.true(visibleText(checkout.text).includes("Pembayaran diterima"), checkout.text);
  // The paid order's payment page no longer offers the buttons.
  const after = await api(data.order.payment_url, "");
  t.is(after.status, 200);
  t.deepEqual(formsOf(after.text, data.order.payment_url), []);
  t.true(visibleText(after.text).includes("Tidak ada yang perlu dibayar"), after.text);
  const english = await api(data.order.payment_url, "", { headers: { "accept-language": "en" } });
  t.true(visibleText(english.text).includes("Nothing to pay"), english.text);
});

test("Fail on the sandbox page fails the order and sends the buyer to the error URL", async (t) => {
  const data = await createQrisOrder(t, {
    redirect: { success_url: "https://shop.example/thanks?ref=1", error_url: "https://shop.example/oops?ref=1" },
  });
  const page = await api(data.order.payment_url, "");
  // The forms may redirect to the store's URLs, so the policy lets them.
  t.regex(page.headers.get("content-security-policy") ?? "", /form-action 'self'.*https:\/\/shop\.example/);

  const failed = await press(t, data.order.payment_url, "Fail");
  t.is(failed.status, 303, failed.text);
  t.is(failed.headers.get("location"), "https://shop.example/oops?ref=1");
  t.is(await statusOf(data.order.id), "failed");

  const events = await stack.orderSql<{ event_type: string }[]>`
    select event_type from outbox where order_id = ${data.order.id} order by created_at, event_type`;
  t.deepEqual(events.map((event) => event.event_type).sort(), ["order.created", "order.failed", "orderUpdated"]);
});

test("a second Pay on the same page changes nothing more", async (t) => {
  const data = await createQrisOrder(t, { redirect: { success_url: "https://shop.example/thanks" } });
  const first = await press(t, data.order.payment_url, "Pay");
  t.is(first.status, 303);
  // The buyer goes back and submits the old form again (e.g. a double click).
  const form = `${data.order.payment_url}/pay`;
  const again = await api(form, "", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" });
  t.is(again.status, 303);
  t.is(again.headers.get("location"), "https://shop.example/thanks");
  t.is(await statusOf(data.order.id), "paid");
  const [history] = await stack.orderSql<{ n: number }[]>`
    select count(*)::int as n from order_status_history where order_id = ${data.order.id} and to_status = 'paid'`;
  t.is(history!.n, 1);
});

test("an unknown payment page token is a 404 page in a browser, the JSON envelope elsewhere", async (t) => {
  for (const token of ["sbx-doesnotexist", "bad%20token"]) {
    const page = await api(stack.baseUrl, `/sandbox/pay/${token}`, { headers: { accept: "text/html", "accept-language": "en" } });
    t.is(page.status, 404);
    t.regex(page.headers.get("content-type") ?? "", /^text\/html/);
    t.true(visibleText(page.text).includes("not found"));
    const tool = await api(stack.baseUrl, `/sandbox/pay/${token}`);
    t.is(tool.status, 404);
    t.is(tool.body?.error?.code, "NOT_FOUND");
    const post = await api(stack.baseUrl, `/sandbox/pay/${token}/pay`, { method: "POST" });
    t.is(post.status, 404);
  }
});

test("/sandbox/snap.js is served as JavaScript and opens the sandbox page", async (t) => {
  const script = await api(stack.baseUrl, "/sandbox/snap.js");
  t.is(script.status, 200);
  t.regex(script.headers.get("content-type") ?? "", /^(application|text)\/javascript/);
  // Run it as a merchant's page would load it (from our origin) and call snap.pay.
  const window = { location: { href: "https://merchant.example/cart" } } as { location: { href: string }; snap?: any };
  const document = { currentScript: { src: `${stack.baseUrl}/sandbox/snap.js` } };
  runInNewContext(script.text, { window, document });
  window.snap.pay("sbx-token_1");
  t.is(window.location.href, `${stack.baseUrl}/sandbox/pay/sbx-token_1`);
});
