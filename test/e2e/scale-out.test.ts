// Scaling out (docs/operations.md#scaling-out): two instances of every service and two gateways,
// each a process of its own from its entry point, on real PostgreSQL and NATS
// JetStream. The gateways and the order and webhook services dial each service by a
// list of both its instances' addresses (the comma list of *_ADDR; DNS with two A
// records takes the same path, test/platform/rpc-balancing.test.ts), and spread their
// calls round robin.
//  - Under a load of real API calls over both gateways, every instance of each service
//    answers a share of the internal calls, read from its own /metrics.
//  - One order and one catalog instance stopped with SIGTERM in the middle of the load:
//    every request still ends 2xx (a 503 is retried by this client, at most twice, and
//    counted), every order created exists once (the client's list, GET and the
//    database agree), and the remaining instances carry on alone.
//  - Both order instances' buyer-mail workers share one table: each order's buyer gets
//    "order received" exactly once.
import { randomUUID } from "node:crypto";
import test from "ava";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { pino } from "pino";
import postgres from "postgres";
import { OPERATOR } from "../../common/actor.js";
import { CatalogService, ItemStatus, Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { createRpcChannel, type RpcChannel } from "../../platform/rpc-client.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { api, waitFor, type ApiResponse } from "../helpers/http.js";
import { SHARED_NATS_URL, uniqueBusNames } from "../helpers/nats.js";
import { freePort, spawnEntry, type Spawned } from "../helpers/process.js";
import { buyer } from "../helpers/service-processes.js";
import { TEST_INTERNAL_TOKEN } from "../helpers/internal-token.js";
import { startSmtpReceiver, type SmtpReceiver } from "../helpers/smtp-receiver.js";

type Service = "catalog" | "order" | "webhook";
const SERVICES: Service[] = ["catalog", "order", "webhook"];
const VARIABLE = { catalog: "CATALOG_ADDR", order: "ORDER_ADDR", webhook: "WEBHOOK_ADDR" } as const;

interface Instance {
  name: string;
  child: Spawned;
  metricsPort: number;
}

const children: Spawned[] = [];
let db: TestDatabase | undefined;
let admin: RpcChannel | undefined;
let streamName: string | undefined;
let smtp: SmtpReceiver | undefined;

test.after.always(async () => {
  admin?.close();
  await Promise.all(children.map((child) => child.stop("SIGKILL")));
  await smtp?.close();
  await db?.drop();
  if (streamName) {
    try {
      const nc = await connect({ servers: SHARED_NATS_URL, timeout: 1_000, reconnect: false });
      try {
        await (await jetstreamManager(nc, { timeout: 2_000 })).streams.delete(streamName);
      } finally {
        await nc.close();
      }
    } catch {}
  }
});

/** Every server-side gRPC call an instance counted (rpc_calls_total{side="server"}), by method. */
async function serverCalls(instance: Instance): Promise<{ total: number; byMethod: Record<string, number> }> {
  const text = await (await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)).text();
  const byMethod: Record<string, number> = {};
  let total = 0;
  for (const match of text.matchAll(/^rpc_calls_total\{([^}]*)\} ([0-9.e+]+)$/gm)) {
    const labels = Object.fromEntries([...match[1]!.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (labels.side !== "server") continue;
    const value = Number(match[2]);
    total += value;
    byMethod[labels.method!] = (byMethod[labels.method!] ?? 0) + value;
  }
  return { total, byMethod };
}

interface Load {
  requests: number;
  /** 503 answers this client retried (each retry counted once). */
  retried503: { path: string; code: string }[];
  /** Requests that did not end 2xx, even after two retries. */
  failures: string[];
  /** Idempotency-Key → the order id its POST answered with. */
  created: Map<string, string>;
  replayed: number;
}

test("two instances of every role: each takes a share of the internal calls, and stopping one order and one catalog instance mid-load loses nothing", async (t) => {
  t.timeout(180_000);
  const started = Date.now();
  db = await createTestDatabase("scale");
  smtp = await startSmtpReceiver();
  const bus = uniqueBusNames("SCALE");
  streamName = bus.EVENTS_STREAM;

  // Two addresses per service; each instance listens on its own and dials the others' lists.
  const ports = Object.fromEntries(await Promise.all(SERVICES.map(async (service) => [service, [await freePort(), await freePort()]]))) as Record<Service, number[]>;
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const lists = Object.fromEntries(SERVICES.map((service) => [VARIABLE[service], ports[service].map(url).join(",")]));
  const common = {
    DATABASE_URL: db.url,
    NATS_URL: SHARED_NATS_URL,
    ...bus,
    ...lists,
    RATE_LIMIT_PER_MINUTE: "1000000",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    SMTP_URL: smtp.url,
  };
  const instances: Record<Service | "gateway", Instance[]> = { catalog: [], order: [], webhook: [], gateway: [] };
  const spawn = async (role: Service | "gateway", n: number, env: Record<string, string>) => {
    const metricsPort = await freePort();
    const child = spawnEntry(role === "gateway" ? "gateway/main.ts" : `services/${role}/main.ts`, { ...common, ...env, METRICS_PORT: String(metricsPort) });
    children.push(child);
    await child.waitFor(new RegExp(`"msg":"${role} listening"`), 60_000);
    instances[role][n] = { name: `${role}-${n + 1}`, child, metricsPort };
  };
  await Promise.all([0, 1].map((n) => spawn("catalog", n, { CATALOG_ADDR: url(ports.catalog[n]!) })));
  await Promise.all(
    (["order", "webhook"] as const).flatMap((service) => [0, 1].map((n) => spawn(service, n, { [VARIABLE[service]]: url(ports[service][n]!) }))),
  );
  const gatewayPorts = [await freePort(), await freePort()];
  await Promise.all([0, 1].map((n) => spawn("gateway", n, { HOST: "127.0.0.1", PORT: String(gatewayPorts[n]), PUBLIC_BASE_URL: url(gatewayPorts[n]!) })));
  const gateways = gatewayPorts.map(url);
  const startedUpMs = Date.now() - started;

  // A store with a bank account (bank transfers), three products and a key.
  admin = createRpcChannel(lists.CATALOG_ADDR!, { timeoutMs: 10_000, actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN, logger: pino({ level: "silent" }) });
  const { store } = await admin.client(StoreService).createStore({
    name: "Scale Store",
    plan: Plan.GROWTH,
    bankAccount: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "Scale Holder" },
  });
  const storeId = store!.id;
  const products: string[] = [];
  for (const price of [10_000n, 15_000n, 20_000n]) {
    const { item } = await admin.client(CatalogService).createProduct({ storeId, title: `Kopi ${price}`, price, status: ItemStatus.PUBLISHED });
    products.push(item!.id);
  }
  const { secret: key } = await admin.client(StoreService).createApiKey({ storeId, name: "scale" });
  for (const gateway of gateways) await waitFor(async () => (await api(gateway, "/readyz").catch(() => undefined))?.status === 200, 30_000, 200);

  const load: Load = { requests: 0, retried503: [], failures: [], created: new Map(), replayed: 0 };
  let turn = 0;
  let inFlight = 0;
  /** One API request through the next gateway in turn; a 503 is retried (twice at most) on the next one. */
  async function request(path: string, init: Parameters<typeof api>[2] = {}): Promise<ApiResponse> {
    for (let attempt = 0; ; attempt++) {
      const gateway = gateways[turn++ % gateways.length]!;
      load.requests++;
      inFlight++;
      const response = await api(gateway, path, { ...init, key })
        .catch((error: Error) => ({ status: 0, text: error.message }) as ApiResponse)
        .finally(() => inFlight--);
      if (response.status === 503 && attempt < 2) {
        load.retried503.push({ path: path.replace(/[0-9a-f-]{36}/, "{id}"), code: response.body?.error?.code });
        // Retry-After says 2 s; a moment is enough to land on the other instance.
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      if (response.status < 200 || response.status >= 300) load.failures.push(`${init.method ?? "GET"} ${path}: ${response.status} ${response.text.slice(0, 200)}`);
      return response;
    }
  }

  /** What one shopper does: a catalog page, an order (with an Idempotency-Key), the order read back. */
  async function shop(n: number, withReadiness: boolean) {
    await request(`/v1/products?limit=${1 + (n % 3)}`);
    const idempotencyKey = randomUUID();
    const created = await request("/v1/orders", {
      method: "POST",
      headers: { "idempotency-key": idempotencyKey },
      json: {
        items: [{ product_id: products[n % products.length], quantity: 1 + (n % 4) }],
        buyer,
        payment_method: "bank_transfer",
        external_id: idempotencyKey,
      },
    });
    const id = created.body?.data?.order?.id as string | undefined;
    if (created.status !== 201 || !id) return;
    if (created.headers.get("idempotent-replayed") === "true") load.replayed++;
    load.created.set(idempotencyKey, id);
    const read = await request(`/v1/orders/${id}`);
    if (read.status === 200 && (read.body?.data?.order?.id !== id || read.body?.data?.order?.external_id !== idempotencyKey)) {
      load.failures.push(`GET /v1/orders/${id} answered another order: ${read.text.slice(0, 200)}`);
    }
    // A load balancer's readiness probe: the only calls the webhook service gets from the API.
    if (withReadiness) await request("/readyz");
  }

  /** `workers` shoppers at once, each going on until `until()` says stop. */
  async function drive(workers: number, until: (done: number) => boolean, withReadiness: boolean) {
    let done = 0;
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (!until(done)) await shop(done++, withReadiness);
      }),
    );
    return done;
  }

  // 1. Everything up: every instance takes its share.
  const phase1 = await drive(4, (done) => done >= 40, true);
  const share1 = Object.fromEntries(await Promise.all(SERVICES.flatMap((s) => instances[s]).map(async (i) => [i.name, await serverCalls(i)] as const)));
  for (const service of SERVICES) {
    const [a, b] = instances[service].map((i) => share1[i.name]!.total);
    t.log(`${service}: ${instances[service][0]!.name} answered ${a} calls, ${instances[service][1]!.name} ${b}`);
    // Round robin from each caller: about half each, never all on one.
    t.true(a! >= (a! + b!) / 4 && b! >= (a! + b!) / 4, `${service} calls spread over both instances: ${a} and ${b}`);
  }

  // 2. One order and one catalog instance stopped mid-load; the load goes on well past their exit.
  const [stoppedOrder, keptOrder] = instances.order;
  const [stoppedCatalog, keptCatalog] = instances.catalog;
  let exits: Promise<(number | null)[]> | undefined;
  let exited = false;
  let doneAtExit = Number.POSITIVE_INFINITY;
  let doneNow = 0;
  const atStop = { inFlight: 0, orderCalls: 0, catalogCalls: 0 };
  const phase2 = await drive(
    4,
    (done) => {
      doneNow = done;
      if (done >= 20 && !exits) {
        exits = (async () => {
          // What the two had taken of this phase's load, read just before they are stopped.
          const [order, catalog] = await Promise.all([serverCalls(stoppedOrder!), serverCalls(stoppedCatalog!)]);
          atStop.orderCalls = order.total - share1[stoppedOrder!.name]!.total;
          atStop.catalogCalls = catalog.total - share1[stoppedCatalog!.name]!.total;
          atStop.inFlight = inFlight;
          return Promise.all([stoppedOrder!.child.stop("SIGTERM"), stoppedCatalog!.child.stop("SIGTERM")]);
        })();
        void exits.then(() => {
          exited = true;
          doneAtExit = doneNow;
        });
      }
      return exited && done >= doneAtExit + 40;
    },
    false,
  );
  const exitCodes = await exits!;
  t.deepEqual(exitCodes, [0, 0], "the stopped instances drained and exited 0 on SIGTERM");
  t.log(
    `SIGTERM to ${stoppedOrder!.name} and ${stoppedCatalog!.name} with ${atStop.inFlight} API requests in flight; ` +
      `in this phase they had answered ${atStop.orderCalls} and ${atStop.catalogCalls} calls`,
  );
  t.true(atStop.orderCalls > 0 && atStop.catalogCalls > 0, "they were stopped in the middle of taking their share");

  // Every request ended 2xx; the 503s were retried and are counted here.
  t.deepEqual(load.failures, [], "every request ended 2xx");
  t.log(`${load.requests} API requests (${phase1} + ${phase2} shoppers); 503s retried: ${load.retried503.length} ${JSON.stringify(load.retried503)}; replayed orders: ${load.replayed}`);

  // No order lost or made twice: the client's list, GET and the database agree.
  t.is(load.created.size, phase1 + phase2, "every shopper's order was created");
  t.is(new Set(load.created.values()).size, load.created.size, "no two keys made the same order");
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ id: string; external_id: string }[]>`select id, external_id from orders.orders where store_id = ${storeId}`;
    t.is(rows.length, load.created.size, "the database holds exactly the orders the client was told about");
    const pairs = (entries: Iterable<[string, string]>) => [...entries].map(([k, id]) => `${k} → ${id}`).sort();
    t.deepEqual(pairs(rows.map((row) => [row.external_id, row.id])), pairs(load.created), "each key's order, and no other");
  } finally {
    await sql.end({ timeout: 1 });
  }
  // Each order's buyer was told what to pay once, whichever order instance's worker took it
  // (docs/payments.md#buyer-mail); the Message-ID names the order and the kind.
  const receivedFor = () =>
    smtp!.messages.map((mail) => /^Message-ID:\s*<buyer\.received\.([0-9a-f-]{36})@/im.exec(mail.raw)?.[1]).filter((id): id is string => id !== undefined);
  const orderIds = [...load.created.values()];
  await waitFor(async () => orderIds.every((id) => receivedFor().includes(id)), 60_000, 250);
  const mailed = receivedFor();
  t.deepEqual(
    orderIds.filter((id) => mailed.filter((other) => other === id).length !== 1),
    [],
    `each of ${orderIds.length} buyers got "order received" exactly once (${mailed.length} such mails)`,
  );
  for (const [idempotencyKey, id] of [...load.created].filter((_, i) => i % 10 === 0)) {
    const read = await request(`/v1/orders/${id}`);
    t.is(read.body?.data?.order?.external_id, idempotencyKey);
  }

  // The remaining instances carried the load on their own.
  const share2 = { order: await serverCalls(keptOrder!), catalog: await serverCalls(keptCatalog!) };
  t.log(`after the stop: ${keptOrder!.name} answered ${share2.order.total - share1[keptOrder!.name]!.total} more calls, ${keptCatalog!.name} ${share2.catalog.total - share1[keptCatalog!.name]!.total} more`);
  t.true((share2.order.byMethod.CreateOrder ?? 0) - (share1[keptOrder!.name]!.byMethod.CreateOrder ?? 0) >= phase2 / 2, "the remaining order instance took the orders");
  t.true(share2.catalog.total > share1[keptCatalog!.name]!.total, "the remaining catalog instance kept answering");
  for (const gateway of gateways) {
    await waitFor(async () => (await api(gateway, "/readyz")).status === 200, 30_000, 200);
  }
  t.log(`start-up ${Math.round(startedUpMs / 1000)} s, whole test ${Math.round((Date.now() - started) / 1000)} s`);
});
