// Buyer mail (docs/payments.md#buyer-mail) over the whole stack and a real SMTP server:
// each kind arrives once with what to pay exactly and by when, the reminder only while
// the order is pending, a mail server that is away delays mail and fails no order, and
// test orders and stores with "Email buyers" off mail nobody. One stack for the file, with
// a payment window short enough to see a reminder (due 8 s after an order is made) and
// buyer-mail retries every 300 ms. The tests share the mail server, so they run in turn.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { wibIn } from "../../common/i18n/index.js";
import { rupiah } from "../../common/rupiah.js";
import { api, waitFor } from "../helpers/http.js";
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from "../helpers/smtp-receiver.js";
import { buyer, createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";

const WINDOW_S = 20;
const REMINDER_BEFORE_S = 12;

let smtp: SmtpReceiver;
let stack: Stack;
let shop: { storeId: string; key: string; productId: string };

test.before(async () => {
  smtp = await startSmtpReceiver();
  stack = await startStack({
    smtpUrl: smtp.url,
    orderEnv: { ORDER_PAYMENT_WINDOW: `${WINDOW_S}s`, BUYER_REMINDER_BEFORE: `${REMINDER_BEFORE_S}s` },
    buyerMailRetryDelaysMs: [300, 300, 300, 300, 300, 300, 300, 300, 300, 300],
  });
  shop = await storeWithProduct("Toko Kopi Mail");
});

test.after.always(async () => {
  await stack?.close();
  await smtp?.close();
});

async function storeWithProduct(name: string) {
  const store = await createStore(stack, undefined, name);
  const product = await createProduct(stack, store.storeId, "Kopi Gayo", 45_000);
  return { ...store, productId: product.id };
}

/** A buyer address of the test's own, so each test counts only its own mail. */
const buyerEmail = () => `budi.${randomUUID().slice(0, 8)}@example.co.id`;

async function order(t: ExecutionContext, at: { key: string; productId: string }, email: string, paymentMethod = "bank_transfer") {
  const response = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: at.key,
    json: { items: [{ product_id: at.productId, quantity: 2 }], buyer: { ...buyer, email }, payment_method: paymentMethod },
  });
  t.is(response.status, 201, response.text);
  return response.body.data.order as { id: string; payment_reference: string; amount: number; expires_at: string; checkout_url: string };
}

const mailsTo = (email: string, subject?: RegExp) => smtp.messages.filter((mail) => mail.envelope.to.includes(email) && (!subject || subject.test(mail.subject)));

async function oneMail(email: string, subject: RegExp, ms = 15_000): Promise<ReceivedMail> {
  await waitFor(() => mailsTo(email, subject).length > 0, ms, 50);
  return mailsTo(email, subject)[0]!;
}

const rows = (orderId: string) =>
  stack.orderSql<{ kind: string; state: string; attempts: number; last_error: string | null }[]>`
    select kind, state, attempts, last_error from buyer_mails where order_id = ${orderId} order by kind, refund_id`;

test.serial("order received, receipt and each refund arrive once with the exact amount, the deadline, the store and the reference; no reminder once paid", async (t) => {
  const email = buyerEmail();
  const placed = await order(t, shop, email);

  const received = await oneMail(email, /diterima/);
  t.true(received.subject.includes("Toko Kopi Mail") && received.subject.includes(placed.payment_reference), received.subject);
  // What to pay exactly (the unique code included) and by when, in both parts.
  t.true(received.text.includes(rupiah(placed.amount)), received.text);
  t.true(received.text.includes(wibIn("id", placed.expires_at)), received.text);
  t.true(received.text.includes("0001112223"), "the store's account number");
  t.true(received.html?.includes(rupiah(placed.amount)), "the HTML part says the amount too");
  t.regex(received.raw, new RegExp(`Message-ID: <buyer\\.received\\.${placed.id}@`, "i"));

  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: placed.id });
  const receipt = await oneMail(email, /bukti pembayaran/);
  t.true(receipt.subject.includes(placed.payment_reference), receipt.subject);
  t.true(receipt.text.includes(rupiah(placed.amount)), receipt.text);

  // Two partial refunds: a notice for each.
  await stack.orders.refundOrder({ storeId: shop.storeId, orderId: placed.id, amount: 10_000n, reason: "satu bungkus sobek", requestHash: "r1" });
  await stack.orders.refundOrder({ storeId: shop.storeId, orderId: placed.id, amount: 5_000n, reason: "ongkir", requestHash: "r2" });
  await waitFor(() => mailsTo(email).length >= 4, 15_000, 50);
  const refunds = mailsTo(email).slice(2);
  t.deepEqual(refunds.map((mail) => mail.text.includes(rupiah(10_000)) || mail.text.includes(rupiah(5_000))), [true, true]);
  t.true(refunds.some((mail) => mail.text.includes("satu bungkus sobek")));

  // Past the moment the reminder would have been due: none came for the paid order, and nothing twice.
  await new Promise((resolve) => setTimeout(resolve, (WINDOW_S - REMINDER_BEFORE_S + 2) * 1_000));
  t.is(mailsTo(email).length, 4, mailsTo(email).map((mail) => mail.subject).join(" | "));
  t.deepEqual(
    (await rows(placed.id)).map((row) => `${row.kind}:${row.state}`),
    ["receipt:sent", "received:sent", "refund:sent", "refund:sent", "reminder:skipped"],
  );
});

