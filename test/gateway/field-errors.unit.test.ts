// `error.details` lists every invalid field of a request (docs/api.md#envelope), in the order the
// request has them, with the message naming the first: the gateway's shape check, its
// query parameters, and a service's INVALID_ARGUMENT as the gateway maps it. Pure.
import test from "ava";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ApiError, fieldSteps, fromConnectError, inBodyOrder, MAX_FIELD_ERRORS } from "../../gateway/errors.js";
import { bankMutationsBody, parseBody, parseCreateOrderBody, refundOrderBody } from "../../gateway/order-request.js";
import { queryReader } from "../../gateway/query.js";
import { BadRequestSchema } from "../../gen/google/rpc/error_details_pb.js";
import { fieldErrors } from "../../platform/field-errors.js";

const P1 = "11111111-1111-4111-8111-111111111111";
const buyer = { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" };

/** The ApiError `fn` throws. */
function refusal(t: import("ava").ExecutionContext, fn: () => unknown): ApiError {
  const error = t.throws(fn);
  if (!(error instanceof ApiError)) throw new Error(`not an ApiError: ${String(error)}`);
  t.is(error.status, 400);
  t.is(error.code, "INVALID_REQUEST");
  return error;
}

const fields = (error: ApiError) => error.details.map((d) => d.field);

test("a body with several wrong fields names every one, in the body's order, the message naming the first", (t) => {
  const error = refusal(t, () =>
    parseCreateOrderBody({
      items: [{ product_id: P1, quantity: "2" }, { product_id: 42, quantity: 1.5, price: 1 }],
      buyer: { name: 5, email: buyer.email, phone: buyer.phone, zip: "12345" },
      payment_method: 7,
      coupon: "HEMAT10",
    }),
  );
  t.deepEqual(error.details, [
    { field: "items[0].quantity", message: "must be a number" },
    { field: "items[1].product_id", message: "must be a string" },
    { field: "items[1].quantity", message: "must be an integer" },
    { field: "items[1].price", message: "is not a known field" },
    { field: "buyer.name", message: "must be a string" },
    { field: "buyer.zip", message: "is not a known field" },
    { field: "payment_method", message: "must be a string" },
    { field: "coupon", message: "is not a known field" },
  ]);
  t.is(error.message, "items[0].quantity: must be a number");
});

test("the order is the body's as written, not the schema's; a missing field follows what its object holds", (t) => {
  const error = refusal(t, () =>
    parseCreateOrderBody({
      coupon: "HEMAT10",
      buyer: { phone: 62, name: "Budi" },
      items: [{ quantity: 1, product_id: 42 }],
    }),
  );
  t.deepEqual(fields(error), ["coupon", "buyer.phone", "buyer.email", "items[0].product_id"]);
  t.is(error.message, "coupon: is not a known field");
  t.deepEqual(error.details[2], { field: "buyer.email", message: "is required" });
});

test("every unknown field of one object is listed, each on its own", (t) => {
  const error = refusal(t, () => parseBody(refundOrderBody, { reason: "rusak", note: "x", extra: 1, more: true }));
  t.deepEqual(fields(error), ["note", "extra", "more"]);
});

test("a body with one wrong field answers as before: one entry, the message naming it", (t) => {
  const error = refusal(t, () => parseCreateOrderBody({ items: [{ product_id: P1, quantity: "2" }], buyer }));
  t.deepEqual(error.details, [{ field: "items[0].quantity", message: "must be a number" }]);
  t.is(error.message, "items[0].quantity: must be a number");
  const notAnObject = refusal(t, () => parseCreateOrderBody([{ items: [] }]));
  t.deepEqual(fields(notAnObject), ["body"]);
  t.deepEqual(refusal(t, () => parseCreateOrderBody(undefined)).details, [{ field: "body", message: "is required" }]);
});

test("a hostile body of thousands of wrong fields gets the first MAX_FIELD_ERRORS of them", (t) => {
  const mutations = Array.from({ length: 2_000 }, () => ({ id: 1, amount: "x", type: 2, occurred_at: 3 }));
  const error = refusal(t, () => parseBody(bankMutationsBody, { mutations }));
  t.is(error.details.length, MAX_FIELD_ERRORS);
  t.deepEqual(fields(error).slice(0, 5), ["mutations[0].id", "mutations[0].amount", "mutations[0].type", "mutations[0].occurred_at", "mutations[1].id"]);
  t.is(error.details.at(-1)!.field, "mutations[24].occurred_at");
});

test("query parameters: every wrong one is named, in the URL's order", (t) => {
  const query = queryReader({ status: "lost", offset: "-1", limit: ["5", "6"] });
  t.is(query.int("limit", { min: 1, max: 50, fallback: 20 }), 20);
  t.is(query.int("offset", { min: 0, max: 1_000_000_000, fallback: 0 }), 0);
  t.is(query.oneOf("status", ["pending", "paid"]), undefined);
  const error = refusal(t, () => query.check());
  t.deepEqual(error.details, [
    { field: "status", message: "must be one of pending, paid" },
    { field: "offset", message: "must be an integer from 0 to 1000000000" },
    { field: "limit", message: "must be given once" },
  ]);
  t.is(error.message, "status: must be one of pending, paid");
});

test("query parameters that are right, or absent, pass", (t) => {
  const query = queryReader({ limit: "50", status: "paid" });
  t.is(query.int("limit", { min: 1, max: 50, fallback: 20 }), 50);
  t.is(query.int("offset", { min: 0, max: 1_000_000_000, fallback: 0 }), 0);
  t.is(query.oneOf("status", ["pending", "paid"]), "paid");
  t.notThrows(() => query.check());
});

test("a service's INVALID_ARGUMENT keeps every field violation; with the body, they follow its order", (t) => {
  const fromService = fieldErrors([
    { field: "items[0].quantity", description: "must be an integer from 1 to 1000" },
    { field: "buyer.name", description: "must be 1 to 100 characters" },
    { field: "buyer.email", description: "must be a valid e-mail address" },
    { field: "Idempotency-Key", description: "must be 1 to 255 characters" },
  ]);
  const asSent = fromConnectError(fromService);
  t.is(asSent.code, "INVALID_REQUEST");
  t.deepEqual(fields(asSent), ["items[0].quantity", "buyer.name", "buyer.email", "Idempotency-Key"]);
  t.is(asSent.message, "items[0].quantity: must be an integer from 1 to 1000");

  // Buyer written first: its fields come first, and the message names the new first; a
  // header the body does not hold comes last.
  const body = { buyer: { email: "nope", name: "" }, items: [{ product_id: P1, quantity: 0 }] };
  const inOrder = fromConnectError(fromService, body);
  t.deepEqual(fields(inOrder), ["buyer.email", "buyer.name", "items[0].quantity", "Idempotency-Key"]);
  t.is(inOrder.message, "buyer.email: must be a valid e-mail address");
});

test("a service's single field violation and its message pass through unchanged", (t) => {
  const error = new ConnectError("payment_method: is not offered by this store", Code.InvalidArgument, undefined, [
    { desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations: [{ field: "payment_method", description: "is not offered by this store" }] }) },
  ]);
  const mapped = fromConnectError(error, { items: [], payment_method: "paypal" });
  t.deepEqual(mapped.details, [{ field: "payment_method", message: "is not offered by this store" }]);
  t.is(mapped.message, "payment_method: is not offered by this store");
  t.deepEqual(fromConnectError(new ConnectError("unknown provider x", Code.InvalidArgument)).details, []);
});

test("inBodyOrder puts an object before its fields and keeps ties in their given order", (t) => {
  t.deepEqual(fieldSteps("mutations[3].amount"), ["mutations", 3, "amount"]);
  const body = { b: { y: 1, x: 2 }, a: [0, 1] };
  const order = inBodyOrder(["a[1]", "b.x", "header", "a", "b", "b.y", "other"], body, fieldSteps);
  t.deepEqual(order, ["b", "b.y", "b.x", "a", "a[1]", "header", "other"]);
});
