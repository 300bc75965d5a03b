// The bench's harness: the product's processes, each started from its entry point as
// in production, and one autocannon run as a row of the results. Shared by the runner
// (run.ts) and the data-scale suite (scale.ts).
import path from "node:path";
import type { Client } from "@connectrpc/connect";
import autocannon from "autocannon";
import type { OrderService } from "../gen/order/v1/order_pb.js";
import { makeInternalToken } from "../platform/rpc-auth.js";
import { SHARED_NATS_URL } from "../test/helpers/nats.js";
import { freePort, ROOT, spawnProcess, type Spawned } from "../test/helpers/process.js";

/** Every process the bench started, stopped (newest first) when it ends. */
export const children: Spawned[] = [];
/** The internal token of every product process this bench starts, and of its own gRPC clients. */
export const BENCH_INTERNAL_TOKEN = makeInternalToken();

export interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  /** Mean latency (ms): the "time" a scale ratio compares. */
  mean: number;
  non2xx: number;
  /** How many answers of each status other than 2xx (which ones tells why). */
  statuses?: Record<string, number>;
  errors: number;
  requests: number;
  /** CPU the product's processes spent per request (the product scenarios of run.ts). */
  cpuMsPerRequest?: number;
}

/** One autocannon run, as a row. */
export async function measure(name: string, options: autocannon.Options): Promise<Row> {
  const result = await autocannon(options);
  return rowOf(name, result);
}

export function rowOf(name: string, result: autocannon.Result): Row {
  return {
    scenario: name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: Math.round(result.latency.average * 100) / 100,
    non2xx: result.non2xx,
    statuses: result.non2xx ? nonSuccessStatuses(result) : undefined,
    errors: result.errors + result.timeouts,
    requests: result.requests.total,
  };
}

/** "non-2xx 25 (25× 503)": which statuses, not only how many. */
export function statusText(row: Pick<Row, "statuses">): string {
  return row.statuses ? ` (${Object.entries(row.statuses).map(([code, n]) => `${n}× ${code}`).join(", ")})` : "";
}

