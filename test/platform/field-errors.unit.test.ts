// The one way the services say a request field is wrong (platform/field-errors.ts): a
// google.rpc.BadRequest naming the fields, which the gateway turns into INVALID_REQUEST
// with those fields in `details`, and a message in the words each service's clients
// have always read. Pure.
import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { fromConnectError } from "../../gateway/errors.js";
import { fieldErrors, fieldViolations, MAX_FIELD_VIOLATIONS, requireStoreId, requireUuid } from "../../platform/field-errors.js";
import { requireStoreId as catalogStoreId, requireText } from "../../services/catalog/validation.js";
import { optionalUuid as webhookOptionalUuid, requireStoreId as webhookStoreId } from "../../services/webhook/validation.js";

const ID = "0B1E2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D";

function refusal(t: import("ava").ExecutionContext, fn: () => unknown): ConnectError {
  const error = t.throws(fn);
  if (!(error instanceof ConnectError)) throw new Error(`not a ConnectError: ${String(error)}`);
  t.is(error.code, Code.InvalidArgument);
  return error;
}

test("every service's requireStoreId gives the id lower-cased, or INVALID_ARGUMENT naming store_id in its own words", (t) => {
  for (const [check, message] of [
    [requireStoreId, "store_id: must be a UUID"],
    [catalogStoreId, "store_id must be a UUID"],
    [webhookStoreId, "store_id must be a UUID"],
  ] as const) {
    t.is(check({ storeId: ID }), ID.toLowerCase());
    const error = refusal(t, () => check({ storeId: "toko-1" }));
    t.is(error.rawMessage, message);
    t.deepEqual(fieldViolations(error), [{ field: "store_id", description: "must be a UUID" }]);
  }
});

test("an optional id is undefined when empty and checked when given", (t) => {
  t.is(webhookOptionalUuid("", "order_id"), undefined);
  t.is(webhookOptionalUuid(ID, "order_id"), ID.toLowerCase());
  t.deepEqual(fieldViolations(refusal(t, () => webhookOptionalUuid("x", "order_id"))), [{ field: "order_id", description: "must be a UUID" }]);
});

test("a catalog check now names its field, so the gateway's INVALID_REQUEST lists it in details", (t) => {
  const error = refusal(t, () => requireText("  ", "name", 200));
  t.is(error.rawMessage, "name must be 1 to 200 characters");
  const mapped = fromConnectError(error);
  t.is(mapped.code, "INVALID_REQUEST");
  t.is(mapped.message, "name must be 1 to 200 characters");
  t.deepEqual(mapped.details, [{ field: "name", message: "must be 1 to 200 characters" }]);
});

test("fieldErrors names every field in one BadRequest, at most MAX_FIELD_VIOLATIONS, the message naming the first", (t) => {
  const problems = Array.from({ length: MAX_FIELD_VIOLATIONS + 5 }, (_, n) => ({ field: `items[${n}].quantity`, description: "must be an integer from 1 to 1000" }));
  const error = fieldErrors(problems);
  t.is(error.code, Code.InvalidArgument);
  t.is(error.rawMessage, "items[0].quantity: must be an integer from 1 to 1000");
  t.is(error.details.length, 1, "one BadRequest holds them all");
  t.deepEqual(fieldViolations(error), problems.slice(0, MAX_FIELD_VIOLATIONS));
});

test("an INVALID_ARGUMENT without a BadRequest names no field", (t) => {
  t.deepEqual(fieldViolations(new ConnectError("unknown provider x", Code.InvalidArgument)), []);
  t.is(requireUuid(ID, "order_id"), ID.toLowerCase());
});
