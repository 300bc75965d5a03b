// The gateway's part of a trace (docs/operations.md#tracing): one SERVER span per HTTP request,
// continuing the caller's W3C `traceparent` when it sends one. Everything the request
// does (gRPC calls, SQL, log lines) happens inside it. Tracing off: one boolean check.
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from "@opentelemetry/semantic-conventions";
import type { Context, Next } from "koa";
import { contextFromCarrier, tracerFor, tracingEnabled } from "../platform/tracing.js";
import { loggablePath } from "./context.js";

// Probes ask every few seconds; a trace each would bury the ones that matter.
const PROBES = new Set(["/healthz", "/readyz"]);

/** Outermost middleware: the request's span, named by its route once the router has matched it. */
export function traceRequests() {
  // Off: straight on, not even through an extra async frame.
  return (ctx: Context, next: Next) => (tracingEnabled() && !PROBES.has(ctx.path) ? traceRequest(ctx, next) : next());
}

async function traceRequest(ctx: Context, next: Next) {
  const parent = contextFromCarrier(ctx.headers);
  const span = tracerFor("gateway").startSpan(
    ctx.method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: ctx.method,
        // Capability tokens (an invitation's, a payment page's) never leave in a span.
        [ATTR_URL_PATH]: loggablePath(ctx.path),
        [ATTR_URL_SCHEME]: ctx.protocol,
      },
    },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), next);
  } finally {
    // requestContext (inside this) has turned any failure into the envelope by now.
    const route = (ctx as { routerPath?: string }).routerPath;
    if (route) {
      span.setAttribute(ATTR_HTTP_ROUTE, route);
      span.updateName(`${ctx.method} ${route}`);
    }
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, ctx.status);
    if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}
