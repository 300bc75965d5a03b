// `npm run bench`: the product against same-run baselines, on this machine, over
// loopback, with real processes, PostgreSQL and NATS. See bench/README.md.
//   --duration S     seconds per HTTP scenario (10)
//   --connections N  autocannon connections (50)
//   --only a,b       scenarios by name
//   --scale          also run two instances of everything and compare
//   --soak S         also run the mixed scenario for S seconds and sample memory
//   --events N       status changes in the webhook scenario (1000)
//   --bank-orders N  pending orders before the 500-mutation reconciliation call (10000)
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import path from "node:path";
import http from "node:http";
import autocannon from "autocannon";
import postgres from "postgres";
import { CatalogService, ItemStatus, Plan, StoreService } from "../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../gen/order/v1/order_pb.js";
import { WebhookService } from "../gen/webhook/v1/webhook_pb.js";
import { createRpcChannel } from "../services/lib/rpc-client.js";
import { createTestDatabase } from "../test/helpers/db.js";
import { SHARED_NATS_URL, uniqueBusNames } from "../test/helpers/nats.js";
import { freePort, ROOT, spawnEntry, spawnProcess, type Spawned } from "../test/helpers/process.js";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    only: { type: "string" },
    scale: { type: "boolean", default: false },
    soak: { type: "string" },
    events: { type: "string", default: "1000" },
    "bank-orders": { type: "string", default: "10000" },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const only = args.only ? new Set(args.only.split(",")) : undefined;
const wanted = (name: string) => !only || only.has(name);
const children: Spawned[] = [];
const buyer = { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" };

interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  requests: number;
}
const rows: Row[] = [];

async function cannon(name: string, options: autocannon.Options): Promise<Row> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...options });
  const row = {
    scenario: name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    requests: result.requests.total,
  };
  rows.push(row);
  process.stdout.write(`  ${name.padEnd(34)} ${String(row.rps).padStart(7)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  non-2xx ${row.non2xx}  errors ${row.errors}\n`);
  return row;
}

function rss(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Waits until something accepts TCP connections on the port (logs are quiet at warn). */
async function waitForPort(port: number, child: Spawned, ms = 60_000) {
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

async function startProduct(db: string, bus: Record<string, string>, instance: number, shared?: Record<string, string>) {
  const ports = { catalog: await freePort(), order: await freePort(), webhook: await freePort(), gateway: await freePort() };
  const addrs = shared ?? {
    CATALOG_ADDR: `http://127.0.0.1:${ports.catalog}`,
    ORDER_ADDR: `http://127.0.0.1:${ports.order}`,
    WEBHOOK_ADDR: `http://127.0.0.1:${ports.webhook}`,
  };
  const own = {
    CATALOG_ADDR: `http://127.0.0.1:${ports.catalog}`,
    ORDER_ADDR: `http://127.0.0.1:${ports.order}`,
    WEBHOOK_ADDR: `http://127.0.0.1:${ports.webhook}`,
  };
  // BENCH_CPU_PROF=1 writes a V8 CPU profile of every product process on exit.
  const nodeArgs = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(ROOT, "bench", "results", "profiles")}`] : [];
  const run = (entry: string, env: Record<string, string>) => spawnProcess(process.execPath, [...nodeArgs, "--import", "tsx", entry], env);
  const env = {
    DATABASE_URL: db,
    NATS_URL: SHARED_NATS_URL,
    ...bus,
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_MINUTE: "1000000",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.gateway}`,
  };
  const spawned: Record<string, Spawned> = {};
  // Each instance listens on its own ports; the second gateway dials its own instances.
  for (const name of ["catalog", "webhook", "order"] as const) {
    const child = run(`services/${name}/main.ts`, { ...env, ...own, METRICS_PORT: String(await freePort()) });
    children.push(child);
    spawned[name] = child;
    await waitForPort(ports[name], child);
  }
  const gateway = run("gateway/main.ts", { ...env, ...own, PORT: String(ports.gateway) });
  children.push(gateway);
  spawned.gateway = gateway;
  await waitForPort(ports.gateway, gateway);
  process.stdout.write(`instance ${instance}: ${Object.entries(spawned).map(([name, child]) => `${name} pid ${child.child.pid}`).join(", ")}\n`);
  return { url: `http://127.0.0.1:${ports.gateway}`, addrs: { ...addrs, ...own }, spawned, instance };
}

