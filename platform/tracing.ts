// Tracing (docs/operations.md#tracing): OpenTelemetry spans over OTLP/HTTP when
// OTEL_EXPORTER_OTLP_ENDPOINT is set, W3C `traceparent` between the pieces. Everything
// about it is here: the set-up, the propagation of a trace over each carrier (gRPC
// metadata, HTTP headers, NATS headers, a database column), and the instrumentation
// of the gRPC interceptors and of postgres.js. The Koa middleware is
// gateway/request-tracing.ts, the outbox → NATS → webhook hop outbox-relay.ts,
// webhook/consumer.ts and webhook/worker.ts; all of them use the helpers below.
//
// Unset, nothing is set up: no provider, no context manager, and every hook here
// returns at its first line on one boolean (`active`), so a request does no tracing
// work at all. The database pool is not even wrapped.
import {
  context,
  diag,
  DiagLogLevel,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from "@opentelemetry/api";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_NAMESPACE } from "@opentelemetry/semantic-conventions";
// pino's own type, not logger.ts's re-export: logger.ts reads traceLogFields from here.
import type { Logger } from "pino";
import { hookQueries, type AnySql } from "./sql-hooks.js";

/**
 * Who makes a span: `gateway`, `catalog`, `order` or `webhook`. It is the span's
 * `service.name`: each role has a tracer provider of its own with that resource, so
 * under `npm start` (every role in one process) a trace still shows which role did
 * what, as it does when each role is its own process.
 */
export type Role = string;

/** A trace context in its portable form: the W3C headers, `traceparent` (and `tracestate`). */
export type TraceCarrier = Record<string, string>;

interface Setup {
  processor: () => SpanProcessor;
  providers: Map<Role, BasicTracerProvider>;
  tracers: Map<Role, Tracer>;
  contextManager: AsyncLocalStorageContextManager;
}

let setup: Setup | undefined;
/** The one check on every hot path: false unless startTracing set tracing up. */
let active = false;

const propagator = new W3CTraceContextPropagator();

export interface TracingOptions {
  /** Where diagnostics of the SDK go (an export that fails, say), at warn. */
  logger?: Logger;
  /** Spans go here instead of OTLP, each as it ends (tests: InMemorySpanExporter). */
  exporter?: SpanExporter;
}

/**
 * Sets tracing up for this process when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (spans go
 * in batches to `<endpoint>/v1/traces`, OTLP/HTTP JSON) or a test gives an exporter;
 * otherwise does nothing. Once per process: a second call (another role of `npm
 * start`) finds it done. The sampler is the SDK's (`OTEL_TRACES_SAMPLER`, default: every
 * trace, and a caller's decision in its `traceparent` is kept).
 */
export function startTracing(config: { OTEL_EXPORTER_OTLP_ENDPOINT?: string }, options: TracingOptions = {}): boolean {
  if (setup) return true;
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint && !options.exporter) return false;
  const exporter = options.exporter;
  const url = endpoint ? `${endpoint.replace(/\/+$/, "")}/v1/traces` : "";
  const processor = exporter
    ? () => new SimpleSpanProcessor(exporter)
    : () => new BatchSpanProcessor(new OTLPTraceExporter({ url }));
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  if (options.logger) {
    const logger = options.logger;
    diag.setLogger(
      {
        error: (message, ...args) => logger.warn({ otel: args.map(String) }, `tracing: ${message}`),
        warn: (message, ...args) => logger.warn({ otel: args.map(String) }, `tracing: ${message}`),
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
    if (endpoint) logger.info({ endpoint: url }, "tracing: spans go to OTLP/HTTP");
  }
  setup = { processor, providers: new Map(), tracers: new Map(), contextManager };
  active = true;
  return true;
}

/** Whether spans are made in this process. */
export function tracingEnabled(): boolean {
  return active;
}

/** The tracer of a role (`service.name`); the API's no-op tracer when tracing is off. */
export function tracerFor(role: Role): Tracer {
  if (!setup) return trace.getTracer(role);
  let tracer = setup.tracers.get(role);
  if (!tracer) {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: role, [ATTR_SERVICE_NAMESPACE]: "store-order" }),
      spanProcessors: [setup.processor()],
    });
    setup.providers.set(role, provider);
    tracer = provider.getTracer("store-order");
    setup.tracers.set(role, tracer);
  }
  return tracer;
}

/**
 * Waits for `work`, at most `ms`: a trace store that does not answer must not hold up
 * a shutdown (SIGTERM has 10 s in all); its spans are lost, nothing else.
 */