test.serial("a pending order's buyer is reminded once before it expires, in the store's language, with the payment link", async (t) => {
  const english = await storeWithProduct("Kopi English Shop");
  await stack.stores.updateStoreSettings({
    storeId: english.storeId,
    bankAccount: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "Test Holder" },
    redirects: {},
    buyerLanguage: "en",
  });
  const email = buyerEmail();
  const placed = await order(t, english, email, "qris");
  const received = await oneMail(email, /received/);
  // Its checkout page, which always leads to a live payment page (a gateway session can lapse).
  t.true(received.text.includes(`Pay now: ${placed.checkout_url}`), received.text);

  const reminder = await oneMail(email, /still waiting for payment/, (WINDOW_S - REMINDER_BEFORE_S + 6) * 1_000);
  t.true(reminder.subject.includes("Kopi English Shop") && reminder.subject.includes(placed.payment_reference), reminder.subject);
  t.true(reminder.text.includes(wibIn("en", placed.expires_at)), reminder.text);
  t.true(reminder.text.includes(rupiah(placed.amount)), reminder.text);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  t.is(mailsTo(email, /still waiting/).length, 1);
});

test.serial("with the mail server away the order is made all the same, and its mail arrives once the server is back", async (t) => {
  const email = buyerEmail();
  await smtp.stop();
  let placed: Awaited<ReturnType<typeof order>>;
  try {
    placed = await order(t, shop, email);
    // Tried and failed at least once, the failure kept on the row.
    await waitFor(async () => (await rows(placed.id)).some((row) => row.kind === "received" && row.attempts >= 1 && row.last_error !== null), 10_000, 50);
    const read = await api(stack.baseUrl, `/v1/orders/${placed.id}`, { key: shop.key });
    t.is(read.body.data.order.status, "pending");
  } finally {
    await smtp.start();
  }
  const received = await oneMail(email, /diterima/i);
  t.true(received.text.includes(rupiah(placed.amount)));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  t.is(mailsTo(email, /diterima/i).length, 1, "sent once");
});

test.serial("test orders and stores with Email buyers off mail nobody", async (t) => {
  const testKey = (await stack.stores.createApiKey({ storeId: shop.storeId, name: "test", testMode: true })).secret;
  const quiet = await storeWithProduct("Toko Sepi");
  await stack.stores.updateStoreSettings({
    storeId: quiet.storeId,
    bankAccount: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "Test Holder" },
    redirects: {},
    emailBuyers: false,
  });
  const testEmail = buyerEmail();
  const quietEmail = buyerEmail();
  const testOrder = await order(t, { key: testKey, productId: shop.productId }, testEmail);
  const quietOrder = await order(t, quiet, quietEmail);
  // Mail is sent in the order it was owed: once a later order's arrives, these were looked at.
  const later = buyerEmail();
  await order(t, shop, later);
  await oneMail(later, /diterima/i);

  t.deepEqual(mailsTo(testEmail), []);
  t.deepEqual(mailsTo(quietEmail), []);
  t.is((await rows(testOrder.id)).length, 0, "a test order owes no mail");
  t.like((await rows(quietOrder.id)).find((row) => row.kind === "received"), { state: "skipped", last_error: "email_buyers off" });
});