function nonSuccessStatuses(result: autocannon.Result): Record<string, number> {
  const stats = (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  return Object.fromEntries(Object.entries(stats).filter(([code]) => !code.startsWith("2")).map(([code, { count }]) => [code, count]));
}

/** Waits until something accepts TCP connections on the port (logs are quiet at warn). */
export async function waitForPort(port: number, child: Spawned, ms = 60_000) {
  const { connect } = await import("node:net");
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (child.child.exitCode !== null || Date.now() > deadline) throw new Error(`not listening on ${port}:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * One instance of every product process (catalog, webhook, order, gateway) on ports of
 * its own (or `ports`, to start one again where it was); `extraEnv` is added to every
 * process's environment.
 */
export async function startProduct(db: string, bus: Record<string, string>, instance: number, extraEnv: Record<string, string> = {}, given?: ProductPorts) {
  const ports: ProductPorts = given ?? { catalog: await freePort(), order: await freePort(), webhook: await freePort(), gateway: await freePort() };
  const own = {
    CATALOG_ADDR: `http://127.0.0.1:${ports.catalog}`,
    ORDER_ADDR: `http://127.0.0.1:${ports.order}`,
    WEBHOOK_ADDR: `http://127.0.0.1:${ports.webhook}`,
  };
  const env = { ...productEnv(db, bus, ports.gateway), ...extraEnv };
  const spawned: Record<string, Spawned> = {};
  // Each instance listens on its own ports; the second gateway dials its own instances.
  for (const name of ["catalog", "webhook", "order"] as const) {
    const child = runProduct(`services/${name}/main.ts`, { ...env, ...own, METRICS_PORT: String(await freePort()) });
    children.push(child);
    spawned[name] = child;
    await waitForPort(ports[name], child);
  }
  const gateway = runProduct("gateway/main.ts", { ...env, ...own, PORT: String(ports.gateway), METRICS_PORT: String(await freePort()) });
  children.push(gateway);
  spawned.gateway = gateway;
  await waitForPort(ports.gateway, gateway);
  process.stdout.write(`instance ${instance}: ${Object.entries(spawned).map(([name, child]) => `${name} pid ${child.child.pid}`).join(", ")}\n`);
  return { url: `http://127.0.0.1:${ports.gateway}`, addrs: own, spawned, instance, ports };
}

export interface ProductPorts {
  catalog: number;
  order: number;
  webhook: number;
  gateway: number;
}

/** What every product process is started with: the bench's database and NATS, quiet logs, no rate limit to speak of. */
export function productEnv(db: string, bus: Record<string, string>, gatewayPort: number): Record<string, string> {
  return {
    DATABASE_URL: db,
    NATS_URL: SHARED_NATS_URL,
    ...bus,
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_MINUTE: "1000000",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
    // Authenticated internal calls, as in production; the bench's own clients carry it too.
    INTERNAL_TOKEN: BENCH_INTERNAL_TOKEN,
  };
}

/** A product process from its entry point; BENCH_CPU_PROF=1 writes its V8 CPU profile on exit. */
export function runProduct(entry: string, env: Record<string, string>, args: string[] = []): Spawned {
  const nodeArgs = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(ROOT, "bench", "results", "profiles")}`] : [];
  return spawnProcess(process.execPath, [...nodeArgs, "--import", "tsx", entry, ...args], env);
}

export type Product = Awaited<ReturnType<typeof startProduct>>;

/** Stops one instance's processes (the gateway first) and forgets them. */
export async function stopProduct(product: Product) {
  for (const name of ["gateway", "order", "webhook", "catalog"]) {
    const child = product.spawned[name];
    if (!child) continue;
    await child.stop("SIGTERM", 5_000);
    children.splice(children.indexOf(child), 1);
  }
}

/** The buyer of every order the benches make. */
export const BENCH_BUYER = { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" };

/**
 * Bodies for POST /v1/orders, one per call: bank transfers of two of the first 30
 * products with varied quantities, so the subtotals vary and unique transfer codes
 * never run out during a run.
 */
export function bankTransferOrderBodies(productIds: string[]): () => string {
  let n = 0;
  return () => {
    n++;
    return JSON.stringify({
      items: [
        { product_id: productIds[n % 30], quantity: 1 + (n % 997) },
        { product_id: productIds[(n * 7 + 3) % 30], quantity: 1 + ((n * 13) % 991) },
      ],
      buyer: BENCH_BUYER,
      payment_method: "bank_transfer",
    });
  };
}

/**
 * The reconciliation call (docs/reconciliation.md#the-api) both suites measure: `pendingOrders`
 * bank-transfer orders made through the order service, `concurrency` at a time, then
 * one POST /v1/bank-mutations with credits for the first 500 of their amounts.
 */
export async function bankMutationBatch(args: {
  orders: Client<typeof OrderService>;
  storeId: string;
  productIds: string[];
  pendingOrders: number;
  concurrency: number;
  url: string;
  auth: Record<string, string>;
}): Promise<{ status: number; matched: number; mutations: number; ms: number }> {
  const amounts: bigint[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: args.concurrency }, async () => {
      while (next < args.pendingOrders) {
        const n = next++;
        const detail = await args.orders.createOrder({
          storeId: args.storeId,
          items: [{ ref: { case: "productId", value: args.productIds[n % 30]! }, quantity: 1 + Math.floor(n / 30) }],
          buyer: BENCH_BUYER,
          paymentMethod: "bank_transfer",
          requestHash: "",
        });
        amounts.push(detail.detail!.payment!.sellerBank!.transferAmount);
      }
    }),
  );
  const mutations = amounts.slice(0, 500).map((amount, n) => ({
    id: `BENCH-${Date.now()}-${n}`,
    amount: Number(amount),
    type: "credit",
    occurred_at: new Date(Date.now() + 1_000).toISOString(),
    description: `TRSF E-BANKING CR ${n}`,
  }));
  const started = performance.now();
  const response = await fetch(`${args.url}/v1/bank-mutations`, {
    method: "POST",
    headers: { ...args.auth, "content-type": "application/json" },
    body: JSON.stringify({ mutations }),
  });
  const ms = performance.now() - started;
  const results = ((await response.json()) as { data?: { results?: { result: string }[] } }).data?.results ?? [];
  return { status: response.status, matched: results.filter((r) => r.result === "matched").length, mutations: mutations.length, ms };
}
