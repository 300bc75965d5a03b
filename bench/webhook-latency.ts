// Webhook latency: from an order's status change committing to the receiver getting
// the signed request, through the whole path (outbox → NATS JetStream → durable
// consumer → delivery worker → HTTP).
//
//   node --import tsx bench/webhook-latency.ts
//
// The catalog, order and webhook services run in this one process (as
// test/helpers/stack.ts does) on real loopback gRPC ports, with NATS JetStream on the
// shared server (NATS_URL, default nats://127.0.0.1:4222) under stream and consumer
// names of this run's own, and PostgreSQL from DATABASE_URL or a fresh database on
// TEST_POSTGRES_URL's server. A loopback HTTP receiver answers 200 at once.
//
// Load: BENCH_ORDERS orders (default 500) are created at a steady BENCH_RATE per
// second (default 100), then each is marked paid at the same pace: 2 × BENCH_ORDERS
// status changes and 3 × BENCH_ORDERS events. For every event the latency is the
// receiver's clock at arrival minus `data.order.updated_at` from the body (the
// change's time, written in its transaction); for `order.paid` it is also measured
// from the moment the MarkOrderPaid call returned (after the commit).
//
// Prints count, p50, p90, p99 and max in ms and writes the JSON to
// bench/results/webhook-latency-<timestamp>.json.
import { mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import { CatalogService, ItemStatus, Plan, StoreService } from "../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../gen/order/v1/order_pb.js";
import { WebhookService } from "../gen/webhook/v1/webhook_pb.js";
import { CATALOG_SCHEMA, startCatalogService } from "../services/catalog/service.js";
import { ORDER_SCHEMA, startOrderService } from "../services/order/service.js";
import { startWebhookService, WEBHOOK_SCHEMA } from "../services/webhook/service.js";
import { createJetStreamBus } from "../services/lib/bus.js";
import { loadConfig } from "../services/lib/config.js";
import { connectDb } from "../services/lib/db.js";
import { createLogger } from "../services/lib/logger.js";
import { createRpcChannel } from "../services/lib/rpc-client.js";
import { createTestDatabase } from "../test/helpers/db.js";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 500);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const NATS_URL = process.env.NATS_URL ?? process.env.TEST_NATS_URL ?? "nats://127.0.0.1:4222";
const here = path.dirname(fileURLToPath(import.meta.url));

interface Arrival {
  id: string;
  type: string;
  orderId: string;
  updatedAt: number;
  at: number;
}

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const pick = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    count: sorted.length,
    p50: round(pick(50)),
    p90: round(pick(90)),
    p99: round(pick(99)),
    max: round(sorted.at(-1) ?? NaN),
    mean: round(sorted.reduce((sum, n) => sum + n, 0) / (sorted.length || 1)),
    min: round(sorted[0] ?? NaN),
  };
}

/** Runs `task(i)` for i < n, starting one every 1000/rate ms whatever the others do. */
async function paced<T>(n: number, rate: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const started = performance.now();
  const interval = 1_000 / rate;
  const running: Promise<T>[] = [];
  for (let i = 0; i < n; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    running.push(task(i));
  }
  return Promise.all(running);
}

