import test from "ava";
import { api, waitFor } from "../helpers/http.js";
import { createTestDatabase } from "../helpers/db.js";
import { freePort, spawnEntry } from "../helpers/process.js";
import { startReceiver } from "../helpers/receiver.js";
import { buyer, createProduct, createStore, startStack } from "../helpers/stack.js";
import { createLogger } from "../../platform/logger.js";

/** The value of one sample in Prometheus text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(?:\{(.*)\})? ([0-9.e+-]+|NaN)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) return Number(match[3]);
  }
  return undefined;
}

test.serial("the gateway's public port does not serve /metrics: the JSON 404 of any unknown path", async (t) => {
  const stack = await startStack();
  try {
    const response = await api(stack.baseUrl, "/metrics");
    t.is(response.status, 404);
    t.deepEqual(response.body, { success: false, error: { code: "NOT_FOUND", message: "no route for GET /metrics" } });
    t.false(response.text.includes("http_requests_total"));
    // The request itself is counted, on the metrics port, as any unmatched one.
    const text = await (await fetch(stack.metricsUrl)).text();
    t.true((sample(text, "http_requests_total", { route: "unmatched", method: "GET", code: "404" }) ?? 0) >= 1);
  } finally {
    await stack.close();
  }
});

// The two tests that start a stack in this process run one after the other, this one
// last: the metrics registry and its gauges' sources are the process's, and a stack's
// sources outlive it, so a stack closed before another's scrape left that scrape reading
// an ended pool (CONNECTION_ENDED, a 500). The stack started last sets every source anew.
test.serial("the metrics port counts requests, gRPC calls, the outbox, webhook attempts and connections of every role", async (t) => {
  // Warnings kept, so a scrape that fails says which gauge could not be read.
  const warnings: string[] = [];
  const logger = createLogger("test", "warn", { write: (line: string) => void warnings.push(line) });
  const stack = await startStack({ webhooks: { bus: "in-process" }, logger });
  const receiver = await startReceiver();
  try {
    const shop = await createStore(stack);
    const product = await createProduct(stack, shop.storeId, "Kopi", 10_000);
    await stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: receiver.url });
    for (let n = 0; n < 3; n++) t.is((await api(stack.baseUrl, "/v1/products", { key: shop.key })).status, 200);
    await api(stack.baseUrl, "/v1/products?limit=0", { key: shop.key });
    const created = await api(stack.baseUrl, "/v1/orders", {
      method: "POST",
      key: shop.key,
      json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
    });
    t.is(created.status, 201);
    await waitFor(() => receiver.received.length >= 1);

    const response = await fetch(stack.metricsUrl);
    t.is(response.status, 200, warnings.filter((line) => line.includes("metrics")).join("\n"));
    t.regex(response.headers.get("content-type") ?? "", /^text\/plain/);
    const text = await response.text();
    t.true((sample(text, "http_requests_total", { route: "/v1/products", method: "GET", code: "200" }) ?? 0) >= 3);
    t.true((sample(text, "http_requests_total", { route: "/v1/products", method: "GET", code: "400" }) ?? 0) >= 1);
    t.true((sample(text, "http_request_duration_seconds_count", { route: "/v1/orders", method: "POST", code: "201" }) ?? 0) >= 1);
    t.true((sample(text, "rpc_calls_total", { side: "server", service: "order.v1.OrderService", method: "CreateOrder", code: "ok" }) ?? 0) >= 1);
    // The gateway caches catalog pages: three reads of one page ask the catalog once.
    t.true((sample(text, "rpc_calls_total", { side: "client", service: "catalog.v1.CatalogService", method: "ListPublishedItems", code: "ok" }) ?? 0) >= 1);
    t.true((sample(text, "rpc_call_duration_seconds_bucket", { side: "server", le: "+Inf" }) ?? 0) >= 1);
    t.not(sample(text, "outbox_backlog_events"), undefined);
    t.not(sample(text, "outbox_oldest_event_age_seconds"), undefined);
    t.is(sample(text, "stock_changes_backlog"), 0, "no order held stock, so no stock change waits");
    t.not(sample(text, "stock_changes_oldest_age_seconds"), undefined);
    t.true((sample(text, "webhook_attempts_total", { result: "succeeded" }) ?? 0) >= 1);
    t.true((sample(text, "webhook_delivery_latency_seconds_count") ?? 0) >= 1);
    t.true((sample(text, "db_connections", { service: "orders" }) ?? 0) >= 1);
    t.not(sample(text, "process_resident_memory_bytes"), undefined);
  } finally {
    await receiver.close();
    await stack.close();
  }
});

test("the gateway running alone serves /metrics on METRICS_PORT with its request metrics, and 404 on its public port", async (t) => {
  const db = await createTestDatabase();
  const [port, metricsPort] = [await freePort(), await freePort()];
  // Services that do not answer are enough: /healthz needs none of them.
  const [catalog, order, webhook] = [await freePort(), await freePort(), await freePort()];
  const gateway = spawnEntry("gateway/main.ts", {
    DATABASE_URL: db.url,
    HOST: "127.0.0.1",
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    CATALOG_ADDR: `http://127.0.0.1:${catalog}`,
    ORDER_ADDR: `http://127.0.0.1:${order}`,
    WEBHOOK_ADDR: `http://127.0.0.1:${webhook}`,
  });
  try {
    await gateway.waitFor(/metrics listening/);
    const base = `http://127.0.0.1:${port}`;
    t.is((await api(base, "/healthz")).status, 200);
    const onPublic = await api(base, "/metrics");
    t.is(onPublic.status, 404);
    t.is(onPublic.body?.error?.code, "NOT_FOUND");
    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    t.is(response.status, 200);
    t.regex(response.headers.get("content-type") ?? "", /^text\/plain/);
    const text = await response.text();
    t.true((sample(text, "http_requests_total", { route: "/healthz", method: "GET", code: "200" }) ?? 0) >= 1, text.slice(0, 2000));
    t.true((sample(text, "http_requests_total", { route: "unmatched", method: "GET", code: "404" }) ?? 0) >= 1);
    t.regex(text, /^process_cpu_user_seconds_total/m);
    const other = await fetch(`http://127.0.0.1:${metricsPort}/healthz`);
    t.is(other.status, 404);
    t.is(((await other.json()) as { error: { code: string } }).error.code, "NOT_FOUND");
  } finally {
    t.is(await gateway.stop(), 0, "exits 0 on SIGTERM");
    await db.drop();
  }
});

test("a service running alone serves /metrics on its own port", async (t) => {
  const db = await createTestDatabase();
  const [grpc, metricsPort] = [await freePort(), await freePort()];
  const catalog = spawnEntry("services/catalog/main.ts", {
    DATABASE_URL: db.url,
    CATALOG_ADDR: `http://127.0.0.1:${grpc}`,
    METRICS_PORT: String(metricsPort),
  });
  try {
    await catalog.waitFor(/metrics listening/);
    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    t.is(response.status, 200);
    const text = await response.text();
    t.regex(text, /^process_cpu_user_seconds_total/m);
    t.regex(text, /^# TYPE rpc_calls_total counter/m);
    t.is((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status, 404);
  } finally {
    await catalog.stop();
    await db.drop();
  }
});

test("the gateway's metrics listener binds loopback while the API takes every interface, and METRICS_HOST when set", async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  // The bound address, as the listener logs it (what the socket holds, not what was asked).
  const boundAddress = async (env: Record<string, string>) => {
    const [catalog, order, webhook] = [await freePort(), await freePort(), await freePort()];
    const gateway = spawnEntry("gateway/main.ts", {
      DATABASE_URL: db.url,
      HOST: "0.0.0.0",
      PORT: String(await freePort()),
      METRICS_HOST: undefined,
      CATALOG_ADDR: `http://127.0.0.1:${catalog}`,
      ORDER_ADDR: `http://127.0.0.1:${order}`,
      WEBHOOK_ADDR: `http://127.0.0.1:${webhook}`,
      ...env,
    });
    try {
      const [line] = await gateway.waitFor(/\{[^\n]*"msg":"metrics listening"[^\n]*\}/);
      const { address } = JSON.parse(line) as { address: string };
      // Scraped on loopback either way.
      t.is((await fetch(`http://127.0.0.1:${new URL(address).port}/metrics`)).status, 200);
      return new URL(address).hostname;
    } finally {
      await gateway.stop();
    }
  };
  const [byDefault, told] = await Promise.all([boundAddress({}), boundAddress({ METRICS_HOST: "0.0.0.0" })]);
  t.is(byDefault, "127.0.0.1", "HOST=0.0.0.0 is the API's, not the metrics'");
  t.is(told, "0.0.0.0");
});
