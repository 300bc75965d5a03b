// `npm run bench -- --scale`: every scenario against a store of 10,000 orders and one of
// 1,000,000 (bench/seed-scale.ts), side by side, so what grows with the data shows as a
// ratio measured on one machine in one run. Each size gets a database, a NATS stream
// and a product of its own, one after the other: the two never share the CPU.
//
// Reported, not asserted (timing stays out of the tests): the targets are printed next
// to the numbers with ✔ or ✘.
import http from "node:http";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import autocannon from "autocannon";
import postgres from "postgres";
import { OPERATOR } from "../common/actor.js";
import { AccountService } from "../gen/catalog/v1/account_pb.js";
import { CatalogService, ItemStatus, Plan, StoreService } from "../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../gen/order/v1/order_pb.js";
import { WebhookService } from "../gen/webhook/v1/webhook_pb.js";
import { connectDb, type Db } from "../platform/db.js";
import { createRpcChannel } from "../platform/rpc-client.js";
import * as orderLists from "../services/order/db/order-lists.js";
import * as orderSales from "../services/order/db/sales.js";
import { listLimit } from "../services/webhook/deliveries.js";
import { createPurge } from "../services/webhook/purge.js";
import { WEBHOOK_SCHEMA } from "../services/webhook/service.js";
import * as webhookDeliveries from "../services/webhook/db/deliveries.js";
import * as webhookEvents from "../services/webhook/db/events.js";
import { createTestDatabase } from "../test/helpers/db.js";
import { uniqueBusNames } from "../test/helpers/nats.js";
import { ROOT } from "../test/helpers/process.js";
import { bankMutationBatch, bankTransferOrderBodies, BENCH_BUYER, BENCH_INTERNAL_TOKEN, measure, rowOf, startProduct, statusText, stopProduct, type Row } from "./harness.js";
import { createSeeder, type SeedReport, type SeedTarget } from "./seed-scale.js";

const DAY = 86_400_000;
/** The span the seeder fills; the product keeps events a day longer, so its own purge leaves them be. */
const SEEDED_DAYS = 90;
const PASSWORD = "bench-scale-password-2026";
const buyer = BENCH_BUYER;

export interface ScaleOptions {
  /** Store sizes in orders, smallest first: each is compared with the first. */
  sizes: number[];
  /** Seconds per measured scenario. */
  duration: number;
  /** Connections for every HTTP scenario (the dashboard targets are stated at 10). */
  connections: number;
  only?: Set<string>;
  /** Pending bank-transfer orders made through the API before the 500-credit call. */
  bankOrders: number;
  /** Orders expiring at one moment. */
  expiring: number;
  /** Orders made per second while the purge runs. */
  flowPerSecond: number;
  /** Keep the largest store's database for EXPLAIN afterwards (its URL is printed). */
  keep?: boolean;
}

interface Measured extends Row {
  key: string;
  /** What the scenario is judged against, besides staying within 2× of the smallest store. */
  target?: { p99Ms?: number; no503?: boolean };
  note?: string;
}

interface OneShot {
  key: string;
  scenario: string;
  /** The scenario's time in ms (what the 2× ratio compares). */
  ms: number;
  detail: Record<string, unknown>;
  verdicts: { text: string; ok: boolean }[];
}

interface OutboxSize {
  rows: number;
  unpublished: number;
  bytes: number;
}

interface SizeResult {
  orders: number;
  seed: SeedReport & { settleSeconds: number; readBack: { checked: number; mismatched: number; firstDifference?: string } };
  rows: Measured[];
  oneShots: OneShot[];
  outbox: { before: OutboxSize; after: OutboxSize };
  plans: Record<string, string>;
}

