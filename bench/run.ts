// `npm run bench`: the product against same-run baselines, on this machine, over
// loopback, with real processes, PostgreSQL and NATS. See bench/README.md.
//   --duration S     seconds per HTTP scenario (10)
//   --connections N  autocannon connections (50)
//   --only a,b       scenarios by name
//   --scale          instead: every scenario at 10,000 orders and at 1,000,000, side by side
//                    (bench/scale.ts, seeded by bench/seed-scale.ts)
//   --scale-orders N the larger store (1000000); --scale-base N the smaller (10000)
//   --scale-connections N  connections in the scale scenarios (10)
//   --scale-keep     keep the largest store's database afterwards, for EXPLAIN
//   --expiring N     orders expiring at once in the scale run (50000)
//   --scale-out      also run two instances of everything and compare
//   --soak S         also run the mixed scenario for S seconds and sample memory
//   --events N       status changes in the webhook scenario (1000)
//   --bank-orders N  pending orders before the 500-mutation reconciliation call (10000; 1000 with --scale)
//   --capacity       also find how many orders/s (and per day) one box carries with p99 < 100 ms
//   --one-process    also run the HTTP scenarios against every role in one process
//                    (startAll, as `npm start`), over loopback gRPC and in process
// RPC_TRANSPORT=lean|connect in the environment: how the product's processes call each other.
import { OPERATOR } from "../common/actor.js";
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
import { createRpcChannel } from "../platform/rpc-client.js";
import { findCapacity, P99_LIMIT_MS, PEAK_TO_AVERAGE, REQUESTS_PER_ORDER } from "./capacity.js";
import { runScale } from "./scale.js";
import { createTestDatabase } from "../test/helpers/db.js";
import { uniqueBusNames } from "../test/helpers/nats.js";
import { freePort, ROOT, spawnEntry } from "../test/helpers/process.js";
import { bankMutationBatch, bankTransferOrderBodies, BENCH_BUYER, BENCH_INTERNAL_TOKEN, children, measure, productEnv, runProduct, startProduct, statusText, waitForPort, type Row } from "./harness.js";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    only: { type: "string" },
    "scale-out": { type: "boolean", default: false },
    scale: { type: "boolean", default: false },
    "scale-orders": { type: "string", default: "1000000" },
    "scale-base": { type: "string", default: "10000" },
    "scale-connections": { type: "string", default: "10" },
    "scale-keep": { type: "boolean", default: false },
    expiring: { type: "string", default: "50000" },
    soak: { type: "string" },
    events: { type: "string", default: "1000" },
    "bank-orders": { type: "string" },
    "one-process": { type: "boolean", default: false },
    capacity: { type: "boolean", default: false },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const only = args.only ? new Set(args.only.split(",")) : undefined;
const wanted = (name: string) => !only || only.has(name);
const buyer = BENCH_BUYER;
// The product's processes inherit it (platform/config.ts); unset is the default.
const RPC_TRANSPORT = process.env.RPC_TRANSPORT || "lean";

const rows: Row[] = [];
/**
 * Each stocked product's units in the create-stocked scenario: bank-transfer orders hold
 * what they take until they expire, about 1,000 units an order (bankTransferOrderBodies),
 * so a billion lasts any run (a million orders) without one refusal.
 */
const PLENTY = 1_000_000_000n;

