import http from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import client from "prom-client";
import type { Sql } from "./db.js";
import type { Logger } from "./logger.js";

// One registry per process. When `npm start` runs every role in one process they all
// report here, and its one metrics listener (cli/start-all.ts) shows everything.
export const registry = client.register;
client.collectDefaultMetrics({ register: registry });

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new client.Counter({
  name: "http_requests_total",
  help: "Gateway HTTP requests by route, method and status code.",
  labelNames: ["route", "method", "code"],
});
export const httpDuration = new client.Histogram({
  name: "http_request_duration_seconds",
  help: "Gateway HTTP request latency by route, method and status code.",
  labelNames: ["route", "method", "code"],
  buckets: latencyBuckets,
});

const rpcLabels = ["side", "service", "method", "code"] as const;
export const rpcCalls = new client.Counter({
  name: "rpc_calls_total",
  help: "Internal gRPC calls by side (server/client), service, method and status code.",
  labelNames: rpcLabels,
});
export const rpcDuration = new client.Histogram({
  name: "rpc_call_duration_seconds",
  help: "Internal gRPC call latency by side, service, method and status code.",
  labelNames: rpcLabels,
  buckets: latencyBuckets,
});

/** Counts and times every call through a Connect server or client. */
export function rpcMetricsInterceptor(side: "server" | "client"): Interceptor {
  return (next) => async (request) => {
    const started = performance.now();
    const labels = { side, service: request.service.typeName, method: request.method.name, code: "ok" };
    try {
      return await next(request);
    } catch (error) {
      labels.code = Code[ConnectError.from(error).code] ?? "unknown";
      throw error;
    } finally {
      rpcCalls.inc(labels);
      rpcDuration.observe(labels, (performance.now() - started) / 1000);
    }
  };
}

type Backlog = { count: number; oldestSeconds: number };

/**
 * Two gauges of one relay's queue, how many wait and the oldest one's age, read with
 * one query per scrape from the source the service sets (none set: the gauges stay out).
 */
function backlogGauges(count: { name: string; help: string }, oldest: { name: string; help: string }) {
  let source: (() => Promise<Backlog>) | undefined;
  let reading: Promise<Backlog> | undefined;
  const read = () =>
    (reading ??= source!().finally(() => {
      reading = undefined;
    }));
  new client.Gauge({
    ...count,
    async collect() {
      if (source) this.set((await read()).count);
    },
  });
  new client.Gauge({
    ...oldest,
    async collect() {
      if (source) this.set((await read()).oldestSeconds);
    },
  });
  return (from: () => Promise<Backlog>) => {
    source = from;
  };
}

/** The order service tells the metrics where its outbox backlog comes from. */
export const setOutboxSource = backlogGauges(
  { name: "outbox_backlog_events", help: "Order events written but not yet handed to the bus." },
  { name: "outbox_oldest_event_age_seconds", help: "Age of the oldest event still waiting in the outbox (0 when none waits)." },
);

/** The order service tells the metrics where its stock changes' backlog comes from (docs/orders.md#stock). */
export const setStockChangesSource = backlogGauges(
  { name: "stock_changes_backlog", help: "Stock changes of orders written but not yet applied by the catalog." },
  { name: "stock_changes_oldest_age_seconds", help: "Age of the oldest stock change still waiting for the catalog (0 when none waits)." },
);

/** What the webhook service reports of its backlog at each scrape. */
export interface WebhookBacklogSources {
  /** Deliveries not yet succeeded or failed for good: due, or waiting for a retry. */
  deliveriesWaiting(): Promise<number>;
  /** Order events in JetStream the shared consumer has not taken yet (0 on the in-process bus). */
  consumerPending(): Promise<number>;
}
let webhookBacklog: WebhookBacklogSources | undefined;

/** The webhook service tells the metrics where its backlog comes from. */
export function setWebhookBacklogSources(sources: WebhookBacklogSources) {
  webhookBacklog = sources;
}

new client.Gauge({
  name: "webhook_deliveries_waiting",
  help: "Webhook deliveries due or waiting for a retry (not yet succeeded or failed for good).",
  async collect() {
    if (webhookBacklog) this.set(await webhookBacklog.deliveriesWaiting().catch(() => Number.NaN));
  },
});
new client.Gauge({
  name: "nats_consumer_pending_messages",
  help: "Order events in JetStream not yet taken by the webhook service's durable consumer.",
  async collect() {
    if (webhookBacklog) this.set(await webhookBacklog.consumerPending().catch(() => Number.NaN));
  },
});

