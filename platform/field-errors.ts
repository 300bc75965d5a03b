// The one way a service says "this request is wrong here": INVALID_ARGUMENT carrying a
// google.rpc.BadRequest that names each field by its public path (`items[0].quantity`),
// which the gateway turns into INVALID_REQUEST listing those fields in `details`
// (docs/api.md). The standard detail type, not one of our own, so a stock gRPC client
// (grpc-js with a status-details reader, grpcurl) can read it too.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { isUuid } from "../common/ids.js";
import { BadRequestSchema } from "../gen/google/rpc/error_details_pb.js";

/** A field a request got wrong, named by its public path (`items[0].quantity`). */
export interface FieldProblem {
  field: string;
  description: string;
}

/**
 * How many fields one INVALID_ARGUMENT names at most. They travel in a gRPC trailer,
 * which HTTP/2 peers refuse past 64 KiB of headers; a hundred stays far below that.
 */
export const MAX_FIELD_VIOLATIONS = 100;

/**
 * How the message of a field error reads: "store_id: must be a UUID" from the order
 * service and platform/, "store_id must be a UUID" from the catalog and webhook
 * services. Both are what their clients have always read, and the dashboard matches
 * on them, so each service keeps its own; the field itself travels in the BadRequest.
 */
export type MessageStyle = "field: description" | "field description";

function messageOf(problem: FieldProblem, style: MessageStyle): string {
  return style === "field: description" ? `${problem.field}: ${problem.description}` : `${problem.field} ${problem.description}`;
}

/**
 * INVALID_ARGUMENT naming every field of `problems` (the first MAX_FIELD_VIOLATIONS)
 * in one BadRequest, so the gateway lists them all in `details`; its message names
 * the first, for callers that read only the message (the CLI, the dashboard), unless
 * `message` is given.
 */
export function fieldErrors(problems: readonly FieldProblem[], message: string = messageOf(problems[0]!, "field: description")): ConnectError {
  const violations = problems.slice(0, MAX_FIELD_VIOLATIONS).map(({ field, description }) => ({ field, description }));
  return new ConnectError(message, Code.InvalidArgument, undefined, [{ desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations: violations }) }]);
}

/** INVALID_ARGUMENT naming one field. */
export function fieldError(field: string, description: string, style: MessageStyle = "field: description"): ConnectError {
  return fieldErrors([{ field, description }], messageOf({ field, description }, style));
}

/**
 * ALREADY_EXISTS naming the field whose value is taken (a slug used in the store): the
 * same BadRequest as fieldErrors, so the gateway's 409 names the field too.
 */
export function fieldConflict(field: string, description: string, message: string = messageOf({ field, description }, "field: description")): ConnectError {
  return new ConnectError(message, Code.AlreadyExists, undefined, [
    { desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations: [{ field, description }] }) },
  ]);
}

/** Throws fieldErrors(problems) when there are any. */
export function throwFieldProblems(problems: readonly FieldProblem[]): void {
  if (problems.length > 0) throw fieldErrors(problems);
}

/** The fields an error names, in the order the service found them; empty when it names none. */
export function fieldViolations(error: ConnectError): FieldProblem[] {
  return error.findDetails(BadRequestSchema).flatMap((bad) => bad.fieldViolations.map(({ field, description }) => ({ field, description })));
}

/** The field checks of a service whose messages read in `style`. */
export function fieldChecks(style: MessageStyle) {
  const error = (field: string, description: string) => fieldError(field, description, style);
  /** The id, lower-cased; INVALID_ARGUMENT naming `field` when it is not a UUID. */
  const requireUuid = (value: string, field: string): string => {
    if (!isUuid(value)) throw error(field, "must be a UUID");
    return value.toLowerCase();
  };
  return {
    fieldError: error,
    requireUuid,
    /** The id lower-cased, or undefined when empty (an optional filter). */
    optionalUuid: (value: string, field: string): string | undefined => (value === "" ? undefined : requireUuid(value, field)),
    /** The store almost every call is scoped to, `store_id`, lower-cased. */
    requireStoreId: (request: { readonly storeId: string }): string => requireUuid(request.storeId, "store_id"),
  };
}

/** The checks in the style of the order service and platform/: "store_id: must be a UUID". */
export const { requireUuid, requireStoreId } = fieldChecks("field: description");
