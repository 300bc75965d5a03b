// The "New payment link" form read into the order service's request (docs/dashboard.md#payment-links):
// rows left empty are skipped, a problem names the row the seller filled, and "Expires" is Jakarta time.
import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { formProblem, linkRequest, whatsAppHref, type LinkValues } from "../../gateway/dashboard/pages/payment-links.js";

const PRODUCT = "0b7e6a52-8f0e-4c3a-9d4e-1f2a3b4c5d6e";
const BUNDLE = "5f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
const form = (values: Partial<LinkValues>): LinkValues => ({
  rows: [
    { item: "", quantity: "1" },
    { item: "", quantity: "1" },
    { item: "", quantity: "1" },
  ],
  methods: ["qris"],
  usageLimit: "",
  expires: "",
  ...values,
});

test("the rows chosen become the link's items, each a product or a bundle, and the rows left on None are skipped", (t) => {
  const request = linkRequest(form({ rows: [{ item: "", quantity: "1" }, { item: `product:${PRODUCT}`, quantity: "2" }, { item: `bundle:${BUNDLE}`, quantity: "1" }] }));
  if ("problem" in request) return t.fail(request.problem);
  t.deepEqual(
    request.items.map((item) => [item.ref.case, item.ref.value, item.quantity]),
    [
      ["productId", PRODUCT, 2],
      ["bundleId", BUNDLE, 1],
    ],
  );
  t.deepEqual(request.rowOf, [2, 3], "items[0] is the form's second row");
  t.is(request.usageLimit, undefined);
  t.is(request.expiresAt, undefined);
});

test("Expires is read as Jakarta time and the usage limit as a whole number", (t) => {
  const request = linkRequest(form({ rows: [{ item: `product:${PRODUCT}`, quantity: "1" }], usageLimit: "5", expires: "2099-12-31T23:30" }));
  if ("problem" in request) return t.fail(request.problem);
  t.is(request.expiresAt, "2099-12-31T16:30:00.000Z");
  t.is(request.usageLimit, 5);
});

test("each problem names the field in the form's words", (t) => {
  const chosen = [{ item: `product:${PRODUCT}`, quantity: "1" }];
  const problem = (values: Partial<LinkValues>) => {
    const request = linkRequest(form(values));
    return "problem" in request ? request.problem : "(none)";
  };
  t.regex(problem({}), /^Items: /);
  t.regex(problem({ rows: [{ item: "", quantity: "1" }, { item: `product:${PRODUCT}`, quantity: "0" }] }), /^Item 2: the quantity/);
  t.regex(problem({ rows: [{ item: `product:${PRODUCT}`, quantity: "1.5" }] }), /^Item 1: the quantity/);
  t.regex(problem({ rows: [{ item: "coupon:x", quantity: "1" }] }), /^Item 1: choose/);
  t.regex(problem({ rows: chosen, methods: [] }), /^Payment methods: /);
  t.regex(problem({ rows: chosen, usageLimit: "0" }), /^Usage limit: /);
  t.regex(problem({ rows: chosen, expires: "tomorrow" }), /^Expires: /);
  // The order service's field paths, as the seller filled the form: items[1] was the third row.
  const refused = (message: string) => formProblem(new ConnectError(message, Code.InvalidArgument), [1, 3]);
  t.is(refused("items[1].quantity: must be at most 1000"), "Item 3, quantity: must be at most 1000");
  t.is(refused("items[0].product_id: is not published"), "Item 1: is not published");
  t.is(refused("expires_at: must be in the future"), "Expires: must be in the future");
  t.is(refused("payment_methods[0]: is not offered by this store"), "Payment methods: is not offered by this store");
  t.is(formProblem(new ConnectError("down", Code.Unavailable), []), undefined, "anything but a refusal of the input is not the form's problem");
});

test("Share on WhatsApp opens wa.me with a text that names the store and carries the address", (t) => {
  const url = new URL(whatsAppHref("Warung Kopi Bu Ani & Anak", "https://toko.example/pay/k7Hq2m?x=1"));
  t.is(`${url.origin}${url.pathname}`, "https://wa.me/");
  t.is(url.searchParams.get("text"), "Pembayaran untuk Warung Kopi Bu Ani & Anak: https://toko.example/pay/k7Hq2m?x=1");
});
