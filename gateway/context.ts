import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import type { RouterContext } from "@koa/router";
import type { Context, Next } from "koa";
import type { ErrorEnvelope } from "../common/api-shapes.js";
import type { Logger } from "../platform/logger.js";
import { httpDuration, httpRequests } from "../platform/metrics.js";
import type { Principal } from "./auth.js";
import { toApiError, type ApiError } from "./errors.js";

export interface GatewayState {
  requestId: string;
  principal?: Principal;
  body?: unknown;
}

export type GatewayContext = Context & { state: GatewayState };

/**
 * A request the router matched: `params` holds the path's `:name` segments, typed as
 * @koa/router sets them. Middleware in front of the router sees GatewayContext alone,
 * since no route, and so no params, exists there yet.
 */
export type RouteContext = GatewayContext & { params: RouterContext["params"] };

// Paths whose last segment is a capability (a one-time invitation or reset, a payment page):
// whoever reads the log must not be able to use them.
const CAPABILITY_PATHS = /^(\/dashboard\/invite\/|\/dashboard\/reset-password\/|\/sandbox\/pay\/)[^/]+/;

/** The path as logs may show it: capability tokens replaced by "…". */
export function loggablePath(path: string): string {
  return path.replace(CAPABILITY_PATHS, "$1…");
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._~:\-]{1,128}$/;

export function ok(ctx: Context, data: unknown, status = 200): void {
  ctx.status = status;
  ctx.body = { success: true, data };
}

/** The success envelope as bytes, for an answer made once and served many times (okBytes). */
export function envelopeBytes(data: unknown): Buffer {
  return Buffer.from(JSON.stringify({ success: true, data }));
}

/** Answers 200 with an envelope envelopeBytes made: the same bytes ok() would send. */
export function okBytes(ctx: Context, body: Buffer): void {
  ctx.status = 200;
  ctx.type = "application/json";
  ctx.body = body;
}

const ENVELOPE_START = Buffer.from('{"success":true,"data":');
const ENVELOPE_END = Buffer.from("}");

/** Answers 200 with the success envelope around `data`, already JSON: the bytes ok() would send for it. */
export function okData(ctx: Context, data: Uint8Array): void {
  okBytes(ctx, Buffer.concat([ENVELOPE_START, data, ENVELOPE_END]));
}

function renderError(ctx: Context, error: ApiError): void {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.body = {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details.length > 0 ? { details: error.details } : {}),
    },
  } satisfies ErrorEnvelope;
}

/**
 * Outermost middleware: gives every request an id, turns every failure into the
 * envelope (never HTML, never a stack trace) and writes one log line per request.
 */
export function requestContext(logger: Logger) {
  return async (ctx: GatewayContext, next: Next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get("x-request-id");
    ctx.state.requestId = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set("X-Request-Id", ctx.state.requestId);
    let failure: unknown;
    try {
      await next();
    } catch (error) {
      failure = error;
      const apiError = toApiError(error, ctx.state.body);
      renderError(ctx, apiError);
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // The client hung up before an answer could reach it (mid-body, or while a service
    // worked): nobody receives a status, so none is counted or logged as a failure.
    const aborted = (failure as { code?: string } | undefined)?.code === "ECONNABORTED" || ctx.res.destroyed;
    // Unmatched paths share one label, so scanners cannot grow the metric without bound.
    const route = (ctx as { routerPath?: string }).routerPath ?? "unmatched";
    // 499 is nginx's "client closed request", the common word for it on dashboards.
    const labels = { route, method: ctx.method, code: aborted ? "499" : String(ctx.status) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, ms / 1000);
    const line = {
      requestId: ctx.state.requestId,
      method: ctx.method,
      route: (ctx as { routerPath?: string }).routerPath ?? null,
      path: loggablePath(ctx.path),
      status: ctx.status,
      ms: Math.round(ms * 10) / 10,
      storeId: ctx.state.principal?.storeId,
      // Which mode the key's call was in (docs/keys.md#test-mode), so an operator tells test traffic apart.
      livemode: ctx.state.principal?.livemode,
      // The client address as the limits see it (TRUST_PROXY; client-address.ts).
      client: ctx.ip,
    };
    if (aborted) logger.info({ ...line, status: undefined, aborted: true }, "request aborted by the client");
    // An outage is expected and already logged by the service that met it: one warn
    // line naming the cause, not a stack per request for the length of the outage.
    else if (ctx.status === 503) logger.warn({ ...line, reason: failureReason(failure) }, "request failed: a dependency is unavailable");
    else if (ctx.status >= 500) logger.error({ ...line, err: failure }, "request failed");
    else logger.info(line, "request");
  };
}

function failureReason(failure: unknown): string | undefined {
  if (failure instanceof ConnectError) return `${Code[failure.code]}: ${failure.rawMessage}`;
  const e = failure as { code?: unknown; message?: unknown } | undefined;
  return typeof e?.code === "string" ? e.code : typeof e?.message === "string" ? e.message : undefined;
}