export async function runScale(options: ScaleOptions) {
  const started = Date.now();
  const wanted = (key: string) => !options.only || options.only.has(key);
  // One loopback receiver for every size's endpoint: it answers 200 at once and notes
  // what arrives while a scenario is listening.
  let listening: ((at: number, body: string) => void) | undefined;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      listening?.(Date.now(), Buffer.concat(chunks).toString("utf8"));
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
  const results: SizeResult[] = [];
  try {
    for (const orders of options.sizes) results.push(await oneSize(orders));
  } finally {
    receiver.close();
  }
  report(results, options);
  const resultsDir = path.join(ROOT, "bench", "results");
  await mkdir(resultsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = path.join(resultsDir, `bench-scale-${stamp}.json`);
  await writeFile(file, JSON.stringify({ at: new Date().toISOString(), node: process.version, options: { ...options, only: options.only && [...options.only] }, results }, null, 2));
  const plansFile = path.join(resultsDir, `bench-scale-${stamp}-plans.txt`);
  await writeFile(plansFile, results.map((r) => Object.entries(r.plans).map(([name, plan]) => `=== ${r.orders.toLocaleString("en")} orders: ${name}\n${plan}\n`).join("\n")).join("\n"));
  process.stdout.write(`\nresults: ${path.relative(ROOT, file)}, plans: ${path.relative(ROOT, plansFile)} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);

  async function oneSize(orders: number): Promise<SizeResult> {
    process.stdout.write(`\n=== ${orders.toLocaleString("en")} orders\n`);
    const db = await createTestDatabase("bench_scale");
    const bus = uniqueBusNames("BSCALE");
    // EVENT_RETENTION one day past the seeded span: the service's own purge (at start
    // and hourly) removes none of it; the purge scenario below removes the oldest day.
    const env = { EVENT_RETENTION: `${SEEDED_DAYS + 1}d` };
    let product = await startProduct(db.url, bus, orders, env);
    const channel = (addr: string) => createRpcChannel(addr, { timeoutMs: 60_000, actor: OPERATOR, internalToken: BENCH_INTERNAL_TOKEN });
    // The addresses stay: the product starts again on the same ports after seeding.
    const catalogChannel = channel(product.addrs.CATALOG_ADDR);
    const orderChannel = channel(product.addrs.ORDER_ADDR);
    const webhookChannel = channel(product.addrs.WEBHOOK_ADDR);
    const sql = postgres(db.url, { max: 4, onnotice: () => {} });
    try {
      // The store, its catalog, key, member and endpoint through the services, as a merchant gets them.
      const stores = catalogChannel.client(StoreService);
      const catalog = catalogChannel.client(CatalogService);
      const accounts = catalogChannel.client(AccountService);
      const ordersApi = orderChannel.client(OrderService);
      const bank = { bank_name: "Bank Central Asia", bank_code: "BCA", account_number: "1234567890", account_holder: "Toko Bench Skala" };
      const { store } = await stores.createStore({
        name: "Toko Bench Skala",
        plan: Plan.GROWTH,
        bankAccount: { bankName: bank.bank_name, bankCode: bank.bank_code, accountNumber: bank.account_number, accountHolder: bank.account_holder },
      });
      const storeId = store!.id;
      const products: SeedTarget["products"] = [];
      for (let n = 0; n < 30; n++) {
        const { item } = await catalog.createProduct({ storeId, title: `Produk ${n}`, price: BigInt(10_007 + n * 1_013), status: ItemStatus.PUBLISHED });
        products.push({ id: item!.id, type: "product", title: item!.title, price: Number(item!.price) });
      }
      const { item: bundle } = await catalog.createBundle({ storeId, title: "Paket Hemat", price: 50_000n, status: ItemStatus.PUBLISHED, productIds: products.slice(0, 3).map((p) => p.id) });
      products.push({ id: bundle!.id, type: "bundle", title: bundle!.title, price: Number(bundle!.price) });
      const { item: freebie } = await catalog.createProduct({ storeId, title: "Stiker gratis", price: 0n, status: ItemStatus.PUBLISHED });
      products.push({ id: freebie!.id, type: "product", title: freebie!.title, price: 0 });
      const key = (await stores.createApiKey({ storeId, name: "bench" })).secret;
      const auth = { authorization: `Bearer ${key}` };
      const memberEmail = "pemilik@toko-bench.example";
      const { invitationToken } = await accounts.inviteMember({ storeId, email: memberEmail });
      const { session } = await accounts.acceptInvitation({ token: invitationToken, password: PASSWORD });
      const cookie = { cookie: `session=${session!.token}` };
      const { endpoint } = await webhookChannel.client(WebhookService).setEndpoint({ storeId, url: receiverUrl });
      const endpointId = endpoint!.id;
      const overview = await fetch(`${product.url}/dashboard/stores/${storeId}/overview`, { headers: cookie, redirect: "manual" });
      if (overview.status !== 200) throw new Error(`the member's session does not open the overview: ${overview.status}`);

      // What happened before the 90 days began: the store and its endpoint existed.
      await sql`update catalog.stores set created_at = now() - ${`${SEEDED_DAYS + 1} days`}::interval where id = ${storeId}`;
      await sql`update webhooks.endpoints set created_at = now() - ${`${SEEDED_DAYS + 1} days`}::interval where id = ${endpointId}`;

      // Seeded while the product is stopped: its sweepers and relay would otherwise scan
      // tables whose indexes the seeder drops while it loads. It starts again where it was
      // (PUBLIC_BASE_URL, in every seeded checkout URL, names the gateway's port).
      await stopProduct(product);
      const seeder = createSeeder(
        { databaseUrl: db.url, storeId, storeName: store!.name, bank, products, endpointId, endpointUrl: receiverUrl, publicBaseUrl: product.url, memberEmail },
        { log: (text) => process.stdout.write(`${text}\n`) },
      );
      const seeded = await seeder.history(orders, SEEDED_DAYS);
      process.stdout.write(
        `  seeded ${seeded.rows.toLocaleString("en")} rows in ${seeded.seconds.toFixed(1)} s: ${seeded.rowsPerSecond.toLocaleString("en")} rows/s (generating ${seeded.generateSeconds.toFixed(1)} s of it, overlapped with loading; building indexes ${seeded.indexSeconds.toFixed(1)} s)\n`,
      );
      for (const [table, count] of Object.entries(seeded.counts)) process.stdout.write(`    ${table.padEnd(38)} ${count.toLocaleString("en").padStart(12)}\n`);
      const settleSeconds = await seeder.settle();
      process.stdout.write(`  vacuum (analyze) of the seeded tables: ${settleSeconds.toFixed(1)} s\n`);
      product = await startProduct(db.url, bus, orders, env, product.ports);
      const readBack = await checkReadBack(seeded.samples.changedOrderIds);
      process.stdout.write(`  read back through GET /v1/orders/{id}: ${readBack.checked - readBack.mismatched} of ${readBack.checked} equal to their last event's order${readBack.firstDifference ? `; first difference: ${readBack.firstDifference}` : ""}\n`);

      const samples = seeded.samples;
      const deep = Math.floor(orders * 0.9);
      const [cursorRow] = await sql<{ at: string; id: string }[]>`
        select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id from orders.orders
        where store_id = ${storeId} order by created_at desc, id desc offset ${deep - 1} limit 1`;
      const plans = await explainAll(db.url, storeId, { orderId: samples.paidOrderId, endpointId, deep, cursor: { at: cursorRow!.at, id: cursorRow!.id }, email: samples.buyerEmail });
      const outboxBefore = await outboxSize();

      const rows: Measured[] = [];
      const run = async (key: string, scenario: string, request: autocannon.Options, target?: Measured["target"]) => {
        if (!wanted(key)) return;
        await databaseIdle();
        const row = await measure(scenario, { connections: options.connections, duration: options.duration, ...request });
        rows.push({ ...row, key, target });
        process.stdout.write(`  ${scenario.padEnd(52)} ${String(row.rps).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  non-2xx ${row.non2xx}${statusText(row)}  errors ${row.errors}\n`);
      };
      const api = (path: string): autocannon.Options => ({ url: `${product.url}${path}`, headers: auth });
      const page = (path: string): autocannon.Options => ({ url: `${product.url}/dashboard/stores/${storeId}/${path}`, headers: cookie });

      process.stdout.write("\n  API\n");
      await run("orders-first", "GET /v1/orders?limit=20", api("/v1/orders?limit=20"), { p99Ms: 50 });
      await run("orders-status", "GET /v1/orders?limit=20&status=paid", api("/v1/orders?limit=20&status=paid"), { p99Ms: 50 });
      await run("orders-deep", `GET /v1/orders?limit=20&offset=${deep} (90 % deep)`, api(`/v1/orders?limit=20&offset=${deep}`));
      if (wanted("orders-cursor")) {
        await databaseIdle();
        rows.push(await cursorPage(cursorRow!.id, deep));
      }

      process.stdout.write("\n  dashboard (signed in)\n");
      const dashboard: [string, string, string][] = [
        ["dash-overview", "overview", "overview"],
        ["dash-orders", "orders", "orders"],
        ["dash-orders-pending", "orders?status=pending", "orders?status=pending"],
        ["dash-search-email", "orders?q=<buyer email> (search)", `orders?q=${encodeURIComponent(samples.buyerEmail)}`],
        ["dash-search-reference", "orders?q=<payment reference> (search)", `orders?q=${samples.paymentReference}`],
        ["dash-search-external", "orders?q=<external id> (search)", `orders?q=${samples.externalId}`],
        ["dash-orders-deep", `orders?offset=${Math.min(deep, 1_000_000)} (90 % deep)`, `orders?offset=${Math.min(deep, 1_000_000)}`],
        ["dash-order", "orders/{id} (a paid order: history, deliveries)", `orders/${samples.paidOrderId}`],
        ["dash-refund", "orders/{id}/refund (its refund form)", `orders/${samples.paidOrderId}/refund`],
        ...(samples.pendingTransferOrderId ? [["dash-mark-paid", "orders/{id}/mark-paid (a pending transfer's confirmation)", `orders/${samples.pendingTransferOrderId}/mark-paid`] as [string, string, string]] : []),
        ["dash-api-keys", "api-keys", "api-keys"],
        ["dash-webhooks", "webhooks", "webhooks"],
        ["dash-endpoint", "webhooks/{endpoint}", `webhooks/${endpointId}`],
        ["dash-endpoint-failed", "webhooks/{endpoint}?status=failed", `webhooks/${endpointId}?status=failed`],
        ["dash-events", "events", "events"],
        ["dash-events-order", "events?order=<payment reference>", `events?order=${samples.paymentReference}`],
        ...(samples.failedDeliveryId ? [["dash-delivery", "webhooks/{endpoint}/deliveries/{id} (a failed one)", `webhooks/${endpointId}/deliveries/${samples.failedDeliveryId}`] as [string, string, string]] : []),
        ["dash-bank", "bank-mutations", "bank-mutations"],
        ["dash-settings", "settings", "settings"],
        ["dash-team", "team", "team"],
        ["dash-audit", "audit-log", "audit-log"],
      ];
      for (const [key, name, path] of dashboard) await run(key, `dashboard ${name}`, page(path), { p99Ms: 100, no503: true });

      process.stdout.write("\n  writes\n");
      const productIds = products.filter((p) => p.type === "product" && p.price > 0).map((p) => p.id);
      const orderBody = bankTransferOrderBodies(productIds);
      await run("create", "POST /v1/orders (bank transfer)", {
        url: `${product.url}/v1/orders`,
        requests: [{ method: "POST", headers: { ...auth, "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: orderBody() }) }],
      });

      const oneShots: OneShot[] = [];
      if (wanted("bank")) {
        await quiet();
        oneShots.push(await bankBatch());
      }
      if (wanted("purge")) {
        await quiet();
        oneShots.push(await purgeWhileDelivering(seeded));
      }
      if (wanted("expiry")) {
        await quiet();
        oneShots.push(await expiryBurst(seeded));
      }
      const outboxAfter = await outboxSize();
      process.stdout.write(`  outbox: ${outboxBefore.rows.toLocaleString("en")} rows (${mib(outboxBefore.bytes)}) after seeding, ${outboxAfter.rows.toLocaleString("en")} (${mib(outboxAfter.bytes)}, ${outboxAfter.unpublished} unpublished) at the end\n`);
      await seeder.close();
      return { orders, seed: { ...seeded, settleSeconds, readBack }, rows, oneShots, outbox: { before: outboxBefore, after: outboxAfter }, plans };

      /** Seeded orders read back through the API must equal the order their last event carried. */
      async function checkReadBack(ids: string[]) {
        let mismatched = 0;
        let firstDifference: string | undefined;
        for (const id of ids) {
          const answer = (await (await fetch(`${product.url}/v1/orders/${id}`, { headers: auth })).json()) as { data?: { order?: unknown } };
          // A free order is created and paid within one millisecond: its change comes last.
          const [event] = await sql<{ body: string }[]>`select body from webhooks.events where order_id = ${id} order by created_at desc, type = 'order.created' limit 1`;
          const seededOrder = JSON.stringify((JSON.parse(event!.body) as { data: { order: unknown } }).data.order);
          const apiOrder = JSON.stringify(answer.data?.order);
          if (seededOrder !== apiOrder) {
            mismatched++;
            firstDifference ??= `${id}: seeded ${seededOrder.slice(0, 400)} … API ${apiOrder.slice(0, 400)}`;
          }
        }
        return { checked: ids.length, mismatched, firstDifference };
      }

      /**
       * Waits (up to 2 min) until the relay has published everything and no delivery is
       * due: a scenario timing deliveries must not queue behind the previous one's.
       */
      async function quiet() {
        const deadline = Date.now() + 120_000;
        for (;;) {
          const [waiting] = await sql<{ outbox: number; due: number }[]>`
            select (select count(*) from orders.outbox where published_at is null)::int as outbox,
              (select count(*) from webhooks.deliveries where status = 'pending' and next_attempt_at <= now())::int as due`;
          if ((waiting!.outbox === 0 && waiting!.due === 0) || Date.now() > deadline) return;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }

      /**
       * Waits (up to 30 s) until no other statement runs in the database: a page whose
       * answer timed out leaves its query running, which would be measured as the next
       * scenario's slowness.
       */
      async function databaseIdle() {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const [active] = await sql<{ n: number }[]>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`;
          if (active!.n === 0 || Date.now() > deadline) return;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }

      async function outboxSize(): Promise<OutboxSize> {
        const [row] = await sql<OutboxSize[]>`
          select count(*)::int as rows, (count(*) filter (where published_at is null))::int as unpublished,
            pg_total_relation_size('orders.outbox')::float8 as bytes
          from orders.outbox`;
        return row!;
      }

      /**
       * The page after `deep` orders through the public cursor, `starting_after` the
       * order at position `deep`; checked first to be the page `offset` gives.
       */
      async function cursorPage(lastId: string, depth: number): Promise<Measured> {
        const url = `${product.url}/v1/orders?limit=20&starting_after=${lastId}`;
        const probe = (await (await fetch(url, { headers: auth })).json()) as { data?: { items?: { id: string }[] } };
        const [expected] = await sql<{ id: string }[]>`
          select id from orders.orders where store_id = ${storeId} order by created_at desc, id desc offset ${depth} limit 1`;
        const row = await measure(`GET /v1/orders?limit=20&starting_after=… (90 % deep)`, { connections: options.connections, duration: options.duration, url, headers: auth });
        process.stdout.write(`  ${row.scenario.padEnd(52)} ${String(row.rps).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  non-2xx ${row.non2xx}  errors ${row.errors}\n`);
        const same = probe.data?.items?.[0]?.id === expected?.id;
        return { ...row, key: "orders-cursor", target: { p99Ms: 50 }, ...(same ? {} : { note: `the cursor's page did not start where offset ${depth} does` }) };
      }

      /** The reconciliation call (docs/reconciliation.md#the-api): 500 credits for pending transfers made through the API. */
      async function bankBatch(): Promise<OneShot> {
        process.stdout.write(`\n  bank: ${options.bankOrders} pending bank-transfer orders through the API, then one call with 500 credits\n`);
        const { status, matched, mutations, ms: elapsed } = await bankMutationBatch({ orders: ordersApi, storeId, productIds, pendingOrders: options.bankOrders, concurrency: 8, url: product.url, auth });
        const ms = Math.round(elapsed);
        process.stdout.write(`  bank: ${status}, ${matched} of ${mutations} matched in ${ms} ms\n`);
        return {
          key: "bank",
          scenario: "POST /v1/bank-mutations, 500 credits",
          ms,
          detail: { status, matched, mutations, pendingOrders: options.bankOrders },
          verdicts: [
            { text: "≤ 2 s", ok: ms <= 2_000 },
            { text: "all matched", ok: matched === mutations },
          ],
        };
      }

      /**
       * The retention purge (services/webhook/purge.ts, the code the service runs hourly)
       * removing the oldest seeded day while orders are made at a steady rate: each
       * order.created's time from its commit to the receiver, before and during the purge.
       * The purge runs here rather than in the webhook process so that its start and end
       * are known to the millisecond; its statements and batches are the service's.
       */
      async function purgeWhileDelivering(seed: SeedReport): Promise<OneShot> {
        process.stdout.write(`\n  purge: the oldest seeded day of events, deliveries and attempts while ${options.flowPerSecond} orders/s are delivered\n`);
        // Receipts are kept by order id: a webhook may arrive before the call that made its order has answered.
        const receipts = new Map<string, { madeAt: number; lag: number }>();
        const mine = new Set<string>();
        listening = (at, body) => {
          if (!body.startsWith('{"type":"order.created"')) return;
          const event = JSON.parse(body) as { data: { order: { id: string; updated_at: string } } };
          const madeAt = Date.parse(event.data.order.updated_at);
          receipts.set(event.data.order.id, { madeAt, lag: at - madeAt });
        };
        const received = () => [...mine].filter((id) => receipts.has(id)).length;
        let flowing = true;
        const flow = (async () => {
          const interval = 1_000 / options.flowPerSecond;
          const t0 = Date.now();
          const inFlight: Promise<void>[] = [];
          for (let n = 0; flowing; n++) {
            const due = t0 + n * interval;
            if (Date.now() < due) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
            inFlight.push(
              ordersApi
                .createOrder({ storeId, items: [{ ref: { case: "productId", value: productIds[n % 30]! }, quantity: 1 + (n % 7) }], buyer, paymentMethod: "qris", requestHash: "" })
                .then((created) => void mine.add(created.detail!.order!.id)),
            );
          }
          await Promise.all(inFlight);
        })();
        const pool = connectDb(db.url, { schema: WEBHOOK_SCHEMA });
        // The seeded span less one day: exactly the oldest day is past the retention.
        const purge = createPurge({ sql: pool, retentionMs: (SEEDED_DAYS - 1) * DAY });
        await new Promise((resolve) => setTimeout(resolve, options.duration * 1_000));
        const purgeStart = Date.now();
        const counts = await purge.run();
        const purgeEnd = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        flowing = false;
        await flow;
        const deadline = Date.now() + 30_000;
        while (received() < mine.size && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
        listening = undefined;
        const lags = [...mine].flatMap((id) => (receipts.has(id) ? [receipts.get(id)!] : []));
        await pool.end({ timeout: 5 });
        const idle = lags.filter((l) => l.madeAt < purgeStart - 500).map((l) => l.lag);
        const during = lags.filter((l) => l.madeAt >= purgeStart && l.madeAt <= purgeEnd).map((l) => l.lag);
        const idleP99 = percentile(idle, 99);
        const duringP99 = percentile(during, 99);
        const ms = purgeEnd - purgeStart;
        process.stdout.write(
          `  purge: ${counts.events} events, ${counts.deliveries} deliveries, ${counts.attempts} attempts in ${ms} ms (${counts.batches} statements); commit → receipt p50/p99 idle ${percentile(idle, 50)}/${idleP99} ms (${idle.length}), during the purge ${percentile(during, 50)}/${duringP99} ms (${during.length}); ${lags.length} of ${mine.size} received\n`,
        );
        return {
          key: "purge",
          scenario: `purge of the oldest day (~${Math.round(seed.orders / SEEDED_DAYS).toLocaleString("en")} orders' events) while delivering`,
          ms,
          detail: { ...counts, idleP50: percentile(idle, 50), idleP99, idleCount: idle.length, duringP50: percentile(during, 50), duringP99, duringCount: during.length, received: lags.length, made: mine.size },
          verdicts: [{ text: "delivery p99 during ≤ 2× idle", ok: during.length === 0 || duringP99 <= 2 * idleP99 }],
        };
      }

      /**
       * `options.expiring` pending orders that all expire within one second (made a day
       * before, seeded like the rest), with GET /v1/orders read throughout: how long until
       * every one is written `expired`, and how the reads fared meanwhile.
       */
      async function expiryBurst(seed: SeedReport): Promise<OneShot> {
        const count = options.expiring;
        // Loaded well before they expire: the seeding rate says how long loading takes.
        const estimate = (count * (seed.rows / seed.orders)) / Math.max(1, seed.rowsPerSecond);
        // With the indexes in place and the product running it goes slower than the first seed: 3× that, and 30 s.
        const lead = Math.ceil(30 + 3 * estimate);
        const expiresAt = Date.now() + lead * 1_000;
        process.stdout.write(`\n  expiry: ${count.toLocaleString("en")} pending orders expiring at once, ${lead} s from now; GET /v1/orders?limit=20 read throughout\n`);
        const loaded = await seeder.pendingBurst(count, expiresAt);
        const margin = (expiresAt - Date.now()) / 1000;
        process.stdout.write(`  loaded ${loaded.rows.toLocaleString("en")} rows in ${loaded.seconds.toFixed(1)} s, ${margin.toFixed(0)} s before they expire\n`);
        const waitUntil = async (at: number) => {
          if (Date.now() < at) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
        };
        await waitUntil(expiresAt - 3_000);
        let instance: autocannon.Instance | undefined;
        const reads = new Promise<autocannon.Result>((resolve, reject) => {
          instance = autocannon({ connections: options.connections, duration: 600, ...api("/v1/orders?limit=20") }, (error, result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)));
        });
        const cutoff = new Date(expiresAt + 1_500);
        const remaining = async () => (await sql<{ n: number }[]>`
          select count(*)::int as n from orders.orders where store_id = ${storeId} and status = 'pending' and expires_at <= ${cutoff}`)[0]!.n;
        await waitUntil(expiresAt + 1_000);
        let left = await remaining();
        const giveUp = expiresAt + 180_000;
        const timeline: { s: number; left: number }[] = [];
        while (left > 0 && Date.now() < giveUp) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          left = await remaining();
          const s = Math.round((Date.now() - expiresAt) / 1000);
          if (timeline.at(-1)?.s !== s) timeline.push({ s, left });
        }
        const seconds = (Date.now() - expiresAt) / 1000;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        instance!.stop();
        const row = rowOf("GET /v1/orders?limit=20 during the expiry", await reads);
        process.stdout.write(
          `  expiry: ${left === 0 ? `all expired ${seconds.toFixed(1)} s after the moment` : `${left} still pending after ${seconds.toFixed(0)} s`}; reads meanwhile ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, max ${(await reads).latency.max} ms, non-2xx ${row.non2xx}${statusText(row)}, errors ${row.errors}\n`,
        );
        return {
          key: "expiry",
          scenario: `${count.toLocaleString("en")} orders expiring at once, lists read throughout`,
          ms: Math.round(seconds * 1000),
          detail: { left, seconds, reads: row, maxReadMs: (await reads).latency.max, timeline, loadSeconds: loaded.seconds, leadSeconds: lead },
          verdicts: [
            { text: "all expired ≤ 60 s", ok: left === 0 && seconds <= 60 },
            { text: "reads answer throughout (no error, no non-2xx)", ok: row.errors === 0 && row.non2xx === 0 },
          ],
        };
      }
    } finally {
      catalogChannel.close();
      orderChannel.close();
      webhookChannel.close();
      await sql.end({ timeout: 5 });
      await stopProduct(product);
      if (options.keep && orders === options.sizes[options.sizes.length - 1]) process.stdout.write(`  kept for EXPLAIN: ${db.url} (drop it when done)\n`);
      else await db.drop();
    }
  }
}


function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const mib = (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MiB`;

/**
 * The plans of the statements behind the slow pages, as the services run them: each
 * store function is called here in a transaction with auto_explain logging every
 * statement's EXPLAIN (ANALYZE, BUFFERS) back to this connection as a notice. The
 * statements and parameters are the services' own, so the plans follow any change to them.
 */
async function explainAll(url: string, storeId: string, subject: { orderId: string; endpointId: string; deep: number; cursor: { at: string; id: string }; email: string }) {
  const plans: Record<string, string> = {};
  let captured: string[] = [];
  const sql = postgres(url, { max: 1, onnotice: (notice) => void captured.push(String(notice.message)) });
  const since24h = new Date(Date.now() - DAY);
  const calls: Record<string, (db: Db) => Promise<unknown>> = {
    "overview: failed attempts in 24 h (webhooks endpointHealth)": (db) => webhookDeliveries.endpointHealth(db, storeId, since24h),
    "overview: pending orders (orders countOrders)": (db) => orderLists.countOrders(db, storeId, "pending"),
    "overview: sales (orders salesSummary)": (db) => orderSales.salesSummary(db, storeId, { today: new Date(Date.now() - DAY / 2), month: new Date(Date.now() - 20 * DAY), chart: new Date(Date.now() - 30 * DAY) }),
    "order page: its deliveries (webhooks listDeliveries by order)": (db) => webhookDeliveries.listDeliveries(db, storeId, { orderId: subject.orderId }, listLimit(0)),
    "endpoint page: failed deliveries (webhooks listDeliveries by endpoint and status)": (db) => webhookDeliveries.listDeliveries(db, storeId, { endpointId: subject.endpointId, status: "failed" }, 100),
    [`GET /v1/orders?offset=${subject.deep} (orders listOrders)`]: (db) => orderLists.listOrders(db, storeId, 20, subject.deep),
    "the same page through the cursor (orders listOrders)": (db) => orderLists.listOrders(db, storeId, 20, 0, {}, subject.cursor),
    "orders search by buyer email (orders listOrders)": (db) => orderLists.listOrders(db, storeId, 50, 0, { search: { text: subject.email } }),
    "orders page, pending ones (orders listOrders by status)": (db) => orderLists.listOrders(db, storeId, 50, 0, { status: "pending" }),
    "events page (webhooks listEvents)": (db) => webhookEvents.listEvents(db, storeId, { notBefore: new Date(Date.now() - (SEEDED_DAYS + 1) * DAY), withoutBodies: true }, 50),
  };
  try {
    for (const [name, call] of Object.entries(calls)) {
      const schema = name.includes("(webhooks") ? WEBHOOK_SCHEMA : "orders";
      captured = [];
      await sql.begin(async (tx) => {
        await tx.unsafe(`load 'auto_explain'`);
        await tx.unsafe(`set local search_path to ${schema}`);
        await tx.unsafe(`set local auto_explain.log_min_duration = 0`);
        await tx.unsafe(`set local auto_explain.log_analyze = on`);
        await tx.unsafe(`set local auto_explain.log_buffers = on`);
        await tx.unsafe(`set local auto_explain.log_level = notice`);
        await tx.unsafe(`set local client_min_messages = notice`);
        await call(tx);
      });
      plans[name] = captured.join("\n\n");
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  return plans;
}

/** The table of both sizes side by side, each target with ✔ or ✘. */
function report(results: SizeResult[], options: ScaleOptions) {
  if (results.length === 0) return;
  const [base, ...larger] = results;
  const label = (n: number) => (n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n >= 1_000 && n % 1_000 === 0 ? `${n / 1_000}k` : String(n));
  const mark = (ok: boolean) => (ok ? "✔" : "✘");
  for (const big of larger) {
    process.stdout.write(`\n${label(base!.orders)} vs ${label(big.orders)} orders, ${options.connections} connections, ${options.duration} s each: req/s, p50 / p99 ms, non-2xx, errors; ratio of mean latency (target ≤ 2×)\n`);
    process.stdout.write(`| scenario | ${label(base!.orders)} | ${label(big.orders)} | ratio | targets at ${label(big.orders)} |\n|---|---|---|---|---|\n`);
    const cell = (r?: Row) => (r ? `${r.rps.toLocaleString("en")} req/s, ${r.p50} / ${r.p99} ms${r.non2xx ? `, ${r.non2xx} non-2xx${statusText(r)}` : ""}${r.errors ? `, ${r.errors} errors` : ""}` : "—");
    for (const row of big.rows) {
      const small = base!.rows.find((r) => r.key === row.key);
      const ratio = small ? row.mean / small.mean : NaN;
      const targets = [`${mark(ratio <= 2)} ≤ 2×`];
      if (row.target?.p99Ms) targets.push(`${mark(row.p99 <= row.target.p99Ms)} p99 ≤ ${row.target.p99Ms} ms`);
      if (row.target?.no503) targets.push(`${mark(!row.statuses?.["503"])} no 503`);
      process.stdout.write(`| ${row.scenario} | ${cell(small)} | ${cell(row)} | ${ratio.toFixed(1)}× | ${targets.join(", ")} |\n`);
    }
    for (const shot of big.oneShots) {
      const small = base!.oneShots.find((s) => s.key === shot.key);
      const ratio = small ? shot.ms / Math.max(1, small.ms) : NaN;
      const verdicts = [`${mark(ratio <= 2)} ≤ 2×`, ...shot.verdicts.map((v) => `${mark(v.ok)} ${v.text}`)];
      process.stdout.write(`| ${shot.scenario} | ${small ? `${small.ms.toLocaleString("en")} ms` : "—"} | ${shot.ms.toLocaleString("en")} ms | ${ratio.toFixed(1)}× | ${verdicts.join(", ")} |\n`);
    }
    const outboxRatio = big.outbox.after.rows / Math.max(1, base!.outbox.after.rows);
    process.stdout.write(
      `| outbox rows at the end | ${base!.outbox.after.rows.toLocaleString("en")} (${mib(base!.outbox.after.bytes)}) | ${big.outbox.after.rows.toLocaleString("en")} (${mib(big.outbox.after.bytes)}) | ${outboxRatio.toFixed(1)}× | ${mark(outboxRatio <= 2)} bounded (≤ 2×) |\n`,
    );
  }
}
