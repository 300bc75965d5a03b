// The catalog, order and webhook services as real child processes (their own entry
// points, as `npm run start:*` runs them) on free loopback ports, a database of their
// own and NATS JetStream; plus a loopback webhook receiver that can be slow, answer
// errors, or be closed and opened again on the same port. For fault and scale tests.
import http from "node:http";
import type { Socket } from "node:net";
import type { ExecutionContext } from "ava";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { CatalogService, ItemStatus, Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { createRpcChannel, type RpcChannel } from "../../platform/rpc-client.js";
import { OPERATOR } from "../../common/actor.js";
import { createTestDatabase, type TestDatabase } from "./db.js";
import { TEST_INTERNAL_TOKEN } from "./internal-token.js";
import { waitFor } from "./http.js";
import { uniqueBusNames } from "./nats.js";
import { freePort, spawnEntry, type Spawned } from "./process.js";

export const buyer = { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" };

export type ServiceName = "catalog" | "order" | "webhook";

export interface ServicesOptions {
  natsUrl: string;
  /** Stream and consumer names; a unique pair by default. */
  busNames?: { EVENTS_STREAM: string; EVENTS_CONSUMER: string };
  /** Extra environment for every service (e.g. WEBHOOK_RETRY_SCHEDULE). */
  env?: Record<string, string>;
}

/**
 * A database, addresses and bus names of the test's own; services are spawned on
 * demand and every process spawned is remembered so `close()` can kill it.
 */
export async function createServices(options: ServicesOptions) {
  const db: TestDatabase = await createTestDatabase("wf");
  const busNames = options.busNames ?? uniqueBusNames("WF");
  const addrs = {
    CATALOG_ADDR: `http://127.0.0.1:${await freePort()}`,
    ORDER_ADDR: `http://127.0.0.1:${await freePort()}`,
    WEBHOOK_ADDR: `http://127.0.0.1:${await freePort()}`,
  };
  const baseEnv: Record<string, string> = {
    DATABASE_URL: db.url,
    NATS_URL: options.natsUrl,
    ...addrs,
    ...busNames,
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
    ...options.env,
  };
  const children: Spawned[] = [];
  const channels: RpcChannel[] = [];
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });

  const channel = (addr: string) => {
    const made = createRpcChannel(addr, { timeoutMs: 10_000, actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN });
    channels.push(made);
    return made;
  };
  const catalogChannel = channel(addrs.CATALOG_ADDR);
  const orderChannel = channel(addrs.ORDER_ADDR);
  const webhookChannel = channel(addrs.WEBHOOK_ADDR);

  /** Spawns one service and waits for it to listen. */
  async function spawn(name: ServiceName, extraEnv: Record<string, string> = {}): Promise<Spawned> {
    const child = spawnEntry(`services/${name}/main.ts`, { ...baseEnv, ...extraEnv });
    children.push(child);
    await child.waitFor(new RegExp(`"msg":"${name} listening"`), 60_000);
    return child;
  }

  return {
    db,
    busNames,
    addrs,
    env: baseEnv,
    children,
    spawn,
    /** SQL on the whole database (schema-qualified names: orders.outbox, webhooks.deliveries). */
    sql,
    stores: catalogChannel.client(StoreService),
    catalog: catalogChannel.client(CatalogService),
    orders: orderChannel.client(OrderService),
    webhooks: webhookChannel.client(WebhookService),

    /** A store with a bank account (so bank_transfer works), one product and a webhook endpoint. */
    async setUpStore(receiverUrl: string, name = "Fault Store") {
      const { store } = await this.stores.createStore({
        name,
        plan: Plan.GROWTH,
        bankAccount: { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "Test Holder" },
      });
      const { item } = await this.catalog.createProduct({
        storeId: store!.id,
        title: "Kopi Susu",
        price: 25_000n,
        status: ItemStatus.PUBLISHED,
      });
      const { secret } = await this.webhooks.setEndpoint({ storeId: store!.id, url: receiverUrl });
      return { storeId: store!.id, productId: item!.id, secret };
    },

    async createOrder(store: { storeId: string; productId: string }) {
      const response = await this.orders.createOrder({
        storeId: store.storeId,
        items: [{ ref: { case: "productId", value: store.productId }, quantity: 1 }],
        buyer,
        paymentMethod: "bank_transfer",
        requestHash: "",
      });
      return response.detail!.order!;
    },

    /** Every event id the order service has written to its outbox. */
    async outboxIds(): Promise<string[]> {
      const rows = await sql<{ id: string }[]>`select id from orders.outbox order by created_at`;
      return rows.map((row) => row.id);
    },

    async unpublishedCount(): Promise<number> {
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from orders.outbox where published_at is null`;
      return row!.n;
    },

    /** How many messages the JetStream stream holds (re-publishes with a known id are dropped). */
    async streamMessages(): Promise<number> {
      const nc = await connect({ servers: options.natsUrl, timeout: 2_000, reconnect: false });
      try {
        const info = await (await jetstreamManager(nc, { timeout: 3_000 })).streams.info(busNames.EVENTS_STREAM);
        return info.state.messages;
      } finally {
        await nc.close();
      }
    },

    /** Delivery rows by status, for diagnostics. */
    async deliveryStatuses(): Promise<Record<string, number>> {
      const rows = await sql<{ status: string; n: number }[]>`
        select status, count(*)::int as n from webhooks.deliveries group by status`.catch(() => []);
      return Object.fromEntries(rows.map((row) => [row.status, row.n]));
    },

    async close() {
      await Promise.all(children.map((child) => child.stop("SIGKILL")));
      for (const made of channels) made.close();
      await sql.end({ timeout: 1 });
      await db.drop();
      // Leave no stream of ours on a shared server (a stopped private one needs nothing).
      try {
        const nc = await connect({ servers: options.natsUrl, timeout: 1_000, reconnect: false });
        try {
          await (await jetstreamManager(nc, { timeout: 2_000 })).streams.delete(busNames.EVENTS_STREAM);
        } finally {
          await nc.close();
        }
      } catch {}
    },
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  /** The sender's TCP port (each attempt is a fresh connection). */
  remotePort: number;
  /** The status the receiver answered with (set once it decides; undefined while it waits). */
  answered?: number;
}

export type Reply = { status: number; headers?: Record<string, string>; body?: string };

/**
 * A loopback HTTP receiver on a fixed port that may be closed and listened on again
 * (the same port), answers through an async `respond` (so it can be slow), and
 * records every request the moment its body has arrived.
 */
export async function startHookReceiver(
  options: { port?: number; listen?: boolean; respond?: (request: Received) => Reply | Promise<Reply>; onRequest?: (request: Received) => void } = {},
) {
  const port = options.port ?? (await freePort());
  const received: Received[] = [];
  let respond: (request: Received) => Reply | Promise<Reply> = options.respond ?? (() => ({ status: 200 }));
  const sockets = new Set<Socket>();
  let server: http.Server | undefined;

  const makeServer = () => {
    const made = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const entry: Received = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          at: Date.now(),
          remotePort: req.socket.remotePort ?? 0,
        };
        received.push(entry);
        options.onRequest?.(entry);
        Promise.resolve(respond(entry)).then(
          (reply) => {
            entry.answered = reply.status;
            if (res.destroyed || res.writableEnded) return;
            res.writeHead(reply.status, reply.headers);
            res.end(reply.body ?? "");
          },
          () => res.destroy(),
        );
      });
    });
    made.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    });
    return made;
  };

  const receiver = {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    respondWith(next: typeof respond) {
      respond = next;
    },
    get listening() {
      return server !== undefined;
    },
    async listen() {
      if (server) return;
      const made = makeServer();
      await new Promise<void>((resolve, reject) => {
        made.once("error", reject);
        made.listen(port, "127.0.0.1", () => resolve());
      });
      server = made;
    },
    /** Closes the port and drops every open connection. */
    async close() {
      const current = server;
      server = undefined;
      if (!current) return;
      for (const socket of sockets) socket.destroy();
      current.closeAllConnections();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    /** Distinct webhook-ids the receiver accepted (answered 2xx) so far. */
    ids(): Set<string> {
      return new Set(
        received
          .filter((entry) => entry.answered !== undefined && entry.answered >= 200 && entry.answered < 300)
          .map((entry) => String(entry.headers["webhook-id"])),
      );
    },
  };
  if (options.listen !== false) await receiver.listen();
  return receiver;
}

export type HookReceiver = Awaited<ReturnType<typeof startHookReceiver>>;

/**
 * The fault-test invariant: every event in the outbox is received and accepted (2xx)
 * at least once (deduped by webhook-id, which is the event id), and every request received
 * verifies with the endpoint's secret and parses as an event of the right shape.
 * Returns the outbox ids.
 */
export async function assertEveryEventDelivered(
  t: ExecutionContext,
  services: Services,
  receiver: HookReceiver,
  secret: string,
  ms = 60_000,
): Promise<string[]> {
  let ids: string[] = [];
  let missing: string[] = [];
  try {
    await waitFor(async () => {
      ids = await services.outboxIds();
      const got = receiver.ids();
      missing = ids.filter((id) => !got.has(id));
      return ids.length > 0 && missing.length === 0;
    }, ms, 250);
  } catch {
    t.fail(
      `${missing.length} of ${ids.length} outbox events never arrived (e.g. ${missing.slice(0, 3).join(", ")}); ` +
        `unpublished in outbox: ${await services.unpublishedCount()}; deliveries: ${JSON.stringify(await services.deliveryStatuses())}`,
    );
    return ids;
  }
  t.pass(`all ${ids.length} outbox events arrived`);
  const outbox = new Set(ids);
  const verifier = new Webhook(secret);
  let bad = 0;
  for (const entry of receiver.received) {
    const id = String(entry.headers["webhook-id"]);
    try {
      const event = verifier.verify(entry.body, {
        "webhook-id": id,
        "webhook-timestamp": String(entry.headers["webhook-timestamp"]),
        "webhook-signature": String(entry.headers["webhook-signature"]),
      }) as { type?: string; timestamp?: string; data?: { store_id?: string; order?: { id?: string; updated_at?: string } } };
      const parsed = JSON.parse(entry.body);
      if (
        typeof event.type !== "string" ||
        typeof event.timestamp !== "string" ||
        typeof parsed.data?.store_id !== "string" ||
        typeof parsed.data?.order?.id !== "string" ||
        !("previous_status" in parsed.data) ||
        !outbox.has(id)
      ) {
        bad++;
        t.log(`unexpected event ${id}: ${entry.body.slice(0, 300)}`);
      }
    } catch (error) {
      bad++;
      t.log(`request ${id} does not verify: ${(error as Error).message}`);
    }
  }
  t.is(bad, 0, "every request received verifies, parses and is an outbox event");
  // The webhook service agrees: one delivery per event, each succeeded (the last
  // attempt's outcome may commit a moment after the receiver answered).
  let statuses: Record<string, number> = {};
  await waitFor(async () => {
    statuses = await services.deliveryStatuses();
    return statuses.succeeded === ids.length && Object.keys(statuses).length === 1;
  }, 30_000, 250).catch(() => {});
  t.deepEqual(statuses, { succeeded: ids.length }, "every delivery row ends succeeded");
  return ids;
}

/** Per webhook-id, how many requests arrived. */
export function arrivals(receiver: HookReceiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of receiver.received) {
    const id = String(entry.headers["webhook-id"]);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