async function main() {
  const started = Date.now();
  const db = await createTestDatabase("bench");
  const bus = uniqueBusNames("BENCH");
  process.stdout.write(`database ${db.name}, stream ${bus.EVENTS_STREAM}, ${CONNECTIONS} connections, ${DURATION} s per scenario\n`);
  const receiverHits: { at: number; body: string }[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      receiverHits.push({ at: Date.now(), body: Buffer.concat(chunks).toString("utf8") });
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;

  try {
    const one = await startProduct(db.url, bus, 1);
    const catalogChannel = createRpcChannel(one.addrs.CATALOG_ADDR, { timeoutMs: 30_000 });
    const orderChannel = createRpcChannel(one.addrs.ORDER_ADDR, { timeoutMs: 30_000 });
    const webhookChannel = createRpcChannel(one.addrs.WEBHOOK_ADDR, { timeoutMs: 30_000 });
    const stores = catalogChannel.client(StoreService);
    const catalog = catalogChannel.client(CatalogService);
    const orders = orderChannel.client(OrderService);
    const { store } = await stores.createStore({
      name: "Bench Store",
      plan: Plan.GROWTH,
      bankAccount: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "1234567890", accountHolder: "Bench" },
    });
    const storeId = store!.id;
    const productIds: string[] = [];
    for (let n = 0; n < 30; n++) {
      const { item } = await catalog.createProduct({ storeId, title: `Produk ${n}`, price: BigInt(10_007 + n * 1_013), status: ItemStatus.PUBLISHED });
      productIds.push(item!.id);
    }
    await catalog.createBundle({ storeId, title: "Paket", price: 50_000n, status: ItemStatus.PUBLISHED, productIds: productIds.slice(0, 3) });
    const key = (await stores.createApiKey({ storeId, name: "bench" })).secret;
    const auth = { authorization: `Bearer ${key}` };

    // Baselines share the database and the store.
    const sql = postgres(db.url, { max: 2, onnotice: () => {} });
    await sql.unsafe(`create schema if not exists bench;
      create table if not exists bench.orders (like orders.orders including all);
      create table if not exists bench.order_items (like orders.order_items including all);`);
    const baselinePort = await freePort();
    const baselines = spawnEntry("bench/baselines.ts", {}, [String(baselinePort), db.url, storeId]);
    children.push(baselines);
    await baselines.waitFor(/baselines listening/);
    const baseUrl = `http://127.0.0.1:${baselinePort}`;
    const productsBody = await (await fetch(`${one.url}/v1/products?limit=20`, { headers: auth })).text();
    await fetch(`${baseUrl}/bare`, { method: "PUT", body: productsBody });

    // One bank-transfer order to read back.
    const created = await fetch(`${one.url}/v1/orders`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ items: [{ product_id: productIds[0], quantity: 1 }, { product_id: productIds[1], quantity: 2 }], buyer, payment_method: "bank_transfer" }),
    });
    const orderId = ((await created.json()) as any).data.order.id as string;

    let quantity = 0;
    const orderBody = () => {
      // Vary the subtotal so unique transfer codes never run out during the run.
      quantity++;
      return JSON.stringify({
        items: [
          { product_id: productIds[quantity % 30], quantity: 1 + (quantity % 997) },
          { product_id: productIds[(quantity * 7 + 3) % 30], quantity: 1 + ((quantity * 13) % 991) },
        ],
        buyer,
        payment_method: "bank_transfer",
      });
    };

    process.stdout.write("\nbaselines\n");
    const bare = wanted("baseline-bare") ? await cannon("baseline: koa bare JSON", { url: `${baseUrl}/bare` }) : undefined;
    const koaSql = wanted("baseline-sql") ? await cannon("baseline: koa → postgres.js (20 rows)", { url: `${baseUrl}/sql/products` }) : undefined;
    const koaOrderSql = wanted("baseline-sql") ? await cannon("baseline: koa → postgres.js (order)", { url: `${baseUrl}/sql/orders/${orderId}` }) : undefined;
    const insert = wanted("baseline-insert") ? await cannon("baseline: transactional insert", { url: `${baseUrl}/sql/orders`, method: "POST" }) : undefined;

    process.stdout.write("\nproduct\n");
    const products = wanted("products") ? await cannon("GET /v1/products?limit=20", { url: `${one.url}/v1/products?limit=20`, headers: auth }) : undefined;
    const getOrder = wanted("order") ? await cannon("GET /v1/orders/{id}", { url: `${one.url}/v1/orders/${orderId}`, headers: auth }) : undefined;
    const listOrders = wanted("orders") ? await cannon("GET /v1/orders?limit=20", { url: `${one.url}/v1/orders?limit=20`, headers: auth }) : undefined;
    const createOrders = wanted("create")
      ? await cannon("POST /v1/orders (bank transfer)", {
          url: `${one.url}/v1/orders`,
          requests: [{ method: "POST", headers: { ...auth, "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: orderBody() }) }],
        })
      : undefined;

    // Webhook latency: N status changes, time from the change committing (the order's
    // updated_at) to the receiver having the signed request.
    let webhook: Record<string, number> | undefined;
    if (wanted("webhook")) {
      const events = Number(args.events);
      await webhookChannel.client(WebhookService).setEndpoint({ storeId, url: receiverUrl });
      const pending: string[] = [];
      for (let n = 0; n < events; n++) {
        const detail = await orders.createOrder({
          storeId,
          items: [{ ref: { case: "productId", value: productIds[n % 30]! }, quantity: 1 + (n % 500) }],
          buyer,
          paymentMethod: "qris",
          requestHash: "",
        });
        pending.push(detail.detail!.order!.id);
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      receiverHits.length = 0;
      // A steady 50 changes/s, the pace of a busy store rather than a flood.
      const interval = 20;
      const t0 = Date.now();
      for (const [n, id] of pending.entries()) {
        const due = t0 + n * interval;
        if (Date.now() < due) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        await orders.markOrderPaid({ storeId, orderId: id });
      }
      const deadline = Date.now() + 60_000;
      const paidCount = () => receiverHits.filter((hit) => hit.body.startsWith('{"type":"order.paid"')).length;
      while (paidCount() < events && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const latencies = receiverHits
        .map((hit) => ({ hit, event: JSON.parse(hit.body) }))
        .filter(({ event }) => event.type === "order.paid")
        .map(({ hit, event }) => hit.at - Date.parse(event.data.order.updated_at))
        .sort((a, b) => a - b);
      const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
      webhook = { events: latencies.length, p50: pct(50), p90: pct(90), p99: pct(99), max: latencies.at(-1) ?? NaN };
      process.stdout.write(`  webhook: ${webhook.events} order.paid deliveries at 50 changes/s: p50 ${webhook.p50} ms  p90 ${webhook.p90} ms  p99 ${webhook.p99} ms  max ${webhook.max} ms\n`);
    }

    // Reconciliation: a bank feed's 500-mutation call against a store with 10,000
    // pending bank-transfer orders (CONTRACT §11).
    let bank: Record<string, number> | undefined;
    if (wanted("bank")) {
      const pendingOrders = Number(args["bank-orders"]);
      process.stdout.write(`\nbank: creating ${pendingOrders} pending bank-transfer orders\n`);
      const amounts: bigint[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < pendingOrders) {
            const n = next++;
            const detail = await orders.createOrder({
              storeId,
              items: [{ ref: { case: "productId", value: productIds[n % 30]! }, quantity: 1 + Math.floor(n / 30) }],
              buyer,
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
      const t0 = performance.now();
      const response = await fetch(`${one.url}/v1/bank-mutations`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ mutations }),
      });
      const ms = performance.now() - t0;
      const results = ((await response.json()) as any).data?.results ?? [];
      const matched = results.filter((r: { result: string }) => r.result === "matched").length;
      bank = { orders: pendingOrders, mutations: mutations.length, matched, ms: Math.round(ms), perSecond: Math.round((matched / ms) * 1000) };
      process.stdout.write(`  bank: ${response.status}, ${matched} of ${mutations.length} matched in ${bank.ms} ms: ${bank.perSecond} mutations matched/s\n`);
    }

    let scale: Record<string, number> | undefined;
    if (args.scale) {
      process.stdout.write("\nscale out: two of every process against the same PostgreSQL and NATS\n");
      const single = products ?? (await cannon("1×: GET /v1/products?limit=20", { url: `${one.url}/v1/products?limit=20`, headers: auth }));
      const two = await startProduct(db.url, bus, 2);
      const [a, b] = await Promise.all([
        cannon("2×: gateway 1 products", { url: `${one.url}/v1/products?limit=20`, headers: auth, connections: Math.ceil(CONNECTIONS / 2) }),
        cannon("2×: gateway 2 products", { url: `${two.url}/v1/products?limit=20`, headers: auth, connections: Math.ceil(CONNECTIONS / 2) }),
      ]);
      scale = { single: single.rps, double: a.rps + b.rps, ratio: (a.rps + b.rps) / single.rps };
      process.stdout.write(`  two instances serve ${scale.double} req/s vs ${scale.single}: ${scale.ratio!.toFixed(2)}×\n`);
    }

    let soak: { seconds: number; samples: Record<string, number[]> } | undefined;
    if (args.soak) {
      const seconds = Number(args.soak);
      process.stdout.write(`\nsoak: mixed scenario for ${seconds} s, resident memory every 10 s\n`);
      const samples: Record<string, number[]> = { catalog: [], order: [], webhook: [], gateway: [] };
      const sample = () => {
        for (const name of Object.keys(samples)) samples[name]!.push(rss(one.spawned[name]!.child.pid));
      };
      sample();
      const timer = setInterval(sample, 10_000);
      let n = 0;
      await autocannon({
        connections: CONNECTIONS,
        duration: seconds,
        requests: [
          {
            setupRequest: (req) => {
              n++;
              if (n % 10 === 0) return { ...req, method: "POST", path: "/v1/orders", headers: { ...auth, "content-type": "application/json" }, body: orderBody() };
              if (n % 3 === 0) return { ...req, method: "GET", path: `/v1/orders/${orderId}`, headers: auth };
              if (n % 3 === 1) return { ...req, method: "GET", path: "/v1/orders?limit=20", headers: auth };
              return { ...req, method: "GET", path: "/v1/products?limit=20", headers: auth };
            },
          },
        ],
        url: one.url,
      });
      clearInterval(timer);
      sample();
      soak = { seconds, samples };
      for (const [name, list] of Object.entries(samples)) {
        const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0);
        process.stdout.write(`  ${name.padEnd(8)} RSS ${list.map(mb).join(" → ")} MiB\n`);
      }
    }

    const ratio = (a?: Row, b?: Row) => (a && b ? Math.round((a.rps / b.rps) * 100) / 100 : undefined);
    const ratios = {
      "products / koa→postgres.js": ratio(products, koaSql),
      "order read / koa→postgres.js": ratio(getOrder, koaSql),
      "order read / koa→postgres.js (order queries)": ratio(getOrder, koaOrderSql),
      "order list / koa→postgres.js": ratio(listOrders, koaSql),
      "create order / transactional insert": ratio(createOrders, insert),
      "products / koa bare": ratio(products, bare),
    };
    process.stdout.write("\nratios (same run)\n");
    for (const [name, value] of Object.entries(ratios)) if (value !== undefined) process.stdout.write(`  ${name.padEnd(46)} ${value.toFixed(2)}\n`);

    const resultsDir = path.join(ROOT, "bench", "results");
    await mkdir(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    await writeFile(
      file,
      JSON.stringify({ at: new Date().toISOString(), node: process.version, connections: CONNECTIONS, duration: DURATION, rows, ratios, webhook, bank, scale, soak }, null, 2),
    );
    process.stdout.write(`\nresults: ${path.relative(ROOT, file)} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    catalogChannel.close();
    orderChannel.close();
    webhookChannel.close();
    await sql.end();
  } finally {
    for (const child of children.reverse()) await child.stop("SIGTERM", 5_000);
    receiver.close();
    await db.drop();
  }
}

await main();
