// What a buyer's mail says (docs/payments.md#buyer-mail): the exact transfer amount with its
// unique code, the account, the deadline in WIB, in the store's buyer language; the text
// and HTML parts say the same; what the store or buyer typed is escaped in the HTML.
import test from "ava";
import { renderBuyerMail, type BuyerMailOrder } from "../../services/order/buyer-mail-templates.js";

const transferOrder: BuyerMailOrder = {
  storeName: "Toko Batik <Sari>",
  buyerName: "Budi & Sari",
  paymentReference: "SO-ABCDEFGHJKLM",
  checkoutUrl: "https://toko.example/checkout/0b6f6b0e-1c7e-4c86-9a61-3f4f8e0f6a11",
  amount: 435_114,
  subtotal: 435_000,
  paymentMethod: "bank_transfer",
  expiresAt: "2026-12-21T10:40:00Z",
  items: [
    { title: "Kemeja Batik", quantity: 2, unitPrice: 145_000, lineTotal: 290_000 },
    { title: "Selendang", quantity: 2, unitPrice: 72_500, lineTotal: 145_000 },
  ],
  bank: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "CV Batik Sari", transferAmount: 435_114, uniqueCode: 114 },
  refundedAmount: 0,
};

const gatewayOrder: BuyerMailOrder = {
  ...transferOrder,
  amount: 84_000,
  subtotal: 84_000,
  paymentMethod: "qris",
  bank: undefined,
  paymentUrl: "https://app.sandbox.midtrans.com/snap/v4/redirection/abc",
  items: [{ title: "Kopi Susu", quantity: 3, unitPrice: 28_000, lineTotal: 84_000 }],
};

const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/\s+/g, " ");

test("order received, in Indonesian: the exact amount with its code, the account and the deadline in WIB, in both parts", (t) => {
  const mail = renderBuyerMail("received", "id", transferOrder);
  t.is(mail.subject, "Toko Batik <Sari>: pesanan SO-ABCDEFGHJKLM diterima");
  for (const part of [mail.text, visible(mail.html)]) {
    t.true(part.includes("Halo Budi & Sari,"), part);
    t.true(part.includes("Transfer tepat sebesar"), part);
    t.true(part.includes("Rp 435.114"), part);
    t.true(part.includes("kode unik 114"), part);
    t.true(part.includes("Bank Central Asia (BCA)"), part);
    t.true(part.includes("0001112223"), part);
    t.true(part.includes("CV Batik Sari"), part);
    t.true(part.includes("21 Desember 2026, 17:40 WIB"), part);
    t.true(part.includes("SO-ABCDEFGHJKLM"), part);
  }
  t.true(mail.text.includes(`Lihat pesanan Anda: ${transferOrder.checkoutUrl}`));
  t.true(mail.html.includes(`href="${transferOrder.checkoutUrl}"`));
  t.true(mail.text.includes("(435114)"), "the digits to type, ungrouped");
  t.true(mail.html.startsWith("<!doctype html>"));
  t.regex(mail.html, /<html lang="id">/);
  t.false(mail.html.includes("<Sari>"), "what the store typed is escaped");
  t.true(mail.html.includes("Toko Batik &lt;Sari"));
  t.notRegex(mail.html, /<script|<img|<link|<style/i, "no script, image or stylesheet: inline styles only");
});

test("order received, in English, for a gateway order: a link to pay and no bank account", (t) => {
  const mail = renderBuyerMail("received", "en", gatewayOrder);
  t.is(mail.subject, "Toko Batik <Sari>: order SO-ABCDEFGHJKLM received");
  for (const part of [mail.text, visible(mail.html)]) {
    t.true(part.includes("Hello Budi & Sari,"), part);
    t.true(part.includes("QRIS"), part);
    t.true(part.includes("Rp 84.000"), part);
    t.true(part.includes("21 December 2026, 17:40 WIB"), part);
    t.false(part.includes("Account number"), part);
  }
  t.true(mail.text.includes(`Pay now: ${gatewayOrder.paymentUrl}`));
  t.true(mail.html.includes(`href="${gatewayOrder.paymentUrl}"`));
});

test("a reminder says the deadline and asks for the same exact amount", (t) => {
  const mail = renderBuyerMail("reminder", "id", transferOrder);
  t.is(mail.subject, "Toko Batik <Sari>: pesanan SO-ABCDEFGHJKLM masih menunggu pembayaran");
  t.true(mail.text.includes("sebelum 21 Desember 2026, 17:40 WIB"));
  t.true(mail.text.includes("Rp 435.114"));
});

test("a receipt asks for nothing: what was paid and when, no account to transfer to", (t) => {
  const mail = renderBuyerMail("receipt", "en", { ...transferOrder, paidAt: "2026-12-21T03:05:00Z" });
  t.is(mail.subject, "Toko Batik <Sari>: receipt for order SO-ABCDEFGHJKLM");
  t.true(mail.text.includes("Paid: Rp 435.114"));
  t.true(mail.text.includes("Paid on: 21 December 2026, 10:05 WIB"));
  t.false(mail.text.includes("0001112223"), "no account number once paid");
  t.false(mail.text.includes("Transfer exactly"));
});

test("a refund notice names this refund, the total refunded and the reason", (t) => {
  const mail = renderBuyerMail("refund", "id", { ...transferOrder, refundedAmount: 200_000 }, { amount: 145_000, reason: "stok habis", createdAt: "2026-12-22T01:00:00Z" });
  t.is(mail.subject, "Toko Batik <Sari>: pengembalian dana pesanan SO-ABCDEFGHJKLM");
  t.true(mail.text.includes("Rp 145.000 dari pembayaran Anda telah dikembalikan."));
  t.true(mail.text.includes("Total dikembalikan: Rp 200.000"));
  t.true(mail.text.includes("Alasan: stok habis"));
  t.throws(() => renderBuyerMail("refund", "id", transferOrder), { message: /needs its refund/ });
});
