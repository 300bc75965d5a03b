// One REST call is one trace (docs/operations.md#tracing): POST /v1/orders with the caller's
// `traceparent` gives one trace id over the gateway's HTTP span, every gRPC client
// and server span (gateway → catalog, gateway → order, order → catalog), SQL statements,
// the outbox → NATS → consumer hop and the webhook attempt, each span's service.name
// its role though every role runs in this process; the receiver's request carries a
// `traceparent` of that trace, and the request's log lines its trace_id. Then the same
// hop with each service its own process (gRPC and NATS between them). Spans travel as
// in production: OTLP/HTTP (JSON) to a receiver on loopback. Real PostgreSQL and NATS.
import { Writable } from "node:stream";
import test from "ava";
import { createLogger } from "../../platform/logger.js";
import { flushTracing } from "../../platform/tracing.js";
import { api, waitFor } from "../helpers/http.js";
import { OtlpKind, startOtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver.js";
import { buyer, startStack, type Stack } from "../helpers/stack.js";
import { shopWithReceiver } from "../helpers/webhooks.js";
import { SHARED_NATS_URL } from "../helpers/nats.js";
import { createServices, startHookReceiver } from "../helpers/service-processes.js";

const CALLER_SPAN = "00f067aa0ba902b7";

let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
const lines: Record<string, any>[] = [];
const cleanup: (() => Promise<void>)[] = [];

test.before(async () => {
  otlp = await startOtlpReceiver();
});
test.after.always(async () => {
  for (const close of cleanup.reverse()) await close();
  await otlp?.close();
});

/** A stack of its own exporting to the receiver, its every log line kept in `lines`. */
async function tracedStack(bus: "nats" | "in-process"): Promise<Stack> {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const stack = await startStack({ logger: createLogger("test", "info", sink), webhooks: { bus, env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint } } });
  cleanup.push(() => stack.close());
  return stack;
}

for (const [bus, traceId] of [
  ["nats", "4bf92f3577b34da6a3ce929d0e0e4736"],
  ["in-process", "5c0a3f4688c45eb7b4df030e1f1f5847"],
] as const) {
  test(`POST /v1/orders with a traceparent (${bus} bus): one trace from the gateway through gRPC, SQL, the bus and the webhook attempt`, async (t) => {
    const stack = await tracedStack(bus);
    const { shop, receiver } = await shopWithReceiver(stack, undefined, "Traced Store");
    cleanup.push(() => receiver.close());
    const response = await api(stack.baseUrl, "/v1/orders", {
      method: "POST",
      key: shop.key,
      headers: { traceparent: `00-${traceId}-${CALLER_SPAN}-01` },
      json: { items: [{ product_id: shop.productId, quantity: 1 }], buyer, payment_method: "bank_transfer" },
    });
    t.is(response.status, 201, response.text);
    await waitFor(() => receiver.received.length >= 1, 20_000);

    // The attempt's spans end just after the receiver answers: flush until they are in.
    const webhookSpan = (name: string) => otlp.trace(traceId).find((span) => span.service === "webhook" && span.name === name);
    await waitFor(
      async () => {
        await flushTracing();
        return webhookSpan("POST") !== undefined && webhookSpan("webhook attempt") !== undefined;
      },
      15_000,
      200,
    );
    const spans = otlp.trace(traceId);
    const find = (what: string, test: (span: ReceivedSpan) => boolean) => {
      const found = spans.find(test);
      t.truthy(found, `${what} is in the trace (${spans.map((span) => `${span.service}:${span.name}`).join(", ")})`);
      return found!;
    };
    const byId = new Map(spans.map((span) => [span.spanId, span]));

    t.deepEqual([...new Set(spans.map((span) => span.service))].sort(), ["catalog", "gateway", "order", "webhook"]);

    const http = find("the gateway's HTTP span", (span) => span.service === "gateway" && span.kind === OtlpKind.SERVER);
    t.is(http.name, "POST /v1/orders");
    t.is(http.parentSpanId, CALLER_SPAN, "the caller's traceparent is continued");
    t.like(http.attributes, { "http.request.method": "POST", "http.route": "/v1/orders", "http.response.status_code": 201 });

    const createCall = find("the gateway's gRPC client span", (span) => span.service === "gateway" && span.name === "order.v1.OrderService/CreateOrder");
    t.is(createCall.kind, OtlpKind.CLIENT);
    t.is(byId.get(createCall.parentSpanId), http);
    const createServed = find("the order service's server span", (span) => span.service === "order" && span.name === "order.v1.OrderService/CreateOrder");
    t.is(createServed.kind, OtlpKind.SERVER);
    t.is(createServed.parentSpanId, createCall.spanId);
    find("a catalog server span", (span) => span.service === "catalog" && span.kind === OtlpKind.SERVER);
    find("an order → catalog client span", (span) => span.service === "order" && span.kind === OtlpKind.CLIENT && span.name.startsWith("catalog."));

    const sql = spans.filter((span) => span.attributes["db.system"] === "postgresql" && span.attributes["db.statement"]);
    const insert = find("the order's insert statement", (span) => span.service === "order" && /insert into outbox/.test(String(span.attributes["db.statement"])));
    t.regex(String(insert.attributes["db.statement"]), /\$1/);
    t.false(JSON.stringify(sql.map((span) => span.attributes)).includes(buyer.email), "no statement carries a value");
    for (const role of ["gateway", "catalog", "order", "webhook"]) t.true(sql.some((span) => span.service === role), `${role} statements are traced`);

    const publish = find("the relay's publish", (span) => span.service === "order" && span.kind === OtlpKind.PRODUCER);
    t.is(publish.name, "publish order.created");
    t.is(byId.get(publish.parentSpanId)?.service, "order", "published in the trace of the order's change (the outbox row's traceparent)");
    const consume = find("the webhook consumer's span", (span) => span.service === "webhook" && span.kind === OtlpKind.CONSUMER);
    t.is(consume.parentSpanId, publish.spanId, "the bus message carried the context");

    const attempt = webhookSpan("webhook attempt")!;
    t.is(attempt.parentSpanId, consume.spanId, "the delivery row carried the context to the attempt");
    const post = webhookSpan("POST")!;
    t.is(post.kind, OtlpKind.CLIENT);
    t.is(post.parentSpanId, attempt.spanId);
    t.like(post.attributes, { "http.request.method": "POST", "server.address": "127.0.0.1", "http.response.status_code": 200, "webhook.result": "succeeded" });

    // The receiver sees the trace too, its parent the POST span.
    t.is(receiver.received[0]!.headers.traceparent, `00-${traceId}-${post.spanId}-01`);

    // The request's log lines carry the trace; the attempt's line too.
    const traced = lines.filter((line) => line.trace_id === traceId);
    t.like(
      traced.find((line) => line.msg === "request" && line.route === "/v1/orders"),
      { method: "POST", span_id: http.spanId },
    );
    t.truthy(traced.find((line) => line.msg === "webhook attempt"));
  });
}

