import { Code, ConnectError } from "@connectrpc/connect";
import { isOutage } from "../platform/rpc-errors.js";
import { fieldViolations } from "../platform/field-errors.js";
import { outOfStockLines, OUT_OF_STOCK } from "../platform/out-of-stock.js";
import { MAX_FIELD_ERRORS, type ErrorCode, type FieldErrorJson } from "../common/api-shapes.js";

export { MAX_FIELD_ERRORS, type ErrorCode };
export type FieldError = FieldErrorJson;

/** An error the client is meant to see, already in the envelope's vocabulary. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const invalidRequest = (message: string, details: FieldError[] = [], status = 400) =>
  new ApiError(status, "INVALID_REQUEST", message, details);

export const invalidField = (field: string, message: string) => invalidFields([{ field, message }]);

/** INVALID_REQUEST listing every field of `details` (the first MAX_FIELD_ERRORS); its message names the first. */
export function invalidFields(details: FieldError[]): ApiError {
  const first = details[0]!;
  return invalidRequest(`${first.field}: ${first.message}`, details.slice(0, MAX_FIELD_ERRORS));
}

/** ["items", 0, "quantity"] from "items[0].quantity", the path notation of docs/api.md. */
export function fieldSteps(field: string): (string | number)[] {
  return [...field.matchAll(/\[(\d+)\]|[^.[\]]+/g)].map((m) => (m[1] === undefined ? m[0] : Number(m[1])));
}

/**
 * `entries` in the order their fields appear in `body`, so a client reads the
 * problems top to bottom as it wrote them. A field the body lacks (a required one left
 * out, a header) comes after what its object does hold. Stable: entries the body
 * cannot tell apart keep their order.
 */
export function inBodyOrder<T>(entries: readonly T[], body: unknown, stepsOf: (entry: T) => readonly PropertyKey[]): T[] {
  if (entries.length < 2) return [...entries];
  // Each object's key positions are looked up once: a hostile body may have thousands.
  const keyIndexes = new WeakMap<object, Map<string, number>>();
  const positionOf = (steps: readonly PropertyKey[]): number[] => {
    const at: number[] = [];
    let node = body;
    for (const step of steps) {
      let index: number | undefined;
      if (Array.isArray(node)) {
        const n = typeof step === "number" ? step : Number.NaN;
        if (Number.isInteger(n) && n >= 0 && n < node.length) index = n;
      } else if (node !== null && typeof node === "object") {
        let indexes = keyIndexes.get(node);
        if (!indexes) keyIndexes.set(node, (indexes = new Map(Object.keys(node).map((key, i) => [key, i]))));
        index = indexes.get(String(step));
      }
      if (index === undefined) {
        at.push(Number.MAX_SAFE_INTEGER);
        break;
      }
      at.push(index);
      node = (node as Record<string, unknown>)[String(step)];
    }
    return at;
  };
  const placed = entries.map((entry) => ({ entry, at: positionOf(stepsOf(entry)) }));
  placed.sort((a, b) => {
    for (let i = 0; i < Math.min(a.at.length, b.at.length); i++) {
      if (a.at[i] !== b.at[i]) return a.at[i]! - b.at[i]!;
    }
    // An object before its own fields.
    return a.at.length - b.at.length;
  });
  return placed.map((p) => p.entry);
}

export const unauthorized = (message: string, invalidToken = false) =>
  new ApiError(401, "UNAUTHORIZED", message, [], {
    "WWW-Authenticate": invalidToken ? 'Bearer error="invalid_token"' : "Bearer",
  });

/** 403: the key lacks the scope the call needs, or the service refused the actor. */
export const forbidden = (message: string) => new ApiError(403, "FORBIDDEN", message);

export const notFound = (message = "not found") => new ApiError(404, "NOT_FOUND", message);

export const serviceUnavailable = (message = "a service is unavailable, try again shortly") =>
  new ApiError(503, "SERVICE_UNAVAILABLE", message, [], { "Retry-After": "2" });

/**
 * 409 OUT_OF_STOCK (docs/api.md#out-of-stock): each short line of the order with the units
 * still available for it; the message names the first.
 */
export function outOfStock(message: string, lines: readonly { field: string; description: string; available: number }[]): ApiError {
  const details = lines.slice(0, MAX_FIELD_ERRORS).map(({ field, description, available }): FieldError => ({ field, message: description, available }));
  return new ApiError(409, OUT_OF_STOCK, message, details);
}

/**
 * The one mapping from internal gRPC status codes to the public envelope. Internal
 * messages pass through only for codes whose messages are written for clients.
 */
export function fromConnectError(error: ConnectError, body?: unknown): ApiError {
  switch (error.code) {
    case Code.InvalidArgument: {
      const named = fieldViolations(error).map((v): FieldError => ({ field: v.field, message: v.description }));
      // A service lists fields in its own order of checks; the client sees them in its body's.
      const details = body === undefined ? named : inBodyOrder(named, body, (d) => fieldSteps(d.field));
      // The service's message names its first field; when the body puts another first, so does the message.
      if (details.length > 0 && details[0] !== named[0]) return invalidFields(details);
      return invalidRequest(error.rawMessage, details.slice(0, MAX_FIELD_ERRORS));
    }
    case Code.NotFound:
      return notFound(error.rawMessage);
    case Code.Unauthenticated:
      return unauthorized(error.rawMessage, true);
    case Code.PermissionDenied:
      return forbidden(error.rawMessage);
    case Code.FailedPrecondition: {
      // The catalog's refusal of a new order's units (platform/out-of-stock.ts), passed on untouched by the order service.
      const lines = outOfStockLines(error);
      if (lines) return outOfStock(error.rawMessage, lines);
      return new ApiError(409, "CONFLICT", error.rawMessage);
    }
    case Code.AlreadyExists:
      // A taken value the service names (a product's slug): the client sees which field to change.
      return new ApiError(409, "CONFLICT", error.rawMessage, fieldViolations(error).map((v): FieldError => ({ field: v.field, message: v.description })));
    case Code.ResourceExhausted:
      return new ApiError(409, "CONFLICT", error.rawMessage);
    // The services never answer ABORTED themselves; it is the transport's word for a
    // connection reset mid-call.
    case Code.Aborted:
    case Code.Unavailable:
    case Code.DeadlineExceeded:
    // The gateway never cancels its own calls: a cancelled call is a stream the
    // transport tore down (the service died mid-call, HTTP/2 RST_STREAM CANCEL).
    case Code.Canceled:
      return serviceUnavailable();
    default:
      return new ApiError(500, "INTERNAL_ERROR", "internal error");
  }
}

/**
 * Anything thrown while serving a request, as an ApiError (500 for the unexpected).
 * `body` is the request's parsed JSON body, which orders a service's field errors.
 */
export function toApiError(error: unknown, body?: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ConnectError) return fromConnectError(error, body);
  if (error instanceof URIError) return invalidRequest("malformed URL");
  const status = (error as { status?: number; expose?: boolean }).status;
  if (status === 413) return invalidRequest("request body is larger than 64 KiB", [], 413);
  if (typeof status === "number" && status >= 400 && status < 500 && (error as { expose?: boolean }).expose) {
    return invalidRequest((error as Error).message);
  }
  if (isOutage(error)) return serviceUnavailable();
  return new ApiError(500, "INTERNAL_ERROR", "internal error");
}
