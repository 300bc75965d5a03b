// Buyer mail's HTML part (docs/payments.md#buyer-mail) as a phone and a desktop show it: the
// exact amount, the account and the deadline read without sideways scrolling or a word
// broken mid-way, in both languages.
import path from "node:path";
import test from "ava";
import type { Browser } from "playwright-core";
import { renderBuyerMail, type BuyerMailOrder } from "../../services/order/buyer-mail-templates.js";
import { ARTIFACTS, launchBrowser } from "../helpers/browser.js";
import { layoutFaults } from "../helpers/dashboard-browser.js";

let browser: Browser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
});

const order: BuyerMailOrder = {
  storeName: "Toko Kain Nusantara Sejahtera",
  buyerName: "Kusumaningrum Wulandari",
  paymentReference: "SO-WMWMWMWMWMWM",
  checkoutUrl: "https://toko-kain-nusantara.example/checkout/0b6f6b0e-1c7e-4c86-9a61-3f4f8e0f6a11",
  amount: 1_250_443,
  subtotal: 1_250_000,
  paymentMethod: "bank_transfer",
  expiresAt: "2026-12-21T10:40:00Z",
  items: [{ title: "Kain Songket Palembang Motif Bunga Cengkeh", quantity: 1, unitPrice: 1_250_000, lineTotal: 1_250_000 }],
  bank: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "CV Kain Nusantara Sejahtera", transferAmount: 1_250_443, uniqueCode: 443 },
  refundedAmount: 0,
};

test("an order-received mail reads on a phone and a desktop in Indonesian and English", async (t) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    for (const language of ["id", "en"] as const) {
      const mail = renderBuyerMail("received", language, order);
      await page.setContent(mail.html);
      for (const width of [360, 1280]) {
        await page.setViewportSize({ width, height: 800 });
        t.deepEqual(await layoutFaults(page), [], `${language} at ${width} px`);
        await page.screenshot({ path: path.join(ARTIFACTS, `buyer-mail-received-${language}-${width}.png`), fullPage: true });
      }
      const text = await page.locator("body").innerText();
      t.true(text.includes("Rp 1.250.443"), text);
      t.true(text.includes("0001112223"), text);
    }
  } finally {
    await context.close();
  }
});
