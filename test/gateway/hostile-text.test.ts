// docs/api.md#robustness: text must be valid Unicode without control characters.
// Every text field of POST /v1/orders with NUL, U+0001, U+007F or a lone surrogate is
// 400 INVALID_REQUEST naming the field and writes nothing; the services refuse the
// same over gRPC; a signed notification whose order_id is no reference is 404.
import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { api } from "../helpers/http.js";
import { midtransNotification, postNotification } from "../helpers/midtrans-notify.js";
import { buyer, createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";
import { fieldViolations } from "../../platform/field-errors.js";

let stack: Stack;
let key: string;
let storeId: string;
let productId: string;

test.before(async () => {
  stack = await startStack();
  ({ key, storeId } = await createStore(stack, undefined, "Hostile Text Store"));
  productId = (await createProduct(stack, storeId, "Kopi Gayo", 85_000)).id;
});

test.after.always(async () => {
  await stack?.close();
});

const BAD: Record<string, string> = { NUL: "\u0000", "U+0001": "\u0001", "U+007F": "\u007f", "a lone surrogate": "\ud800" };

type Body = Record<string, any>;
const validBody = (): Body => ({
  items: [{ product_id: productId, quantity: 1 }],
  buyer: { ...buyer },
  payment_method: "bank_transfer",
  redirect: { success_url: "https://toko.example/ok", return_url: "https://toko.example/back", error_url: "https://toko.example/err" },
  external_id: "INV-2026-0001",
});

/** Each text field of the body, and how to put `bad` inside its otherwise valid value. */
const FIELDS: Record<string, (body: Body, bad: string) => void> = {
  "buyer.name": (b, bad) => (b.buyer.name = `Budi${bad}Santoso`),
  "buyer.email": (b, bad) => (b.buyer.email = `budi${bad}@example.co.id`),
  "buyer.phone": (b, bad) => (b.buyer.phone = `+62812${bad}34567890`),
  external_id: (b, bad) => (b.external_id = `INV${bad}1`),
  payment_method: (b, bad) => (b.payment_method = `bank_transfer${bad}`),
  "redirect.success_url": (b, bad) => (b.redirect.success_url = `https://toko.example/ok${bad}`),
  "redirect.return_url": (b, bad) => (b.redirect.return_url = `https://toko.example/${bad}back`),
  "redirect.error_url": (b, bad) => (b.redirect.error_url = `https://toko.example/err?x=${bad}`),
  "items[0].product_id": (b, bad) => (b.items[0].product_id = `${productId}${bad}`),
};

async function orderCount(): Promise<number> {
  const [row] = await stack.orderSql<{ n: number }[]>`select count(*)::int as n from orders`;
  return row!.n;
}

test.serial("every text field of POST /v1/orders with a control character or a lone surrogate is 400 naming the field, nothing written", async (t) => {
  const before = await orderCount();
  for (const [field, put] of Object.entries(FIELDS)) {
    for (const [name, bad] of Object.entries(BAD)) {
      const body = validBody();
      put(body, bad);
      const response = await api(stack.baseUrl, "/v1/orders", { method: "POST", key, json: body });
      t.is(response.status, 400, `${field} with ${name}: ${response.text}`);
      t.is(response.body?.error?.code, "INVALID_REQUEST", `${field} with ${name}`);
      t.is(response.body?.error?.details?.[0]?.field, field, `${field} with ${name}: ${response.text}`);
    }
  }
  t.is(await orderCount(), before, "no order was written");
  // The same body without the bad character is accepted: the refusals were about the text.
  const ok = await api(stack.baseUrl, "/v1/orders", { method: "POST", key, json: validBody() });
  t.is(ok.status, 201, ok.text);
});

test.serial("an Idempotency-Key with a control character is 400 naming the header", async (t) => {
  const response = await api(stack.baseUrl, "/v1/orders", { method: "POST", key, json: validBody(), headers: { "Idempotency-Key": "abc\tdef" } });
  t.is(response.status, 400, response.text);
  t.is(response.body?.error?.details?.[0]?.field, "Idempotency-Key");
});

test.serial("the order service refuses the same over gRPC, naming the field", async (t) => {
  const error = await t.throwsAsync(
    stack.orders.createOrder({
      storeId,
      items: [{ ref: { case: "productId", value: productId }, quantity: 1 }],
      buyer: { ...buyer, name: "Budi\u0000" },
      paymentMethod: "bank_transfer",
    }),
  );
  const e = ConnectError.from(error);
  t.is(e.code, Code.InvalidArgument);
  t.is(fieldViolations(e)[0]?.field, "buyer.name");
});

test.serial("the catalog service refuses a product title with a NUL over gRPC, naming the field", async (t) => {
  const error = await t.throwsAsync(stack.catalog.createProduct({ storeId, title: "Kopi\u0000", price: 1_000n }));
  const e = ConnectError.from(error);
  t.is(e.code, Code.InvalidArgument);
  t.regex(e.rawMessage, /^title: /);
});

test.serial("a signed notification whose order_id is a lone surrogate or holds a NUL is 404; other bad text is 400", async (t) => {
  const serverKey = stack.config.MIDTRANS_SERVER_KEY;
  for (const orderId of ["\ud800", "SO-\u0000ABCDEFG", "\udfff\ud800"]) {
    const response = await postNotification(stack.baseUrl, midtransNotification(orderId, 1_000, { transaction_status: "settlement" }, serverKey));
    t.is(response.status, 404, `${JSON.stringify(orderId)}: ${response.text}`);
    t.is(response.body?.error?.code, "NOT_FOUND");
  }
  const badStatus = await postNotification(
    stack.baseUrl,
    midtransNotification("SO-ABCDEFGH", 1_000, { transaction_status: "settle\u0001ment" }, serverKey),
  );
  t.is(badStatus.status, 400, badStatus.text);
  t.is(badStatus.body?.error?.details?.[0]?.field, "transaction_status");
  // Unsigned, the same lone surrogate is refused for its signature first.
  const unsigned = await postNotification(stack.baseUrl, { ...midtransNotification("\ud800", 1_000, { transaction_status: "settlement" }, serverKey), signature_key: "0".repeat(128) });
  t.is(unsigned.status, 401, unsigned.text);
});