function atMost(ms: number, work: Promise<unknown>[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([Promise.all(work.map((p) => p.catch(() => {}))).then(() => {}), limit]).finally(() => clearTimeout(timer));
}

/** Sends every span ended so far (before a test reads them, or a process exits), waiting 2 s at most. */
export async function flushTracing(): Promise<void> {
  if (!setup) return;
  await atMost(2_000, [...setup.providers.values()].map((provider) => provider.forceFlush()));
}

/** Flushes and ends tracing in this process (2 s at most); startTracing may set it up again. */
export async function stopTracing(): Promise<void> {
  if (!setup) return;
  const { providers, contextManager } = setup;
  setup = undefined;
  active = false;
  await atMost(2_000, [...providers.values()].map((provider) => provider.shutdown()));
  contextManager.disable();
  context.disable();
  diag.disable();
}

// ---------------------------------------------------------------------------
// Spans

/** Runs `work` in a new span (child of `parent`, default the active context), ending it when `work` settles. */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  parent: Context,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, options, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute("error.type", errorType(error));
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs `work` outside any trace: a background loop woken by a request (the outbox
 * relay, the delivery worker) must not file its batch, which serves many requests,
 * under whichever one woke it.
 */
export function untraced<T>(work: () => T): T {
  return active ? context.with(ROOT_CONTEXT, work) : work();
}

function errorType(error: unknown): string {
  if (error instanceof ConnectError) return Code[error.code] ?? "unknown";
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : ((error as Error | undefined)?.name ?? "Error");
}

/** The `trace_id` and `span_id` of the active span, for every log line (logger.ts's mixin). */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!active) return {};
  const span = trace.getSpanContext(context.active());
  if (!span || !isSpanContextValid(span)) return {};
  return { trace_id: span.traceId, span_id: span.spanId };
}

// ---------------------------------------------------------------------------
// Propagation: one context, four carriers.

const recordSetter: TextMapSetter<TraceCarrier> = { set: (carrier, key, value) => (carrier[key] = value) };
const recordGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  get: (carrier, key) => carrier[key],
  keys: (carrier) => Object.keys(carrier),
};
const headersSetter: TextMapSetter<Headers> = { set: (carrier, key, value) => carrier.set(key, value) };
const headersGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  // forEach, not keys(): the DOM typings preact's JSX brings in type Headers without the iterators.
  keys: (carrier) => {
    const keys: string[] = [];
    carrier.forEach((_value, key) => keys.push(key));
    return keys;
  },
};

/** The context as W3C headers (`traceparent`, `tracestate`); empty when tracing is off or no span is active. */
export function traceCarrier(ctx: Context = context.active()): TraceCarrier {
  const carrier: TraceCarrier = {};
  if (active) propagator.inject(ctx, carrier, recordSetter);
  return carrier;
}

/** The context W3C headers describe (an incoming HTTP request's, a bus message's); ROOT when none. */
export function contextFromCarrier(carrier: Record<string, string | string[] | undefined> | undefined | null): Context {
  if (!active || !carrier) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, carrier, recordGetter);
}

/** gRPC metadata (Connect's `Headers`, the lean transport's too): write the active context into it. */
export function injectTraceHeaders(headers: Headers, ctx: Context = context.active()): void {
  propagator.inject(ctx, headers, headersSetter);
}

/** gRPC metadata: the caller's context, ROOT when it sent none. */
export function contextFromHeaders(headers: Headers): Context {
  return propagator.extract(ROOT_CONTEXT, headers, headersGetter);
}

/** NATS message headers (`MsgHdrs`): the carrier's entries, as they are. */
export function setNatsTraceHeaders(headers: { set(key: string, value: string): void }, carrier: TraceCarrier | undefined): void {
  if (!carrier) return;
  for (const [key, value] of Object.entries(carrier)) headers.set(key, value);
}

