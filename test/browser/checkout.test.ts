import test from "ava";
import path from "node:path";
import type { Browser } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { ARTIFACTS, launchBrowser, phonePage } from "../helpers/browser.js";
import { layoutFaults } from "../helpers/dashboard-browser.js";
import { api, apiPatient, waitFor } from "../helpers/http.js";
import { startReceiver } from "../helpers/receiver.js";
import { buyer, createBundle, createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
let browser: Browser;
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "nats" } });
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  await stack?.close();
});

test("a buyer opening a bank-transfer checkout_url on a phone sees the exact amount to transfer", async (t) => {
  const shop = await createStore(stack, undefined, "Toko Batik Sari");
  const a = await createProduct(stack, shop.storeId, "Batik Tulis Parang", 350_000);
  const b = await createProduct(stack, shop.storeId, "Selendang Sutra", 125_000);
  const bundle = await createBundle(stack, shop.storeId, "Paket Kondangan", 420_000, [a.id, b.id]);
  const created = await apiPatient(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: shop.key,
    json: { items: [{ product_id: a.id, quantity: 2 }, { bundle_id: bundle.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
  });
  t.is(created.status, 201);
  const { order, payment } = created.body.data;
  const amount: number = payment.seller_bank.transfer_amount;

  const { context, page } = await phonePage(browser);
  try {
    const response = await page.goto(order.checkout_url);
    t.is(response?.status(), 200);
    const text = await page.locator("body").innerText();
    t.true(text.includes(String(amount)), `the plain digits ${amount} are shown`);
    const grouped = amount.toLocaleString("id-ID");
    t.true(text.replace(/\s/g, "").includes(`Rp${grouped}`), `the formatted amount Rp ${grouped} is shown`);
    t.true(text.includes("Bank Central Asia"));
    t.true(text.includes("0001112223"));
    t.true(text.includes("Toko Batik Sari"));
    t.true(text.includes("Batik Tulis Parang"));
    // Nothing overflows sideways on a phone.
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    t.true(overflow <= 0, `page is ${overflow}px wider than the phone`);
    await page.screenshot({ path: path.join(ARTIFACTS, "checkout-bank-transfer-phone.png"), fullPage: true });
  } finally {
    await context.close();
  }
});

test("a buyer pays a gateway order in the sandbox: the order turns paid and the merchant's webhook arrives", async (t) => {
  const shop = await createStore(stack, undefined, "Kopi Kenangan Lama");
  const product = await createProduct(stack, shop.storeId, "Es Kopi Susu", 28_000);
  const receiver = await startReceiver();
  const { secret } = await stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: receiver.url });
  const { context, page } = await phonePage(browser);
  try {
    const created = await apiPatient(stack.baseUrl, "/v1/orders", {
      method: "POST",
      key: shop.key,
      json: {
        items: [{ product_id: product.id, quantity: 3 }],
        buyer,
        payment_method: "qris",
        redirect: { success_url: `${stack.baseUrl}/checkout/placeholder` },
      },
    });
    t.is(created.status, 201);
    const { order } = created.body.data;

    // The buyer starts from the hosted checkout and follows its button to the payment page.
    await page.goto(order.checkout_url);
    await page.getByRole("link", { name: /Pay .* now/ }).click();
    await page.waitForURL(/\/sandbox\/pay\//);
    await page.screenshot({ path: path.join(ARTIFACTS, "sandbox-pay-phone.png"), fullPage: true });
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForLoadState("load");

    await waitFor(async () => (await api(stack.baseUrl, `/v1/orders/${order.id}`, { key: shop.key })).body.data.order.status === "paid");
    await waitFor(() => receiver.events().some((event) => event.type === "order.paid"));
    const verifier = new Webhook(secret);
    const paid = receiver.received.find((entry) => JSON.parse(entry.body).type === "order.paid")!;
    const event = verifier.verify(paid.body, {
      "webhook-id": String(paid.headers["webhook-id"]),
      "webhook-timestamp": String(paid.headers["webhook-timestamp"]),
      "webhook-signature": String(paid.headers["webhook-signature"]),
    }) as any;
    t.is(event.data.order.id, order.id);
    t.is(event.data.order.status, "paid");

    await page.goto(order.checkout_url);
    t.regex(await page.locator("body").innerText(), /paid/i);
    await page.screenshot({ path: path.join(ARTIFACTS, "checkout-paid-phone.png"), fullPage: true });
  } finally {
    await context.close();
    await receiver.close();
  }
});

test("an Indonesian buyer reads the checkout in Indonesian at 360 and 1280 px, switches to English, and the pick stays on reload", async (t) => {
  const shop = await createStore(stack, undefined, "Toko Kain Nusantara");
  const cloth = await createProduct(stack, shop.storeId, "Kain Songket Palembang", 1_250_000);
  const created = await apiPatient(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: shop.key,
    json: { items: [{ product_id: cloth.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
  });
  t.is(created.status, 201);
  const { order, payment } = created.body.data;
  const grouped = (payment.seller_bank.transfer_amount as number).toLocaleString("id-ID");

  const { context, page } = await phonePage(browser, { locale: "id-ID" });
  try {
    await page.goto(order.checkout_url);
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      t.deepEqual(await layoutFaults(page), [], `Indonesian checkout at ${width} px`);
      await page.screenshot({ path: path.join(ARTIFACTS, `checkout-id-${width}.png`), fullPage: true });
    }
    const text = await page.locator("body").innerText();
    t.true(text.includes("Transfer tepat sebesar"), text);
    t.true(text.replace(/\s/g, "").includes(`Rp${grouped}`));
    t.true(text.includes("Nomor rekening"));

    await page.getByRole("link", { name: "English", exact: true }).click();
    await page.waitForURL(/lang=en/);
    t.true((await page.locator("body").innerText()).includes("Transfer exactly"));
    // Back on the link the buyer was given, without ?lang: the pick is kept for the visit.
    await page.goto(order.checkout_url);
    t.true((await page.locator("body").innerText()).includes("Transfer exactly"));
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      t.deepEqual(await layoutFaults(page), [], `English checkout at ${width} px`);
      await page.screenshot({ path: path.join(ARTIFACTS, `checkout-en-${width}.png`), fullPage: true });
    }
    await page.getByRole("link", { name: "Bahasa Indonesia", exact: true }).click();
    await page.waitForURL(/lang=id/);
    t.true((await page.locator("body").innerText()).includes("Transfer tepat sebesar"));
  } finally {
    await context.close();
  }
});
