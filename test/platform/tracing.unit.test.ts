// Tracing's parts without a database (platform/tracing.ts): the propagation over
// each carrier (gRPC metadata, NATS headers, the outbox column, HTTP headers), the
// log fields, and the gRPC interceptor on both ends, in memory (Connect's router
// transport) and over a real server's lean HTTP/2 path. Spans land in the SDK's
// InMemorySpanExporter, one tracer provider per role as in production.
import { Writable } from "node:stream";
import test from "ava";
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport, type ConnectRouter } from "@connectrpc/connect";
import { Health, HealthCheckResponseSchema, HealthCheckResponse_ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { createLogger } from "../../platform/logger.js";
import { createRpcChannel } from "../../platform/rpc-client.js";
import { serverInterceptors, startRpcServer } from "../../platform/rpc-server.js";
import {
  contextFromCarrier,
  contextFromHeaders,
  contextFromTraceparent,
  currentTraceparent,
  injectTraceHeaders,
  natsTraceHeaders,
  rpcTracingInterceptor,
  setNatsTraceHeaders,
  startTracing,
  stopTracing,
  traceCarrier,
  tracerFor,
  tracingEnabled,
  traceLogFields,
} from "../../platform/tracing.js";

const exporter = new InMemorySpanExporter();
const silent = createLogger("test", "silent");
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

test.before(() => {
  t0Off();
  startTracing({}, { exporter });
});
test.beforeEach(() => exporter.reset());
test.after.always(() => stopTracing());

/** Before anything is set up: no carrier, no log fields, no column value. */
function t0Off() {
  if (tracingEnabled()) throw new Error("tracing on before the test set it up");
  if (Object.keys(traceCarrier()).length > 0 || currentTraceparent() !== null || Object.keys(traceLogFields()).length > 0) {
    throw new Error("tracing off must give nothing");
  }
}

const serviceOf = (span: ReadableSpan) => span.resource.attributes["service.name"];
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** Runs `work` inside a fresh span of `role`; returns that span's ids. */
async function inRoot<T>(role: string, work: () => Promise<T>) {
  const span = tracerFor(role).startSpan("root");
  try {
    const result = await context.with(trace.setSpan(ROOT_CONTEXT, span), work);
    return { result, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
  } finally {
    span.end();
  }
}

test.serial("the carrier, the outbox column and the log fields name the active span; outside one, nothing", async (t) => {
  t.deepEqual(traceCarrier(), {});
  t.is(currentTraceparent(), null);
  t.deepEqual(traceLogFields(), {});
  const { result, traceId, spanId } = await inRoot("order", async () => ({ carrier: traceCarrier(), column: currentTraceparent(), log: traceLogFields() }));
  t.regex(result.carrier.traceparent!, TRACEPARENT);
  t.is(result.column, result.carrier.traceparent!);
  t.deepEqual(TRACEPARENT.exec(result.column!)!.slice(1), [traceId, spanId]);
  t.deepEqual(result.log, { trace_id: traceId, span_id: spanId });

  // Back from the column: the same trace, as a remote parent.
  const restored = trace.getSpanContext(contextFromTraceparent(result.column))!;
  t.like(restored, { traceId, spanId, isRemote: true });
  t.is(contextFromTraceparent(null), ROOT_CONTEXT);
  t.is(contextFromTraceparent("not a traceparent"), ROOT_CONTEXT);
});

test.serial("HTTP headers: an incoming traceparent (and tracestate) is continued; junk is ignored", (t) => {
  const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  const ctx = contextFromCarrier({ traceparent, tracestate: "vendor=x", host: "h" });
  t.like(trace.getSpanContext(ctx), { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", isRemote: true });
  t.is(trace.getSpanContext(ctx)!.traceState?.get("vendor"), "x");
  // Node gives a repeated header as an array: the first one counts.
  t.is(trace.getSpanContext(contextFromCarrier({ traceparent: [traceparent, "00-x"] }))!.traceId, "0af7651916cd43dd8448eb211c80319c");
  t.is(contextFromCarrier({ traceparent: "00-00000000000000000000000000000000-b7ad6b7169203331-01" }), ROOT_CONTEXT);
  t.is(contextFromCarrier({}), ROOT_CONTEXT);
  t.is(contextFromCarrier(undefined), ROOT_CONTEXT);
});

test.serial("gRPC metadata and NATS headers carry the context both ways", async (t) => {
  const { result, traceId, spanId } = await inRoot("gateway", async () => {
    const metadata = new Headers();
    injectTraceHeaders(metadata);
    const nats = natsHeaders();
    setNatsTraceHeaders(nats, traceCarrier());
    return { metadata, nats };
  });
  t.like(trace.getSpanContext(contextFromHeaders(result.metadata)), { traceId, spanId });
  const carrier = natsTraceHeaders(result.nats)!;
  t.like(trace.getSpanContext(contextFromCarrier(carrier)), { traceId, spanId });
  t.is(natsTraceHeaders(natsHeaders()), undefined, "a message published untraced carries none");
  t.is(natsTraceHeaders(undefined), undefined);
});

test.serial("a log line written in a span carries trace_id and span_id; outside, neither", async (t) => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = createLogger("order", "info", sink);
  const { traceId, spanId } = await inRoot("order", async () => logger.child({ requestId: "r1" }).info({ a: 1 }, "inside"));
  logger.info("outside");
  t.like(lines[0], { msg: "inside", trace_id: traceId, span_id: spanId, requestId: "r1", a: 1, service: "order" });
  t.false("trace_id" in lines[1]!);
  t.false("span_id" in lines[1]!);
});

// A service of one method: grpc.health.v1 Check, answering or failing as told.
function healthRoutes(seen: { activeTraceId?: string }, fail?: Code) {
  return (router: ConnectRouter) =>
    router.service(Health, {
      async check() {
        seen.activeTraceId = trace.getActiveSpan()?.spanContext().traceId;
        if (fail !== undefined) throw new ConnectError("told to fail", fail);
        return create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus.SERVING });
      },
      async list() {
        return {};
      },
      async *watch() {},
    });
}

function inMemoryClient(seen: { activeTraceId?: string }, fail?: Code) {
  const transport = createRouterTransport(healthRoutes(seen, fail), {
    router: { interceptors: serverInterceptors(silent, "catalog") },
    transport: { interceptors: [rpcTracingInterceptor("client", "gateway")] },
  });
  return createClient(Health, transport);
}

test.serial("rpc interceptor, in memory: a CLIENT span of the caller's role, a SERVER span of the service's, one trace", async (t) => {
  const seen: { activeTraceId?: string } = {};
  const client = inMemoryClient(seen);
  const root = await inRoot("gateway", () => client.check({}));
  const spans = exporter.getFinishedSpans();
  const clientSpan = spans.find((span) => span.kind === SpanKind.CLIENT)!;
  const serverSpan = spans.find((span) => span.kind === SpanKind.SERVER)!;
  t.truthy(clientSpan);
  t.truthy(serverSpan);
  t.is(clientSpan.name, "grpc.health.v1.Health/Check");
  t.is(serviceOf(clientSpan), "gateway");
  t.is(serviceOf(serverSpan), "catalog");
  t.is(clientSpan.spanContext().traceId, root.traceId);
  t.is(serverSpan.spanContext().traceId, root.traceId);
  t.is(parentOf(clientSpan), root.spanId);
  t.is(parentOf(serverSpan), clientSpan.spanContext().spanId, "the server continues the traceparent the client sent");
  t.is(seen.activeTraceId, root.traceId, "the handler runs inside the server span");
  t.like(serverSpan.attributes, { "rpc.system": "grpc", "rpc.service": "grpc.health.v1.Health", "rpc.method": "Check", "rpc.grpc.status_code": 0 });
  t.is(clientSpan.status.code, SpanStatusCode.UNSET);
});

test.serial("rpc interceptor: a failed call is an error on the client; on the server only if it is the server's fault", async (t) => {
  for (const [code, serverError] of [
    [Code.NotFound, false],
    [Code.Unavailable, true],
  ] as const) {
    exporter.reset();
    const client = inMemoryClient({}, code);
    await inRoot("gateway", () => t.throwsAsync(client.check({})));
    const spans = exporter.getFinishedSpans();
    const clientSpan = spans.find((span) => span.kind === SpanKind.CLIENT)!;
    const serverSpan = spans.find((span) => span.kind === SpanKind.SERVER)!;
    t.is(clientSpan.attributes["rpc.grpc.status_code"], code);
    t.is(serverSpan.attributes["rpc.grpc.status_code"], code);
    t.is(clientSpan.status.code, SpanStatusCode.ERROR);
    t.is(serverSpan.status.code, serverError ? SpanStatusCode.ERROR : SpanStatusCode.UNSET, Code[code]);
  }
});

test.serial("rpc interceptor: a call outside a trace makes no client span, and an untraced health check no server span", async (t) => {
  const client = inMemoryClient({});
  await client.check({});
  t.deepEqual(exporter.getFinishedSpans(), []);
});

test.serial("rpc interceptor over a real server: the lean gRPC client and server carry the trace on HTTP/2", async (t) => {
  const server = await startRpcServer({ name: "catalog", host: "127.0.0.1", port: 0, logger: silent, routes: () => {}, services: [], ready: async () => {} });
  const channel = createRpcChannel(`http://127.0.0.1:${server.port}`, { role: "gateway" });
  t.teardown(async () => {
    channel.close();
    await server.close(100);
  });
  const root = await inRoot("gateway", () => channel.client(Health).check({}));
  const spans = exporter.getFinishedSpans();
  const clientSpan = spans.find((span) => span.kind === SpanKind.CLIENT)!;
  const serverSpan = spans.find((span) => span.kind === SpanKind.SERVER)!;
  t.is(serviceOf(clientSpan), "gateway");
  t.is(serviceOf(serverSpan), "catalog");
  t.is(serverSpan.spanContext().traceId, root.traceId);
  t.is(parentOf(serverSpan), clientSpan.spanContext().spanId);
});