/** NATS message headers: the carrier a publisher set (undefined when it set none). */
export function natsTraceHeaders(headers: { get(key: string): string } | undefined): TraceCarrier | undefined {
  const traceparent = headers?.get("traceparent");
  if (!traceparent) return undefined;
  const tracestate = headers!.get("tracestate");
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** A database column (the outbox's, a delivery's): the active context's `traceparent`, or null. */
export function currentTraceparent(): string | null {
  if (!active) return null;
  return traceCarrier().traceparent ?? null;
}

/** A database column: the context a stored `traceparent` names (ROOT when null). */
export function contextFromTraceparent(traceparent: string | null | undefined): Context {
  return traceparent ? contextFromCarrier({ traceparent }) : ROOT_CONTEXT;
}

// ---------------------------------------------------------------------------
// gRPC: one interceptor for both ends, on Connect's transports and the lean ones
// (which run Connect interceptors), installed beside rpcMetricsInterceptor.

// gRPC codes a server span counts as its own failure (OTel's RPC conventions); a
// client span fails on any code but OK.
const SERVER_ERRORS = new Set([Code.Unknown, Code.DeadlineExceeded, Code.Unimplemented, Code.Internal, Code.Unavailable, Code.DataLoss]);
const HEALTH = "grpc.health.v1.Health";

/**
 * A span per unary call: CLIENT on the calling side (only inside a trace: a call made
 * outside one starts none), which writes `traceparent` into the request's metadata;
 * SERVER on the serving side, continuing the caller's trace (a call that brings none
 * starts one, except health checks, which probes make every few seconds).
 */
export function rpcTracingInterceptor(side: "client" | "server", role: Role): Interceptor {
  // Off (or a stream): the call goes straight on, not even through an extra async frame.
  return (next) => (request) => (active && !request.stream ? traceCall(side, role, next, request) : next(request));
}

type Next = Parameters<Interceptor>[0];

async function traceCall(side: "client" | "server", role: Role, next: Next, request: Parameters<Next>[0]) {
  let parent: Context;
  if (side === "client") {
    parent = context.active();
    if (!trace.getSpanContext(parent)) return next(request);
  } else {
    parent = contextFromHeaders(request.header);
    if (request.service.typeName === HEALTH && !trace.getSpanContext(parent)) return next(request);
  }
  const attributes: Attributes = { "rpc.system": "grpc", "rpc.service": request.service.typeName, "rpc.method": request.method.name };
  const span = tracerFor(role).startSpan(
    `${request.service.typeName}/${request.method.name}`,
    { kind: side === "client" ? SpanKind.CLIENT : SpanKind.SERVER, attributes },
    parent,
  );
  const ctx = trace.setSpan(parent, span);
  if (side === "client") injectTraceHeaders(request.header, ctx);
  try {
    const response = await context.with(ctx, () => next(request));
    span.setAttribute("rpc.grpc.status_code", 0); // OK
    return response;
  } catch (error) {
    const code = ConnectError.from(error).code;
    span.setAttribute("rpc.grpc.status_code", code);
    if (side === "client" || SERVER_ERRORS.has(code)) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: Code[code] });
      span.setAttribute("error.type", Code[code] ?? String(code));
    }
    throw error;
  } finally {
    span.end();
  }
}

// ---------------------------------------------------------------------------
// postgres.js has no OpenTelemetry instrumentation: traceSql hooks every query of the
// pool (sql-hooks.ts), and each gets a span when it is sent, if a trace is active then.

/**
 * The pool with a span per statement (`db.system` postgresql, `db.statement` the
 * parameterised text: never a value) and one per transaction, both only inside a
 * trace: the relay's and the workers' polling makes none. Tracing off: `sql` itself.
 */
export function traceSql<T extends AnySql>(sql: T, role: Role): T {
  if (!active) return sql;
  const tracer = tracerFor(role);
  return hookQueries(sql, {
    sent(query) {
      const parent = context.active();
      if (!trace.getSpanContext(parent)) return;
      const span = tracer.startSpan("postgresql", { kind: SpanKind.CLIENT, attributes: { "db.system": "postgresql" } }, parent);
      return (error?: unknown) => {
        const text = query.string ?? query.strings.join("$?");
        span.updateName(statementName(text));
        span.setAttribute("db.statement", text);
        if (error !== undefined) {
          // SQLSTATE, not the message: a message may quote a value.
          const code = (error as { code?: unknown }).code;
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.setAttribute("error.type", typeof code === "string" ? code : "error");
          if (typeof code === "string") span.setAttribute("db.response.status_code", code);
        }
        span.end();
      };
    },
    scope(name, run) {
      const parent = context.active();
      if (!trace.getSpanContext(parent)) return run();
      return inSpan(tracer, name, { kind: SpanKind.CLIENT, attributes: { "db.system": "postgresql" } }, parent, run);
    },
  });
}

/** A short span name: the statement's first keyword (`SELECT`, `INSERT`, `WITH`, …). */
function statementName(text: string): string {
  const word = /^\s*([A-Za-z]+)/.exec(text)?.[1];
  return word ? word.toUpperCase() : "postgresql";
}