export const webhookAttempts = new client.Counter({
  name: "webhook_attempts_total",
  help: "Webhook delivery attempts by result (succeeded, http_error, timeout, network_error, refused).",
  labelNames: ["result"],
});
export const webhookAttemptDuration = new client.Histogram({
  name: "webhook_attempt_duration_seconds",
  help: "Time of one webhook HTTP attempt, by result.",
  labelNames: ["result"],
  buckets: [...latencyBuckets, 15],
});
export const webhookDeliveryLatency = new client.Histogram({
  name: "webhook_delivery_latency_seconds",
  help: "Time from an event being recorded for delivery to its successful attempt.",
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 1800, 7200, 36000],
});

const dbSources = new Map<string, Sql>();
/** A service registers its pool; connections are read from pg_stat_activity by name. */
export function registerDbPool(service: string, sql: Sql) {
  // Re-registered at the end of the map: a process that starts roles again (a test
  // file's second stack) asks its newest pools first.
  dbSources.delete(service);
  dbSources.set(service, sql);
}

type ActivityRow = { application_name: string; state: string | null; count: number };

/** This process's connections by pool, asked through the newest pool that still answers. */
async function processConnections(): Promise<ActivityRow[]> {
  for (const sql of [...dbSources.values()].reverse()) {
    try {
      return await sql<ActivityRow[]>`
        select application_name, state, count(*)::int as count from pg_stat_activity
        where application_name like ${`store-order/${process.pid}/%`}
        group by application_name, state`;
    } catch {
      // An ended pool (its roles stopped) or a database away: try the next, else none.
    }
  }
  return [];
}

new client.Gauge({
  name: "db_connections",
  help: "This process's PostgreSQL connections by service and state (active, idle, …).",
  labelNames: ["service", "state"],
  async collect() {
    const rows = await processConnections();
    this.reset();
    for (const row of rows) {
      this.set({ service: row.application_name.split("/")[2] ?? "", state: row.state ?? "unknown" }, row.count);
    }
  },
});

export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/**
 * /metrics of a role, on a port of its own beside the one it serves on: `where.port`
 * (METRICS_PORT), else that port + 1000 (a service's gRPC port, 50051 → 51051; the
 * gateway's PORT, 8080 → 9080; a role on port 0 gets any free port), bound to
 * `where.host` (METRICS_HOST, loopback unless told). Never the gateway's public port or
 * address: what the process is doing is for operators, not for every client. A port
 * already taken only costs the metrics, never the role.
 */
export async function startServiceMetrics(besidePort: number, where: { host: string; port?: number }, logger: Logger) {
  try {
    return await startMetricsServer(where.host, where.port ?? (besidePort === 0 ? 0 : besidePort + 1000), logger);
  } catch (error) {
    logger.warn({ err: (error as Error).message }, "metrics listener not started");
    return { port: 0, close: async () => {} };
  }
}

/**
 * A plain HTTP/1.1 listener for /metrics alone (a service's h2c port cannot answer an
 * HTTP/1.1 scraper, and the gateway's public port does not answer it at all).
 */
export async function startMetricsServer(host: string, port: number, logger: Logger) {
  const server = http.createServer((req, res) => {
    if (req.method === "GET" && req.url?.split("?")[0] === "/metrics") {
      metricsText().then(
        ({ contentType, body }) => {
          res.writeHead(200, { "content-type": contentType });
          res.end(body);
        },
        (error: unknown) => {
          // A gauge that could not be read (the outbox's query while PostgreSQL is away)
          // fails this scrape at once, rather than leaving the scraper to its timeout.
          logger.warn({ err: (error as Error).message }, "metrics scrape failed");
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ success: false, error: { code: "INTERNAL_ERROR", message: "the metrics could not be collected" } }));
        },
      );
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ success: false, error: { code: "NOT_FOUND", message: "only GET /metrics is served here" } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  // The address as bound, not as asked: what an operator checks the exposure by.
  const bound = server.address() as AddressInfo;
  const shown = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  logger.info({ address: `http://${shown}:${bound.port}/metrics` }, "metrics listening");
  return {
    port: bound.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
