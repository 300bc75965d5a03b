import { Code, ConnectError } from "@connectrpc/connect";
import { isOutage } from "../services/lib/rpc-errors.js";
import { FieldViolationSchema } from "../gen/order/v1/order_pb.js";

export type ErrorCode =
  | "INVALID_REQUEST"
  | "UNAUTHORIZED"
  | "PLAN_REQUIRED"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "RATE_LIMITED"
  | "INTERNAL_ERROR"
  | "SERVICE_UNAVAILABLE";

export interface FieldError {
  field: string;
  message: string;
}

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

export const invalidField = (field: string, message: string) =>
  invalidRequest(`${field}: ${message}`, [{ field, message }]);

export const unauthorized = (message: string, invalidToken = false) =>
  new ApiError(401, "UNAUTHORIZED", message, [], {
    "WWW-Authenticate": invalidToken ? 'Bearer error="invalid_token"' : "Bearer",
  });

export const notFound = (message = "not found") => new ApiError(404, "NOT_FOUND", message);

export const serviceUnavailable = (message = "a service is unavailable, try again shortly") =>
  new ApiError(503, "SERVICE_UNAVAILABLE", message, [], { "Retry-After": "2" });

/**
 * The one mapping from internal gRPC status codes to the public envelope. Internal
 * messages pass through only for codes whose messages are written for clients.
 */
export function fromConnectError(error: ConnectError): ApiError {
  switch (error.code) {
    case Code.InvalidArgument:
      return invalidRequest(
        error.rawMessage,
        error.findDetails(FieldViolationSchema).map((v) => ({ field: v.field, message: v.description })),
      );
    case Code.NotFound:
      return notFound(error.rawMessage);
    case Code.Unauthenticated:
      return unauthorized(error.rawMessage, true);
    case Code.PermissionDenied:
      return new ApiError(403, "PLAN_REQUIRED", error.rawMessage);
    case Code.AlreadyExists:
    case Code.FailedPrecondition:
      return new ApiError(409, "CONFLICT", error.rawMessage);
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

/** Anything thrown while serving a request, as an ApiError (500 for the unexpected). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ConnectError) return fromConnectError(error);
  if (error instanceof URIError) return invalidRequest("malformed URL");
  const status = (error as { status?: number; expose?: boolean }).status;
  if (status === 413) return invalidRequest("request body is larger than 64 KiB", [], 413);
  if (typeof status === "number" && status >= 400 && status < 500 && (error as { expose?: boolean }).expose) {
    return invalidRequest((error as Error).message);
  }
  if (isOutage(error)) return serviceUnavailable();
  return new ApiError(500, "INTERNAL_ERROR", "internal error");
}
