// An event recorded while its endpoint is being enabled reaches it once, whichever
// commits first (docs/webhooks.md#failing-endpoints, "Resend failed since"). The two transactions are held
// open on real PostgreSQL and interleaved by hand: the consumer's recording
// (recordEvents in db/events.ts) and the service's enable, over the in-memory routes.
import path from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import test from "ava";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { OPERATOR } from "../../common/actor.js";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { connectDb, migrate } from "../../platform/db.js";
import { createLogger } from "../../platform/logger.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { createWebhookDomain } from "../../services/webhook/domain.js";
import { createWebhookRoutes } from "../../services/webhook/routes.js";
import { createSecretBox } from "../../services/webhook/secret-box.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { lockEndpoint, updateEndpoint } from "../../services/webhook/db/endpoints.js";
import { listEvents, recordEvents, type NewEvent } from "../../services/webhook/db/events.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";

const logger = createLogger("test", "silent");
const migrations = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../services/webhook/migrations");

let db: TestDatabase;
let sql: ReturnType<typeof connectDb>;
test.before(async () => {
  db = await createTestDatabase();
  sql = connectDb(db.url, { schema: WEBHOOK_SCHEMA, max: 6 });
  await migrate(sql, WEBHOOK_SCHEMA, migrations, logger);
});
test.after.always(async () => {
  await sql?.end({ timeout: 5 });
  await db?.drop();
});

function client() {
  const domain = createWebhookDomain({
    sql,
    logger,
    box: createSecretBox("enable-race-test-master-key"),
    allowHttp: false,
    rotationOverlapMs: 3_600_000,
    eventRetentionMs: 30 * 86_400_000,
    onRequeued: () => {},
  });
  return createClient(WebhookService, createRouterTransport(createWebhookRoutes(domain), { transport: { interceptors: [actorInterceptor(() => OPERATOR)] } }));
}

/** A store with one endpoint, switched off by the store. */
async function disabledEndpoint(webhooks: ReturnType<typeof client>) {
  const storeId = randomUUID();
  const { endpoint } = await webhooks.createEndpoint({ storeId, url: "https://hooks.example/orders" });
  await webhooks.updateEndpoint({ storeId, endpointId: endpoint!.id, enabled: false });
  return { storeId, endpointId: endpoint!.id };
}

function paidEvent(storeId: string): NewEvent {
  const orderId = randomUUID();
  return { id: randomUUID(), store_id: storeId, type: "order.paid", order_id: orderId, body: JSON.stringify({ type: "order.paid", data: { order: { id: orderId } } }) };
}

/** Settles once `pending` has settled or some statement of this database waits for a lock. */
async function settledOrBlocked(pending: Promise<unknown>): Promise<"settled" | "blocked"> {
  let settled = false;
  void pending.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (;;) {
    if (settled) return "settled";
    const [waiting] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    if (waiting!.n > 0) return "blocked";
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const deliveriesOf = async (endpointId: string, eventId: string) => [
  ...(await sql<{ kind: string; status: string }[]>`select kind, status from deliveries where endpoint_id = ${endpointId} and event_id = ${eventId}`),
];

test("recorded while the endpoint is off, committed after the enable began: the enable waits, and its resend sends the event", async (t) => {
  const webhooks = client();
  const { storeId, endpointId } = await disabledEndpoint(webhooks);
  const event = paidEvent(storeId);
  const commit = gate();
  const recorded = gate();
  const consumer = sql.begin(async (tx) => {
    const queued = await recordEvents(tx, [event]);
    recorded.open();
    await commit.opened;
    return queued;
  });
  await recorded.opened;

  const enable = webhooks.updateEndpoint({ storeId, endpointId, enabled: true, resendFailedSince: new Date(Date.now() - 60_000).toISOString() });
  t.is(await settledOrBlocked(enable), "blocked", "the enable waits for the recording in flight");
  commit.open();
  t.is(await consumer, 0, "recorded while off: no delivery of its own");
  const { endpoint } = await enable;
  t.true(endpoint!.enabled);
  t.deepEqual(await deliveriesOf(endpointId, event.id), [{ kind: "replay", status: "pending" }], "sent once, by the resend");
});

test("recorded while the enable is written: the recording waits, reads the endpoint as enabled, and sends the event", async (t) => {
  const webhooks = client();
  const { storeId, endpointId } = await disabledEndpoint(webhooks);
  const event = paidEvent(storeId);
  const commit = gate();
  const updated = gate();
  // The enable's own statement, as the service writes it, held before its commit.
  const enable = sql.begin(async (tx) => {
    await lockEndpoint(tx, storeId, endpointId);
    await updateEndpoint(tx, storeId, endpointId, { enabled: true });
    updated.open();
    await commit.opened;
  });
  await updated.opened;

  const consumer = recordEvents(sql, [event]);
  t.is(await settledOrBlocked(consumer), "blocked", "the recording waits for the enable in flight");
  commit.open();
  await enable;
  t.is(await consumer, 1);
  t.deepEqual(await deliveriesOf(endpointId, event.id), [{ kind: "event", status: "pending" }]);
});

test("an endpoint off before and after, or subscribed to other types, still gets nothing; the event is in the log, with or without its body", async (t) => {
  const webhooks = client();
  const { storeId, endpointId } = await disabledEndpoint(webhooks);
  const { endpoint: other } = await webhooks.createEndpoint({ storeId, url: "https://hooks.example/refunds", events: { types: ["order.refunded"] } });
  const event = paidEvent(storeId);
  t.is(await recordEvents(sql, [event]), 0);
  t.deepEqual(await deliveriesOf(endpointId, event.id), []);
  t.deepEqual(await deliveriesOf(other!.id, event.id), []);
  const listed = await listEvents(sql, storeId, { notBefore: new Date(0) }, 10);
  t.deepEqual(listed.map(({ event: e }) => [e.id, e.body]), [[event.id, event.body]], "in the log");
  const lean = await listEvents(sql, storeId, { notBefore: new Date(0), withoutBodies: true }, 10);
  t.deepEqual(lean.map(({ event: e }) => [e.id, e.type, e.body]), [[event.id, "order.paid", ""]], "and listed without its body when asked");
});
