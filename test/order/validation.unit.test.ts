// The order service's argument checks of a body (docs/api.md, docs/reconciliation.md, docs/refunds.md) report every
// field that fails in one INVALID_ARGUMENT, one FieldViolation each, in the documented
// order of fields; the message names the first. Pure: no database, no process.
import test, { type ExecutionContext } from "ava";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ReconcileMutationsRequestSchema } from "../../gen/order/v1/bank_pb.js";
import { CreateOrderRequestSchema, RefundOrderRequestSchema } from "../../gen/order/v1/order_pb.js";
import { findMutationProblem, findMutationProblems } from "../../common/bank-mutations.js";
import { validateCreateOrder, validateReconcileMutations, validateRefundOrder } from "../../services/order/validation.js";
import { fieldViolations } from "../../platform/field-errors.js";

const P1 = "11111111-1111-4111-8111-111111111111";
const P2 = "22222222-2222-4222-8222-222222222222";
const buyer = { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" };

/** The fields and descriptions of the INVALID_ARGUMENT `fn` throws, and its message. */
function violations(t: ExecutionContext, fn: () => unknown) {
  const error = t.throws<ConnectError>(fn, { instanceOf: ConnectError });
  t.is(error.code, Code.InvalidArgument);
  const details = fieldViolations(error).map((v) => ({ field: v.field, description: v.description }));
  return { details, fields: details.map((d) => d.field), message: error.rawMessage };
}

const order = (init: Omit<MessageInitShape<typeof CreateOrderRequestSchema>, "$typeName">) =>
  create(CreateOrderRequestSchema, { storeId: P1, buyer, paymentMethod: "qris", ...init });
const product = (value: string, quantity: number) => ({ ref: { case: "productId" as const, value }, quantity });

test("validateCreateOrder names every invalid field of the request, in the documented order", (t) => {
  const result = violations(t, () =>
    validateCreateOrder(
      order({
        items: [product("kopi", 0), { ref: { case: undefined }, quantity: 1 }, product(P1, 1), product(P1.toUpperCase(), 1001)],
        buyer: { name: " ", email: "nope", phone: "0812" },
        redirect: { successUrl: "/thanks", returnUrl: "", errorUrl: "javascript:alert(1)" },
        externalId: "x".repeat(65),
        idempotencyKey: "",
      }),
    ),
  );
  t.deepEqual(result.details, [
    { field: "items[0].product_id", description: "must be a UUID" },
    { field: "items[0].quantity", description: "must be an integer from 1 to 1000" },
    { field: "items[1]", description: "needs exactly one of product_id or bundle_id" },
    { field: "items[3].product_id", description: "appears more than once" },
    { field: "items[3].quantity", description: "must be an integer from 1 to 1000" },
    { field: "buyer.name", description: "must be 1 to 100 characters" },
    { field: "buyer.email", description: "must be a valid e-mail address" },
    { field: "buyer.phone", description: "must be 8 to 20 digits with an optional leading +" },
    { field: "redirect.success_url", description: "must be an absolute http(s) URL" },
    { field: "redirect.error_url", description: "must be an absolute http(s) URL" },
    { field: "external_id", description: "must be 1 to 64 characters" },
    { field: "Idempotency-Key", description: "must be 1 to 255 characters" },
  ]);
  t.is(result.message, "items[0].product_id: must be a UUID");
});

test("validateCreateOrder still names an item count out of range with the items' own problems", (t) => {
  const { fields } = violations(t, () => validateCreateOrder(order({ items: Array.from({ length: 51 }, (_, i) => product(i === 50 ? "x" : crypto.randomUUID(), 1)) })));
  t.deepEqual(fields, ["items", "items[50].product_id"]);
  t.deepEqual(violations(t, () => validateCreateOrder(order({ items: [], buyer: undefined }))).fields, ["items", "buyer"]);
});

test("validateCreateOrder passes a valid request with its items, lower-cased", (t) => {
  const items = validateCreateOrder(order({ items: [product(P1.toUpperCase(), 2), { ref: { case: "bundleId", value: P2 }, quantity: 1 }] }));
  t.deepEqual(items, [
    { field: "items[0].product_id", type: "product", id: P1, quantity: 2 },
    { field: "items[1].bundle_id", type: "bundle", id: P2, quantity: 1 },
  ]);
});

test("validateRefundOrder names every invalid field of the request", (t) => {
  const result = violations(t, () =>
    validateRefundOrder(create(RefundOrderRequestSchema, { amount: 0n, reason: "  ", reference: "r".repeat(101), idempotencyKey: "k\u0007" })),
  );
  t.deepEqual(result.fields, ["amount", "reason", "reference", "Idempotency-Key"]);
  t.is(result.message, "amount: must be a positive integer");
  t.is(result.details[3]!.description, "must not contain control characters");
});

test("validateReconcileMutations names every invalid field of every mutation, in request order", (t) => {
  const mutation = { id: "m1", amount: 150_000n, type: "credit", occurredAt: "2026-11-20T10:00:00+07:00", description: "" };
  const result = violations(t, () =>
    validateReconcileMutations(
      create(ReconcileMutationsRequestSchema, {
        mutations: [
          mutation,
          { ...mutation, id: "m2", amount: 0n, type: "refund" },
          { ...mutation, occurredAt: "yesterday" },
          { ...mutation, id: "", description: "d".repeat(501) },
        ],
      }),
    ),
  );
  t.deepEqual(result.fields, [
    "mutations[1].amount",
    "mutations[1].type",
    "mutations[2].id",
    "mutations[2].occurred_at",
    "mutations[3].id",
    "mutations[3].description",
  ]);
  t.regex(result.message, /^mutations\[1\]\.amount: must be a whole number/);
  t.is(result.details[2]!.description, "repeats mutations[0].id; each id may appear once per request");
});

test("findMutationProblems stops at its limit; findMutationProblem is still the first alone", (t) => {
  const bad = Array.from({ length: 10 }, (_, i) => ({ id: `m${i}`, amount: 0n, type: "x", occurredAt: "2026-11-20T10:00:00Z", description: "" }));
  t.is(findMutationProblems(bad).length, 20);
  t.deepEqual(
    findMutationProblems(bad, 3).map((p) => `${p.index}.${p.field}`),
    ["0.amount", "0.type", "1.amount"],
  );
  t.deepEqual(findMutationProblem(bad), { index: 0, field: "amount", message: "must be a whole number of rupiah from 1 to 10000000000000" });
});