test("each service its own process: the order's trace crosses gRPC to the catalog and NATS to the webhook attempt", async (t) => {
  const services = await createServices({
    natsUrl: SHARED_NATS_URL,
    // Each process exports on its own: in batches every 100 ms here (the SDK's default is 5 s).
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_BSP_SCHEDULE_DELAY: "100" },
  });
  cleanup.push(() => services.close());
  const receiver = await startHookReceiver();
  cleanup.push(() => receiver.close());
  await services.spawn("catalog");
  await services.spawn("webhook");
  await services.spawn("order");
  const store = await services.setUpStore(receiver.url);
  // The test's own call brings no trace: the order service starts one.
  await services.createOrder(store);
  await waitFor(() => receiver.received.length >= 1, 20_000);
  const traceId = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(String(receiver.received[0]!.headers.traceparent))?.[1];
  t.truthy(traceId, "the webhook request carries a traceparent");
  // Each process exports on its own schedule: the publisher's span may end (and leave)
  // after the consumer's, since JetStream can deliver before it acknowledges the publish.
  const complete = (found: ReturnType<typeof otlp.trace>) =>
    found.some((span) => span.name === "webhook attempt") &&
    found.some((span) => span.kind === OtlpKind.PRODUCER) &&
    found.some((span) => span.kind === OtlpKind.CONSUMER) &&
    found.some((span) => span.service === "catalog");
  await waitFor(() => complete(otlp.trace(traceId!)), 15_000, 100);
  const spans = otlp.trace(traceId!);
  t.deepEqual([...new Set(spans.map((span) => span.service))].sort(), ["catalog", "order", "webhook"]);
  const root = spans.find((span) => span.parentSpanId === "")!;
  t.like(root, { service: "order", name: "order.v1.OrderService/CreateOrder", kind: OtlpKind.SERVER });
  const catalogCall = spans.find((span) => span.service === "order" && span.kind === OtlpKind.CLIENT && span.name.startsWith("catalog."))!;
  t.truthy(spans.find((span) => span.service === "catalog" && span.parentSpanId === catalogCall.spanId), "the catalog process continued the call's trace");
  const publish = spans.find((span) => span.kind === OtlpKind.PRODUCER)!;
  t.is(spans.find((span) => span.kind === OtlpKind.CONSUMER)?.parentSpanId, publish.spanId);
  t.true(spans.some((span) => span.service === "webhook" && span.name === "POST"));
});
