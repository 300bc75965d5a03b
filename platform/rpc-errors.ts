import { Code, ConnectError } from "@connectrpc/connect";
import { wellFormedError } from "../lean-grpc/index.js";
import type { Logger } from "./logger.js";
import { QUERY_CANCELED } from "./query-deadline.js";

// What a service lets out of a handler. A ConnectError is the handler's own answer
// and keeps its code; anything else is a dependency that went away (UNAVAILABLE, so
// the gateway answers 503 and the client retries) or a bug (INTERNAL). Either way
// the driver's message, which names hosts, ports and SQL, stays in the log.

/** Error codes of postgres.js, Node's sockets and PostgreSQL that mean "the database is not there right now". */
const OUTAGE_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  // DriverConfusion, below.
  "DRIVER_CONFUSED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOTFOUND",
  // PostgreSQL SQLSTATEs: admin_shutdown (pg_terminate_backend, a restart),
  // crash_shutdown, cannot_connect_now (starting up), too_many_connections.
  "57P01",
  "57P02",
  "57P03",
  "53300",
  // Conflicts PostgreSQL asks the client to retry.
  "40001",
  "40P01",
]);

/**
 * A TypeError thrown inside postgres.js's connection while a terminated backend's last
 * messages arrive after the query was settled ("Cannot set properties of null (setting
 * 'parsing')" in ParseComplete): the driver rejects the query with it, and the query did
 * not complete. It is the connection dying, not a bug of ours; seen under repeated
 * pg_terminate_backend (test/e2e/outages.test.ts).
 */
const DRIVER_CONNECTION_FRAME = /[\\/]postgres[\\/](?:cjs[\\/]|cf[\\/])?src[\\/]connection\.js:/;

/**
 * The driver answered a query with rows that cannot be its answer (a written row coming
 * back as another's, or none where one must be). Seen once in thousands of answers
 * while backends were terminated under load (postgres.js, a pipelined query settling
 * after its connection's previous query failed mid-stream). Treated as the connection
 * dying: the caller answers 503 and is asked to retry, never 500.
 */
export class DriverConfusion extends Error {
  readonly code = "DRIVER_CONFUSED";
  constructor(what: string) {
    super(`the database driver answered ${what} with rows that are not its answer`);
  }
}

/** True when `error` means a dependency (database, socket) is unreachable or dropped the connection. */
export function isOutage(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  if (error instanceof TypeError) {
    // Only when the driver's connection code is where it was thrown (its first frame).
    const frame = error.stack?.split("\n").find((line) => line.trimStart().startsWith("at "));
    return frame !== undefined && DRIVER_CONNECTION_FRAME.test(frame);
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return false;
  // SQLSTATE class 08: connection exception.
  return OUTAGE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code);
}

/** The error a client may see for whatever a handler threw. Logs what it hides. */
export function toRpcError(error: unknown, logger: Logger, where: { service: string; method: string }): ConnectError {
  // Its own answer, with a message every transport can carry (Connect's gRPC path
  // percent-encodes it too).
  if (error instanceof ConnectError) return wellFormedError(error);
  // A query cancelled because its call was over (query-deadline.ts): the client has
  // its deadline error already; this is no fault to alarm anyone with.
  if ((error as { code?: unknown } | undefined)?.code === QUERY_CANCELED) {
    logger.info({ ...where }, "query cancelled: its call was over");
    return new ConnectError("the operation was cancelled at its deadline", Code.DeadlineExceeded);
  }
  if (isOutage(error)) {
    logger.warn({ ...where, err: describe(error) }, "dependency unavailable");
    return new ConnectError("a dependency is unavailable, try again shortly", Code.Unavailable);
  }
  logger.error({ ...where, err: error }, "handler failed");
  return new ConnectError("internal error", Code.Internal);
}

/** The parts of a driver error worth a log line (postgres.js errors carry the query too). */
function describe(error: unknown): Record<string, unknown> {
  const e = error as { code?: string; message?: string };
  return { code: e.code, message: e.message };
}