async function main() {
  const logger = createLogger("bench", process.env.LOG_LEVEL ?? "warn");
  const testDb = process.env.DATABASE_URL ? undefined : await createTestDatabase("bench");
  const dbUrl = process.env.DATABASE_URL ?? testDb!.url;
  const tag = `BENCH_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`.toUpperCase();
  const names = { stream: tag, consumer: `c-${tag.toLowerCase()}` };

  // The receiver: first arrival per webhook-id counts.
  const arrivals = new Map<string, Arrival>();
  let requests = 0;
  let onArrival = () => {};
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const at = Date.now();
      requests++;
      res.writeHead(200).end();
      const id = String(req.headers["webhook-id"]);
      if (arrivals.has(id)) return;
      const event = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      arrivals.set(id, { id, type: event.type, orderId: event.data.order.id, updatedAt: Date.parse(event.data.order.updated_at), at });
      onArrival();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const catalogSql = connectDb(dbUrl, { schema: CATALOG_SCHEMA, max: 4 });
  const catalog = await startCatalogService({ sql: catalogSql, logger, host: "127.0.0.1", port: 0 });
  const catalogAddr = `http://127.0.0.1:${catalog.port}`;
  const bus = await createJetStreamBus(NATS_URL, names, logger);
  const webhookSql = connectDb(dbUrl, { schema: WEBHOOK_SCHEMA, max: 8 });
  const webhook = await startWebhookService({
    sql: webhookSql,
    logger,
    config: loadConfig({ WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" }),
    bus,
    host: "127.0.0.1",
    port: 0,
  });
  const orderSql = connectDb(dbUrl, { schema: ORDER_SCHEMA, max: 10 });
  const order = await startOrderService({
    sql: orderSql,
    logger,
    config: loadConfig({ CATALOG_ADDR: catalogAddr }),
    host: "127.0.0.1",
    port: 0,
    bus,
  });

  const catalogChannel = createRpcChannel(catalogAddr, { timeoutMs: 30_000 });
  const orderChannel = createRpcChannel(`http://127.0.0.1:${order.port}`, { timeoutMs: 30_000 });
  const webhookChannel = createRpcChannel(`http://127.0.0.1:${webhook.port}`, { timeoutMs: 30_000 });
  const stores = catalogChannel.client(StoreService);
  const products = catalogChannel.client(CatalogService);
  const orders = orderChannel.client(OrderService);
  const webhooks = webhookChannel.client(WebhookService);

  const { store } = await stores.createStore({
    name: "Bench Store",
    plan: Plan.GROWTH,
    bankAccount: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "Bench" },
  });
  const storeId = store!.id;
  const { item } = await products.createProduct({ storeId, title: "Kopi", price: 25_000n, status: ItemStatus.PUBLISHED });
  await webhooks.setEndpoint({ storeId, url: receiverUrl });

  const expected = ORDERS * 3;
  const allArrived = new Promise<void>((resolve) => {
    onArrival = () => arrivals.size >= expected && resolve();
  });

  // How busy this process's event loop is (everything here shares it): a loop near 1.0
  // means the numbers measure this machine's CPU more than the pipeline's waits.
  const eluStart = performance.eventLoopUtilization();
  const cpuStart = process.cpuUsage();
  console.log(`creating ${ORDERS} orders at ${RATE}/s, then marking each paid at ${RATE}/s (NATS ${NATS_URL}, stream ${tag})`);
  const runStarted = Date.now();
  const created = await paced(ORDERS, RATE, async () => {
    const response = await orders.createOrder({
      storeId,
      items: [{ ref: { case: "productId", value: item!.id }, quantity: 1 }],
      buyer: { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" },
      paymentMethod: "bank_transfer",
      requestHash: "",
    });
    return response.detail!.order!.id;
  });
  const paidReturnedAt = new Map<string, number>();
  await paced(ORDERS, RATE, async (i) => {
    await orders.markOrderPaid({ storeId, orderId: created[i]! });
    paidReturnedAt.set(created[i]!, Date.now());
  });
  const loadMs = Date.now() - runStarted;
  const eluLoad = performance.eventLoopUtilization(eluStart);

  const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 120_000).unref());
  if ((await Promise.race([allArrived, timeout])) === "timeout") {
    console.error(`only ${arrivals.size} of ${expected} events arrived within 120 s after the load`);
  }
  const drainedMs = Date.now() - runStarted;
  const eluAll = performance.eventLoopUtilization(eluStart);
  const cpu = process.cpuUsage(cpuStart);

  const all = [...arrivals.values()];
  const latency = (list: Arrival[]) => stats(list.map((a) => a.at - a.updatedAt));
  const paid = all.filter((a) => a.type === "order.paid");
  const results = {
    benchmark: "webhook-latency",
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}` },
    setup: {
      processes: "catalog + order + webhook in one process; NATS JetStream (shared server, own stream); real PostgreSQL; loopback receiver answering 200",
      orders: ORDERS,
      ratePerSecond: RATE,
      statusChanges: ORDERS * 2,
      eventsExpected: expected,
      eventsReceived: arrivals.size,
      requestsReceived: requests,
      loadSeconds: Math.round(loadMs / 100) / 10,
      untilLastArrivalSeconds: Math.round(drainedMs / 100) / 10,
      eventLoopUtilization: { duringLoad: Math.round(eluLoad.utilization * 100) / 100, wholeRun: Math.round(eluAll.utilization * 100) / 100 },
      processCpuSeconds: Math.round((cpu.user + cpu.system) / 1e5) / 10,
    },
    latencyMs: {
      "all events (from data.order.updated_at)": latency(all),
      "order.created (from data.order.updated_at)": latency(all.filter((a) => a.type === "order.created")),
      "order.paid (from data.order.updated_at)": latency(paid),
      "orderUpdated (from data.order.updated_at)": latency(all.filter((a) => a.type === "orderUpdated")),
      "order.paid (from MarkOrderPaid returning)": stats(
        paid.filter((a) => paidReturnedAt.has(a.orderId)).map((a) => a.at - paidReturnedAt.get(a.orderId)!),
      ),
    },
  };

  console.log(
    `${arrivals.size}/${expected} events received (${requests} requests); load took ${results.setup.loadSeconds} s, ` +
      `last arrival at ${results.setup.untilLastArrivalSeconds} s; event loop busy ${results.setup.eventLoopUtilization.duringLoad} ` +
      `during load, ${results.setup.eventLoopUtilization.wholeRun} overall; ${results.setup.processCpuSeconds} s CPU`,
  );
  console.table(results.latencyMs);
  const outDir = path.join(here, "results");
  await mkdir(outDir, { recursive: true });
  const file = path.join(outDir, `webhook-latency-${results.at.replace(/[:.]/g, "-")}.json`);
  await writeFile(file, JSON.stringify(results, null, 2) + "\n");
  console.log(`wrote ${path.relative(process.cwd(), file)}`);

  catalogChannel.close();
  orderChannel.close();
  webhookChannel.close();
  await order.close(100);
  await webhook.close(100);
  await catalog.close(100);
  // Remove this run's stream (and its consumer) from the shared server.
  try {
    const { connect } = await import("@nats-io/transport-node");
    const { jetstreamManager } = await import("@nats-io/jetstream");
    const nc = await connect({ servers: NATS_URL });
    await (await jetstreamManager(nc)).streams.delete(tag);
    await nc.close();
  } catch {}
  await bus.close();
  await Promise.all([catalogSql, orderSql, webhookSql].map((sql) => sql.end({ timeout: 1 })));
  await testDb?.drop();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  if (arrivals.size < expected) process.exitCode = 1;
}

await main();