async function cannon(name: string, options: autocannon.Options): Promise<Row> {
  const row = await measure(name, { connections: CONNECTIONS, duration: DURATION, ...options });
  rows.push(row);
  process.stdout.write(`  ${name.padEnd(34)} ${String(row.rps).padStart(7)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  non-2xx ${row.non2xx}${statusText(row)}  errors ${row.errors}\n`);
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

/** CPU seconds (user + system) the processes have used so far, from /proc (in ticks of USER_HZ, 100 on Linux). */
function cpuSeconds(pids: (number | undefined)[]): number {
  let ticks = 0;
  for (const pid of pids) {
    if (!pid) continue;
    try {
      // Fields after the command name (which may hold spaces): utime and stime are 14 and 15.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks / 100;
}

/**
 * Every role in one process as `npm start` runs them (bench/one-process.ts over
 * startAll), on the bench's database and NATS, its roles calling each other over
 * `transport`.
 */
async function startOneProcess(db: string, bus: Record<string, string>, transport: "grpc" | "in-process") {
  const port = await freePort();
  const child = runProduct(
    "bench/one-process.ts",
    {
      ...productEnv(db, bus, port),
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      CATALOG_ADDR: `http://127.0.0.1:${await freePort()}`,
      ORDER_ADDR: `http://127.0.0.1:${await freePort()}`,
      WEBHOOK_ADDR: `http://127.0.0.1:${await freePort()}`,
    },
    [transport],
  );
  children.push(child);
  await waitForPort(port, child);
  process.stdout.write(`one process (${transport}): pid ${child.child.pid}\n`);
  return { url: `http://127.0.0.1:${port}`, child };
}

async function main() {
  const started = Date.now();
  const db = await createTestDatabase("bench");
  const bus = uniqueBusNames("BENCH");
  process.stdout.write(`database ${db.name}, stream ${bus.EVENTS_STREAM}, ${CONNECTIONS} connections, ${DURATION} s per scenario, RPC_TRANSPORT=${RPC_TRANSPORT}\n`);
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
    const catalogChannel = createRpcChannel(one.addrs.CATALOG_ADDR, { timeoutMs: 30_000, actor: OPERATOR, internalToken: BENCH_INTERNAL_TOKEN });
    const orderChannel = createRpcChannel(one.addrs.ORDER_ADDR, { timeoutMs: 30_000, actor: OPERATOR, internalToken: BENCH_INTERNAL_TOKEN });
    const webhookChannel = createRpcChannel(one.addrs.WEBHOOK_ADDR, { timeoutMs: 30_000, actor: OPERATOR, internalToken: BENCH_INTERNAL_TOKEN });
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
    const orderId = ((await created.json()) as { data: { order: { id: string } } }).data.order.id;

    const orderBody = bankTransferOrderBodies(productIds);

    /** The create scenario's requests against a store whose 30 products each track PLENTY units. */
    async function stockedOrders(): Promise<autocannon.Options> {
      const made = await stores.createStore({
        name: "Bench Stocked Store",
        plan: Plan.GROWTH,
        bankAccount: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "1234567891", accountHolder: "Bench" },
      });
      const stockedStoreId = made.store!.id;
      const stockedIds: string[] = [];
      for (let n = 0; n < 30; n++) {
        const { item } = await catalog.createProduct({
          storeId: stockedStoreId,
          title: `Produk Stok ${n}`,
          price: BigInt(10_007 + n * 1_013),
          status: ItemStatus.PUBLISHED,
          stock: { quantity: PLENTY },
        });
        // Without the catalog's stock the scenario would measure untracked products under another name.
        if (item!.stock !== PLENTY) throw new Error(`create-stocked: product ${item!.id} does not track stock (stock ${item!.stock})`);
        stockedIds.push(item!.id);
      }
      const stockedKey = (await stores.createApiKey({ storeId: stockedStoreId, name: "bench" })).secret;
      const body = bankTransferOrderBodies(stockedIds);
      return {
        url: `${one.url}/v1/orders`,
        requests: [{ method: "POST", headers: { authorization: `Bearer ${stockedKey}`, "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: body() }) }],
      };
    }

    /** Order reads, order listings and catalog pages in turn, and one create in `createEvery` requests. */
    const mixedRequests = (createEvery: number): autocannon.Request[] => {
      let n = 0;
      return [
        {
          setupRequest: (req) => {
            n++;
            if (n % createEvery === 0) return { ...req, method: "POST", path: "/v1/orders", headers: { ...auth, "content-type": "application/json" }, body: orderBody() };
            if (n % 3 === 0) return { ...req, method: "GET", path: `/v1/orders/${orderId}`, headers: auth };
            if (n % 3 === 1) return { ...req, method: "GET", path: "/v1/orders?limit=20", headers: auth };
            return { ...req, method: "GET", path: "/v1/products?limit=20", headers: auth };
          },
        },
      ];
    };

    process.stdout.write("\nbaselines\n");
    const bare = wanted("baseline-bare") ? await cannon("baseline: koa bare JSON", { url: `${baseUrl}/bare` }) : undefined;
    const koaSql = wanted("baseline-sql") ? await cannon("baseline: koa → postgres.js (20 rows)", { url: `${baseUrl}/sql/products` }) : undefined;
    const koaOrderSql = wanted("baseline-sql") ? await cannon("baseline: koa → postgres.js (order)", { url: `${baseUrl}/sql/orders/${orderId}` }) : undefined;
    const insert = wanted("baseline-insert") ? await cannon("baseline: transactional insert", { url: `${baseUrl}/sql/orders`, method: "POST" }) : undefined;

    process.stdout.write("\nproduct\n");
    // CPU per request of the four processes moves much less than req/s on a shared machine.
    const productPids = Object.values(one.spawned).map((child) => child.child.pid);
    const productCannon = async (name: string, options: autocannon.Options): Promise<Row> => {
      const before = cpuSeconds(productPids);
      const row = await cannon(name, options);
      row.cpuMsPerRequest = Math.round(((cpuSeconds(productPids) - before) * 1000 * 100) / row.requests) / 100;
      process.stdout.write(`  ${"".padEnd(34)} ${row.cpuMsPerRequest.toFixed(2)} ms CPU per request (gateway, services)\n`);
      return row;
    };
    const products = wanted("products") ? await productCannon("GET /v1/products?limit=20", { url: `${one.url}/v1/products?limit=20`, headers: auth }) : undefined;
    const getOrder = wanted("order") ? await productCannon("GET /v1/orders/{id}", { url: `${one.url}/v1/orders/${orderId}`, headers: auth }) : undefined;
    const listOrders = wanted("orders") ? await productCannon("GET /v1/orders?limit=20", { url: `${one.url}/v1/orders?limit=20`, headers: auth }) : undefined;
    const createOrders = wanted("create")
      ? await productCannon("POST /v1/orders (bank transfer)", {
          url: `${one.url}/v1/orders`,
          requests: [{ method: "POST", headers: { ...auth, "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: orderBody() }) }],
        })
      : undefined;
    // The same orders where every product tracks its stock and has plenty of it
    // (docs/catalog.md#stock): what holding the units costs a create, the reservation's
    // transaction with the rows locked and the confirm sent after. A store of its own, so
    // the other scenarios read and order the same untracked products as ever.
    const createStocked = wanted("create-stocked") ? await productCannon("POST /v1/orders (stocked products)", await stockedOrders()) : undefined;
    // The same with an Idempotency-Key, as careful clients send: what the key's record costs.
    let keyed = 0;
    // Only when asked by name, so a default run stays comparable with the runs recorded before it.
    const createKeyed = only?.has("create-keyed")
      ? await cannon("POST /v1/orders (with Idempotency-Key)", {
          url: `${one.url}/v1/orders`,
          requests: [
            {
              method: "POST",
              setupRequest: (req) => ({ ...req, headers: { ...auth, "content-type": "application/json", "idempotency-key": `bench-${process.pid}-${++keyed}` }, body: orderBody() }),
            },
          ],
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
          // Marked paid by a person below: only a bank transfer may be (order-actions.ts).
          paymentMethod: "bank_transfer",
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
        // Our own webhook bodies; any other type is filtered out before its data is read.
        .map((hit) => ({ hit, event: JSON.parse(hit.body) as { type: string; data: { order: { updated_at: string } } } }))
        .filter(({ event }) => event.type === "order.paid")
        .map(({ hit, event }) => hit.at - Date.parse(event.data.order.updated_at))
        .sort((a, b) => a - b);
      const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
      webhook = { events: latencies.length, p50: pct(50), p90: pct(90), p99: pct(99), max: latencies.at(-1) ?? NaN };
      process.stdout.write(`  webhook: ${webhook.events} order.paid deliveries at 50 changes/s: p50 ${webhook.p50} ms  p90 ${webhook.p90} ms  p99 ${webhook.p99} ms  max ${webhook.max} ms\n`);
    }

    // Reconciliation: a bank feed's 500-mutation call against a store with 10,000
    // pending bank-transfer orders (docs/reconciliation.md).
    let bank: Record<string, number> | undefined;
    if (wanted("bank")) {
      const pendingOrders = Number(args["bank-orders"] ?? 10_000);
      process.stdout.write(`\nbank: creating ${pendingOrders} pending bank-transfer orders\n`);
      const { status, matched, mutations, ms } = await bankMutationBatch({ orders, storeId, productIds, pendingOrders, concurrency: 16, url: one.url, auth });
      bank = { orders: pendingOrders, mutations, matched, ms: Math.round(ms), perSecond: Math.round((matched / ms) * 1000) };
      process.stdout.write(`  bank: ${status}, ${matched} of ${mutations} matched in ${bank.ms} ms: ${bank.perSecond} mutations matched/s\n`);
    }

    // Capacity: orders' lives at a rising steady rate until p99 passes 100 ms (bench/capacity.ts).
    let capacity: Awaited<ReturnType<typeof findCapacity>> | undefined;
    if (args.capacity) {
      process.stdout.write(`\ncapacity: per order 1 create, 3 order reads, 5 catalog reads, paid 1 s later, 3 webhooks; rate raised until p99 > ${P99_LIMIT_MS} ms\n`);
      await webhookChannel.client(WebhookService).setEndpoint({ storeId, url: receiverUrl });
      capacity = await findCapacity(
        {
          url: one.url,
          auth,
          orderBody,
          markPaid: async (orderId) => void (await orders.markOrderPaid({ storeId, orderId })),
          receipts: receiverHits,
          seconds: DURATION,
          connections: CONNECTIONS,
        },
        (step) =>
          process.stdout.write(
            `  ${String(step.ordersPerSecond).padStart(4)} orders/s (${step.ordersPerSecond * REQUESTS_PER_ORDER} req/s, ${step.orders} orders): p50 ${step.p50} ms  p99 ${step.p99} ms  failures ${step.failures}  webhooks ${step.webhooks}, p99 ${step.webhookP99} ms${step.within ? "" : "  ← over"}\n`,
          ),
      );
      process.stdout.write(
        `  capacity: ${capacity.ordersPerSecond} orders/s = ${capacity.ordersPerDayFlat.toLocaleString("en")} orders/day at that rate all day, ${capacity.ordersPerDay.toLocaleString("en")} orders/day with a busiest hour ${PEAK_TO_AVERAGE}× the average\n`,
      );
    }

    let scaleOut: Record<string, number> | undefined;
    if (args["scale-out"]) {
      process.stdout.write("\nscale out: two of every process against the same PostgreSQL and NATS\n");
      const single = products ?? (await cannon("1×: GET /v1/products?limit=20", { url: `${one.url}/v1/products?limit=20`, headers: auth }));
      const two = await startProduct(db.url, bus, 2);
      const [a, b] = await Promise.all([
        cannon("2×: gateway 1 products", { url: `${one.url}/v1/products?limit=20`, headers: auth, connections: Math.ceil(CONNECTIONS / 2) }),
        cannon("2×: gateway 2 products", { url: `${two.url}/v1/products?limit=20`, headers: auth, connections: Math.ceil(CONNECTIONS / 2) }),
      ]);
      scaleOut = { single: single.rps, double: a.rps + b.rps, ratio: (a.rps + b.rps) / single.rps };
      process.stdout.write(`  two instances serve ${scaleOut.double} req/s vs ${scaleOut.single}: ${scaleOut.ratio!.toFixed(2)}×\n`);
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
      await autocannon({ connections: CONNECTIONS, duration: seconds, requests: mixedRequests(10), url: one.url });
      clearInterval(timer);
      sample();
      soak = { seconds, samples };
      for (const [name, list] of Object.entries(samples)) {
        const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0);
        process.stdout.write(`  ${name.padEnd(8)} RSS ${list.map(mb).join(" → ")} MiB\n`);
      }
    }

    const ratio = (a?: Row, b?: Row) => (a && b ? Math.round((a.rps / b.rps) * 100) / 100 : undefined);

    // The same HTTP scenarios against `npm start`'s shape, every role in one process,
    // with its roles calling each other over loopback gRPC and in process, beside the
    // separate processes. All three stay up (idle ones cost little) so that each
    // scenario runs against the three in turn, on the same data: the create scenario
    // adds thousands of orders, and reads measured before and after it are not
    // comparable. Each figure is a ratio to its baseline measured just before it,
    // since a shared machine drifts by tens of percent within minutes, and the CPU the
    // product's processes spent per request, which drifts much less.
    let oneProcess: Record<string, Record<string, { ratio?: number; cpuMsPerRequest: number }>> | undefined;
    if (args["one-process"]) {
      process.stdout.write("\none process vs separate processes\n");
      const targets: Record<string, string> = { "separate processes": one.url };
      const pids: Record<string, (number | undefined)[]> = { "separate processes": Object.values(one.spawned).map((child) => child.child.pid) };
      for (const transport of ["grpc", "in-process"] as const) {
        const mode = `one process, ${transport === "grpc" ? "loopback gRPC" : "in process"}`;
        const started = await startOneProcess(db.url, bus, transport);
        targets[mode] = started.url;
        pids[mode] = [started.child.child.pid];
      }
      // A process started moments ago is still compiling and filling its pools.
      const warmUp = (url: string) => autocannon({ connections: CONNECTIONS, duration: 3, url, requests: mixedRequests(4) });
      for (const url of Object.values(targets)) await warmUp(url);
      const modes = Object.keys(targets);
      const specs = [
        { key: "products", wants: wanted("products") && wanted("baseline-sql"), baseline: () => ({ url: `${baseUrl}/sql/products` }), name: "koa → postgres.js (20 rows)", run: (url: string) => ({ url: `${url}/v1/products?limit=20`, headers: auth }) },
        { key: "order read", wants: wanted("order") && wanted("baseline-sql"), baseline: () => ({ url: `${baseUrl}/sql/orders/${orderId}` }), name: "koa → postgres.js (order)", run: (url: string) => ({ url: `${url}/v1/orders/${orderId}`, headers: auth }) },
        { key: "orders list", wants: wanted("orders") && wanted("baseline-sql"), baseline: () => ({ url: `${baseUrl}/sql/products` }), name: "koa → postgres.js (20 rows)", run: (url: string) => ({ url: `${url}/v1/orders?limit=20`, headers: auth }) },
        {
          key: "create",
          wants: wanted("create") && wanted("baseline-insert"),
          baseline: () => ({ url: `${baseUrl}/sql/orders`, method: "POST" as const }),
          name: "transactional insert",
          run: (url: string): autocannon.Options => ({
            url: `${url}/v1/orders`,
            requests: [{ method: "POST", headers: { ...auth, "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: orderBody() }) }],
          }),
        },
      ];
      oneProcess = Object.fromEntries(modes.map((mode) => [mode, {}]));
      for (const [n, spec] of specs.filter((spec) => spec.wants).entries()) {
        // Each scenario starts with another mode, so no mode always runs first or last.
        for (const mode of [...modes.slice(n % modes.length), ...modes.slice(0, n % modes.length)]) {
          const against = await cannon(`${mode}: baseline: ${spec.name}`, spec.baseline());
          const cpuBefore = cpuSeconds(pids[mode]!);
          const measured = await cannon(`${mode}: ${spec.key}`, spec.run(targets[mode]!));
          const cpuMsPerRequest = Math.round(((cpuSeconds(pids[mode]!) - cpuBefore) * 1000 * 100) / measured.requests) / 100;
          oneProcess[mode]![spec.key] = { ratio: ratio(measured, against), cpuMsPerRequest };
        }
      }
      const keys = specs.filter((spec) => spec.wants).map((spec) => spec.key);
      process.stdout.write(`\n  ratio to the baseline measured just before; CPU ms per request\n  ${"".padEnd(28)} ${keys.map((k) => k.padStart(16)).join(" ")}\n`);
      for (const mode of modes) {
        const cell = (k: string) => `${oneProcess![mode]![k]?.ratio?.toFixed(2) ?? "—"}; ${oneProcess![mode]![k]?.cpuMsPerRequest.toFixed(2) ?? "—"}`;
        process.stdout.write(`  ${mode.padEnd(28)} ${keys.map((k) => cell(k).padStart(16)).join(" ")}\n`);
      }
    }
    const ratios = {
      "products / koa→postgres.js": ratio(products, koaSql),
      "order read / koa→postgres.js": ratio(getOrder, koaSql),
      "order read / koa→postgres.js (order queries)": ratio(getOrder, koaOrderSql),
      "order list / koa→postgres.js": ratio(listOrders, koaSql),
      "create order / transactional insert": ratio(createOrders, insert),
      "create with a key / transactional insert": ratio(createKeyed, insert),
      "create stocked / transactional insert": ratio(createStocked, insert),
      "create stocked / create": ratio(createStocked, createOrders),
      "products / koa bare": ratio(products, bare),
    };
    process.stdout.write("\nratios (same run)\n");
    for (const [name, value] of Object.entries(ratios)) if (value !== undefined) process.stdout.write(`  ${name.padEnd(46)} ${value.toFixed(2)}\n`);

    const resultsDir = path.join(ROOT, "bench", "results");
    await mkdir(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    await writeFile(
      file,
      JSON.stringify({ at: new Date().toISOString(), node: process.version, rpcTransport: RPC_TRANSPORT, connections: CONNECTIONS, duration: DURATION, rows, ratios, webhook, bank, capacity, scaleOut, soak, oneProcess }, null, 2),
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

if (args.scale) {
  try {
    await runScale({
      sizes: [Number(args["scale-base"]), Number(args["scale-orders"])],
      duration: DURATION,
      connections: Number(args["scale-connections"]),
      only,
      // A thousand pending transfers are enough to pay 500, and take seconds to make.
      bankOrders: Number(args["bank-orders"] ?? 1_000),
      expiring: Number(args.expiring),
      flowPerSecond: 20,
      keep: args["scale-keep"],
    });
  } finally {
    for (const child of children.reverse()) await child.stop("SIGTERM", 5_000);
  }
} else {
  await main();
}
