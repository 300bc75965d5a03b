// Developer settings on the real stack (docs/webhooks.md#endpoints): several endpoints per
// store with their own subscriptions, the event log kept whether or not an endpoint
// existed, replays with the original webhook-id, signed test events, disabling,
// deleting, the limit of 10, revealing and rotating one endpoint's secret, and the
// purge of what is older than EVENT_RETENTION. Real PostgreSQL, NATS JetStream and
// loopback receivers; every delivery is verified with the standardwebhooks package.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { createInProcessBus } from "../../platform/bus.js";
import { loadConfig } from "../../platform/config.js";
import { connectDb } from "../../platform/db.js";
import { createLogger } from "../../platform/logger.js";
import { createEventConsumer } from "../../services/webhook/consumer.js";
import { createPurge, PURGE_BATCH } from "../../services/webhook/purge.js";
import { startWebhookService, WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { createTestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/http.js";
import { startReceiver, type Received, type Reply } from "../helpers/receiver.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, newShop, settled, verify, type Receiver } from "../helpers/webhooks.js";
import { capturingLogger } from "../helpers/logs.js";

const PATIENCE_MS = 30_000;
const DAY_MS = 86_400_000;

let stack: Stack;
const receivers: Receiver[] = [];
test.before(async () => {
  // A short retry schedule, so a failing first attempt leaves a pending delivery for a while.
  stack = await startStack({ webhooks: { bus: "nats", env: { WEBHOOK_RETRY_SCHEDULE: "1500ms,1500ms" } } });
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await stack?.close();
});

async function receiver(respond?: (request: Received, index: number) => Reply) {
  const started = await startReceiver(respond);
  receivers.push(started);
  return started;
}

async function rejects(t: ExecutionContext, call: Promise<unknown>, code: Code, message?: RegExp) {
  const error = ConnectError.from(await t.throwsAsync(call));
  t.is(error.code, code, `expected ${Code[code]}, got ${Code[error.code]}: ${error.rawMessage}`);
  if (message) t.regex(error.rawMessage, message);
}

const typesOf = (hooks: Receiver) => hooks.events().map((event) => event.type).sort();
const idsOf = (hooks: Receiver) => hooks.received.map((entry) => String(entry.headers["webhook-id"]));

test("two endpoints with different subscriptions each get exactly their events, signed with their own secret", async (t) => {
  const shop = await newShop(stack, "Two Endpoints Store");
  const paidHooks = await receiver();
  const allHooks = await receiver();
  const paid = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: paidHooks.url, description: "accounting", events: { types: ["order.paid"] } });
  const all = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: allHooks.url, events: { all: true } });
  t.not(paid.secret, all.secret);
  t.like(paid.endpoint, { description: "accounting", enabled: true });
  t.deepEqual(paid.endpoint!.eventTypes, ["order.paid"]);
  t.deepEqual(all.endpoint!.eventTypes, []);

  const order = await createOrder(t, stack, shop, "bank_transfer");
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: order.id });
  await waitFor(() => allHooks.received.length >= 3 && paidHooks.received.length >= 1, PATIENCE_MS);
  await settled(stack, [shop.storeId]);

  t.deepEqual(typesOf(paidHooks), ["order.paid"]);
  t.deepEqual(typesOf(allHooks), ["order.created", "order.paid", "orderUpdated"]);
  for (const entry of paidHooks.received) t.is(verify(paid.secret, entry).data.order.id, order.id);
  for (const entry of allHooks.received) t.is(verify(all.secret, entry).data.order.id, order.id);
  t.throws(() => verify(all.secret, paidHooks.received[0]!), undefined, "each endpoint has its own secret");
  // The same event reaches both with the same webhook-id and body.
  const paidAtAll = allHooks.received.find((entry) => JSON.parse(entry.body).type === "order.paid")!;
  t.is(paidAtAll.headers["webhook-id"], paidHooks.received[0]!.headers["webhook-id"]);
  t.is(paidAtAll.body, paidHooks.received[0]!.body);

  // The log: three events; order.paid delivered to both, the others to one.
  const { events } = await stack.webhooks!.listEvents({ storeId: shop.storeId });
  t.deepEqual(events.map((e) => e.type).sort(), ["order.created", "order.paid", "orderUpdated"]);
  for (const event of events) {
    t.is(event.orderId, order.id);
    const expected = event.type === "order.paid" ? [all.endpoint!.id, paid.endpoint!.id].sort() : [all.endpoint!.id];
    t.deepEqual(event.deliveries.map((d) => d.endpointId).sort(), expected, event.type);
    t.true(event.deliveries.every((d) => d.status === "succeeded" && d.kind === "event" && d.eventId === event.id));
  }
  t.deepEqual(events.map((e) => e.id).sort(), idsOf(allHooks).sort(), "each event's id is its webhook-id");
  t.deepEqual(events.find((e) => e.type === "order.paid")!.body, paidHooks.received[0]!.body, "the log keeps the exact body sent");

  // Deliveries per endpoint and by status.
  const ofPaid = await stack.webhooks!.listDeliveries({ storeId: shop.storeId, endpointId: paid.endpoint!.id });
  t.deepEqual(ofPaid.deliveries.map((d) => d.eventType), ["order.paid"]);
  t.is((await stack.webhooks!.listDeliveries({ storeId: shop.storeId, status: "succeeded" })).deliveries.length, 4);
  t.is((await stack.webhooks!.listDeliveries({ storeId: shop.storeId, status: "pending" })).deliveries.length, 0);

  // Changing the subscription changes only it; the next event follows the new one.
  const changed = await stack.webhooks!.updateEndpoint({ storeId: shop.storeId, endpointId: paid.endpoint!.id, events: { types: ["order.created"] } });
  t.like(changed.endpoint, { url: paidHooks.url, description: "accounting", enabled: true });
  t.deepEqual(changed.endpoint!.eventTypes, ["order.created"]);
  await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => paidHooks.received.length === 2 && allHooks.received.length === 4, PATIENCE_MS);
  await settled(stack, [shop.storeId]);
  t.deepEqual(typesOf(paidHooks), ["order.created", "order.paid"]);
  const everything = await stack.webhooks!.updateEndpoint({ storeId: shop.storeId, endpointId: paid.endpoint!.id, events: { all: true } });
  t.deepEqual(everything.endpoint!.eventTypes, []);
  t.deepEqual((await stack.webhooks!.getEndpoint({ storeId: shop.storeId, endpointId: paid.endpoint!.id })).endpoint!.eventTypes, []);
});

test("events made while the store had no endpoint are listed, then replayed to a new endpoint with the same webhook-id", async (t) => {
  const shop = await newShop(stack, "Replay Store");
  const start = new Date(Date.now() - 1_000);
  const order = await createOrder(t, stack, shop, "bank_transfer");
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: order.id });
  await settled(stack, [shop.storeId]);
  // The consumer acks only after the event is recorded, so settled() means it is in the log.
  const { events } = await stack.webhooks!.listEvents({ storeId: shop.storeId });
  t.deepEqual(events.map((e) => e.type).sort(), ["order.created", "order.paid", "orderUpdated"]);
  t.true(events.every((e) => e.deliveries.length === 0));
  t.deepEqual((await stack.webhooks!.listDeliveries({ storeId: shop.storeId })).deliveries, []);
  t.deepEqual((await stack.webhooks!.listEvents({ storeId: shop.storeId, type: "order.created" })).events.map((e) => e.orderId), [order.id]);
  // Newest first, and `before` pages on from the last one seen.
  const times = events.map((e) => Date.parse(e.createdAt));
  t.deepEqual([...times].sort((a, b) => b - a), times);
  const page = await stack.webhooks!.listEvents({ storeId: shop.storeId, limit: 1 });
  t.is(page.events[0]!.id, events[0]!.id);
  const next = await stack.webhooks!.listEvents({ storeId: shop.storeId, before: page.events[0]!.createdAt });
  t.deepEqual(next.events.map((e) => e.id), events.filter((e) => e.createdAt < page.events[0]!.createdAt).map((e) => e.id));

  const hooks = await receiver();
  const { endpoint, secret } = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: hooks.url, events: { types: ["order.created", "order.paid"] } });
  // RFC 3339 with an offset other than Z.
  const since = new Date(start.getTime() + 7 * 3_600_000).toISOString().replace("Z", "+07:00");
  const { queued } = await stack.webhooks!.replayEvents({ storeId: shop.storeId, endpointId: endpoint!.id, since });
  t.is(queued, 2, "orderUpdated is not among its types");
  await waitFor(() => hooks.received.length >= 2, PATIENCE_MS);
  await settled(stack, [shop.storeId]);
  t.is(hooks.received.length, 2);
  for (const entry of hooks.received) {
    const event = events.find((e) => e.id === entry.headers["webhook-id"]);
    t.truthy(event, "the original webhook-id");
    t.is(entry.body, event!.body, "the original body");
    t.is(verify(secret, entry).type, event!.type);
  }
  const replays = (await stack.webhooks!.listDeliveries({ storeId: shop.storeId, endpointId: endpoint!.id })).deliveries;
  t.true(replays.every((d) => d.kind === "replay" && d.status === "succeeded"));

  // Since after everything: nothing to replay. A bad since is INVALID_ARGUMENT.
  t.is((await stack.webhooks!.replayEvents({ storeId: shop.storeId, endpointId: endpoint!.id, since: new Date().toISOString() })).queued, 0);
  await rejects(t, stack.webhooks!.replayEvents({ storeId: shop.storeId, endpointId: endpoint!.id, since: "2024-05-01 00:00" }), Code.InvalidArgument, /^since /);
  // Another store cannot replay to this endpoint.
  const other = await newShop(stack, "Replay Intruder");
  await rejects(t, stack.webhooks!.replayEvents({ storeId: other.storeId, endpointId: endpoint!.id, since }), Code.NotFound);
  t.deepEqual((await stack.webhooks!.listEvents({ storeId: other.storeId })).events, []);
});

test("a test event arrives signed, with the documented body, and is recorded like any delivery", async (t) => {
  const shop = await newShop(stack, "Test Event Store");
  const hooks = await receiver();
  const { endpoint, secret } = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: hooks.url, events: { types: ["order.paid"] } });
  const before = Date.now();
  const { delivery } = await stack.webhooks!.sendTestEvent({ storeId: shop.storeId, endpointId: endpoint!.id });
  t.like(delivery, { kind: "test", eventType: "webhook.test", status: "pending" });
  await waitFor(() => hooks.received.length === 1, PATIENCE_MS);

  const [entry] = hooks.received;
  t.is(entry!.headers["webhook-id"], delivery!.eventId);
  t.is(entry!.headers["content-type"], "application/json");
  const body = verify(secret, entry!);
  t.deepEqual(Object.keys(body), ["type", "timestamp", "data"]);
  t.is(body.type, "webhook.test");
  t.deepEqual(body.data, { store_id: shop.storeId, endpoint_id: endpoint!.id, livemode: true });
  t.true(Date.parse(body.timestamp) >= before - 1_000 && Date.parse(body.timestamp) <= Date.now());
  t.is(entry!.body, JSON.stringify(body));

  await waitFor(async () => (await stack.webhooks!.getDelivery({ storeId: shop.storeId, deliveryId: delivery!.id })).delivery!.status === "succeeded", PATIENCE_MS);
  const { delivery: recorded } = await stack.webhooks!.getDelivery({ storeId: shop.storeId, deliveryId: delivery!.id });
  t.like(recorded, { kind: "test", attemptsMade: 1, body: entry!.body, lastError: "" });
  t.like(recorded!.attempts[0], { number: 1, statusCode: 200, result: "succeeded" });
  t.deepEqual((await stack.webhooks!.listEvents({ storeId: shop.storeId })).events, [], "not an order event");
  await rejects(t, stack.webhooks!.getDelivery({ storeId: (await newShop(stack, "Test Intruder")).storeId, deliveryId: delivery!.id }), Code.NotFound);
});

test("disabled: new events are not delivered to it (nor tests); enabled again: they are", async (t) => {
  const shop = await newShop(stack, "Disable Store");
  const hooks = await receiver();
  const { endpoint, secret } = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: hooks.url });
  const off = await stack.webhooks!.updateEndpoint({ storeId: shop.storeId, endpointId: endpoint!.id, enabled: false });
  t.like(off.endpoint, { enabled: false, disabledReason: "disabled by the store" });
  await rejects(t, stack.webhooks!.sendTestEvent({ storeId: shop.storeId, endpointId: endpoint!.id }), Code.FailedPrecondition);

  const order = await createOrder(t, stack, shop, "bank_transfer");
  await settled(stack, [shop.storeId]);
  t.is(hooks.received.length, 0);
  const { events } = await stack.webhooks!.listEvents({ storeId: shop.storeId });
  t.is(events.length, 1, "the event is kept all the same");
  t.deepEqual(events[0]!.deliveries, []);

  const on = await stack.webhooks!.updateEndpoint({ storeId: shop.storeId, endpointId: endpoint!.id, enabled: true });
  t.like(on.endpoint, { enabled: true, disabledReason: "" });
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: order.id });
  await waitFor(() => hooks.received.length >= 2, PATIENCE_MS);
  await settled(stack, [shop.storeId]);
  t.deepEqual(typesOf(hooks), ["order.paid", "orderUpdated"], "only what happened after enabling");
  for (const entry of hooks.received) t.truthy(verify(secret, entry));
});

test("deleted: gone, nothing more is sent to it (not even a pending retry), and the store's other endpoint still receives", async (t) => {
  const shop = await newShop(stack, "Delete Store");
  // The doomed receiver fails every request, so its first delivery waits for a retry.
  const doomedHooks = await receiver(() => ({ status: 503 }));
  const keptHooks = await receiver();
  const doomed = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: doomedHooks.url });
  const kept = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: keptHooks.url });

  await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => doomedHooks.received.length === 1 && keptHooks.received.length === 1, PATIENCE_MS);
  // The failed attempt is recorded: the delivery now waits for its retry.
  await waitFor(async () => {
    const [delivery] = (await stack.webhooks!.listDeliveries({ storeId: shop.storeId, endpointId: doomed.endpoint!.id })).deliveries;
    return delivery?.attemptsMade === 1 && delivery.status === "pending";
  }, PATIENCE_MS);
  const { endpoint: deleted } = await stack.webhooks!.deleteEndpoint({ storeId: shop.storeId, endpointId: doomed.endpoint!.id });
  t.is(deleted!.id, doomed.endpoint!.id);
  await rejects(t, stack.webhooks!.getEndpoint({ storeId: shop.storeId, endpointId: doomed.endpoint!.id }), Code.NotFound);
  t.deepEqual((await stack.webhooks!.listEndpoints({ storeId: shop.storeId })).endpoints.map((e) => e.id), [kept.endpoint!.id]);

  const second = await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => keptHooks.received.length === 2, PATIENCE_MS);
  await settled(stack, [shop.storeId]);
  // Past when the retry was due.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  t.is(doomedHooks.received.length, 1, "neither the retry nor the new event reached it");
  t.is(verify(kept.secret, keptHooks.received[1]!).data.order.id, second.id);
  const history = (await stack.webhooks!.listDeliveries({ storeId: shop.storeId, endpointId: doomed.endpoint!.id })).deliveries;
  t.is(history.length, 1, "its history stays readable");
  t.like(history[0], { status: "failed", lastError: "endpoint deleted", attemptsMade: 1 });
  await rejects(t, stack.webhooks!.redeliver({ storeId: shop.storeId, deliveryId: history[0]!.id }), Code.NotFound);
  const [secrets] = await stack.webhookSql!<{ n: number }[]>`select count(*)::int as n from endpoint_secrets where endpoint_id = ${doomed.endpoint!.id}`;
  t.is(secrets!.n, 0, "its secrets are forgotten");
});

test("a store has at most 10 endpoints, even when created all at once; the one-endpoint commands then ask for endpoint_id", async (t) => {
  const shop = await newShop(stack, "Ten Endpoints Store");
  const results = await Promise.allSettled(
    Array.from({ length: 13 }, (_, i) => stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: `https://hooks${i}.example.com/in` })),
  );
  const made = results.filter((r) => r.status === "fulfilled");
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => ConnectError.from(r.reason));
  t.is(made.length, 10);
  t.is(refused.length, 3);
  for (const error of refused) {
    t.is(error.code, Code.FailedPrecondition);
    t.is(error.rawMessage, "a store has at most 10 webhook endpoints");
  }
  t.is((await stack.webhooks!.listEndpoints({ storeId: shop.storeId })).endpoints.length, 10);
  await rejects(t, stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: "https://late.example.com/in" }), Code.FailedPrecondition, /at most 10/);
  await rejects(t, stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: "https://set.example.com/in" }), Code.FailedPrecondition, /endpoint_id/);
  await rejects(t, stack.webhooks!.rotateSecret({ storeId: shop.storeId }), Code.FailedPrecondition, /endpoint_id/);

  // Two concurrent SetEndpoint calls on a store without one make one endpoint, not two.
  const fresh = await newShop(stack, "Concurrent Set Store");
  const sets = await Promise.all([1, 2, 3].map((i) => stack.webhooks!.setEndpoint({ storeId: fresh.storeId, url: `https://set${i}.example.com/in` })));
  t.is(new Set(sets.map((s) => s.endpoint!.id)).size, 1);
  t.is((await stack.webhooks!.listEndpoints({ storeId: fresh.storeId })).endpoints.length, 1);
});

test("reveal returns the secret that verifies; rotating one endpoint signs its deliveries with both, the other's with its own", async (t) => {
  const shop = await newShop(stack, "Reveal Rotate Store");
  const aHooks = await receiver();
  const bHooks = await receiver();
  const a = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: aHooks.url });
  const b = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: bHooks.url });
  const revealed = await stack.webhooks!.revealSecret({ storeId: shop.storeId, endpointId: a.endpoint!.id });
  t.is(revealed.secret, a.secret);

  const rotated = await stack.webhooks!.rotateSecret({ storeId: shop.storeId, endpointId: a.endpoint!.id });
  t.is(rotated.endpoint!.id, a.endpoint!.id);
  t.not(rotated.secret, a.secret);
  const overlap = Date.parse(rotated.previousSecretExpiresAt) - Date.now();
  t.true(overlap > 23 * 3_600_000 && overlap <= 24 * 3_600_000);
  t.is((await stack.webhooks!.revealSecret({ storeId: shop.storeId, endpointId: a.endpoint!.id })).secret, rotated.secret, "reveal: the newest");
  t.is((await stack.webhooks!.revealSecret({ storeId: shop.storeId, endpointId: b.endpoint!.id })).secret, b.secret);
  await rejects(t, stack.webhooks!.revealSecret({ storeId: (await newShop(stack, "Reveal Intruder")).storeId, endpointId: a.endpoint!.id }), Code.NotFound);

  await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => aHooks.received.length === 1 && bHooks.received.length === 1, PATIENCE_MS);
  const [atA] = aHooks.received;
  t.is(String(atA!.headers["webhook-signature"]).split(" ").length, 2);
  t.deepEqual(verify(a.secret, atA!), verify(rotated.secret, atA!));
  const [atB] = bHooks.received;
  t.is(String(atB!.headers["webhook-signature"]).split(" ").length, 1, "the other endpoint was not rotated");
  t.truthy(verify(b.secret, atB!));
  t.throws(() => verify(rotated.secret, atB!));
});

test("the consumer on PostgreSQL: a redelivered message records nothing more, also for a delivery made before the event log existed", async (t) => {
  const shop = await newShop(stack, "Consumer Store");
  const hooks = await receiver();
  const { endpoint } = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: hooks.url });
  let woken = 0;
  const consume = createEventConsumer({ sql: stack.webhookSql!, logger: createLogger("test", "silent"), onRecorded: () => woken++ });
  const orderId = randomUUID();
  const body = JSON.stringify({ type: "order.paid", timestamp: new Date().toISOString(), data: { store_id: shop.storeId, order: { id: orderId }, previous_status: "pending" } });
  const message = { id: randomUUID(), storeId: shop.storeId, type: "order.paid", body: Buffer.from(body), deliveryCount: 1 };
  await consume([message]);
  await consume([{ ...message, deliveryCount: 2 }]);
  t.is(woken, 1);
  const count = async (eventId: string) => {
    const [row] = await stack.webhookSql!<{ events: number; deliveries: number }[]>`
      select (select count(*) from events where id = ${eventId})::int as events,
             (select count(*) from deliveries where event_id = ${eventId})::int as deliveries`;
    return row!;
  };
  t.deepEqual(await count(message.id), { events: 1, deliveries: 1 });

  // A delivery recorded by the previous version (no event row), redelivered after the upgrade.
  const legacy = { ...message, id: randomUUID() };
  await stack.webhookSql!`
    insert into deliveries (endpoint_id, store_id, event_id, event_type, order_id, body, status)
    values (${endpoint!.id}, ${shop.storeId}, ${legacy.id}, 'order.paid', ${orderId}, ${body}, 'succeeded')`;
  await consume([legacy]);
  t.deepEqual(await count(legacy.id), { events: 1, deliveries: 1 }, "kept in the log, not delivered twice");
  await waitFor(() => hooks.received.length === 1, PATIENCE_MS);
  await settled(stack, [shop.storeId]);
  t.deepEqual(idsOf(hooks), [message.id]);
});

/** The statements a purge takes for `rows` rows of one kind: full batches until one comes back short. */
const purgeStatements = (rows: number) => Math.floor(rows / PURGE_BATCH) + 1;

test("purge: events and settled deliveries older than EVENT_RETENTION go in batches of PURGE_BATCH; newer ones and pending deliveries stay", async (t) => {
  const storeId = randomUUID();
  const sql = stack.webhookSql!;
  const [endpoint] = await sql<{ id: string }[]>`insert into endpoints (store_id, url) values (${storeId}, 'https://purge.example.com/') returning id`;
  const old = new Date(Date.now() - stack.config.EVENT_RETENTION - DAY_MS);
  // 2,500 old events, 1,200 old settled deliveries with an attempt each, one old pending delivery, and fresh rows.
  await sql`
    insert into events (id, store_id, type, order_id, body, created_at)
    select gen_random_uuid(), ${storeId}, 'order.paid', null, '{}', ${old}::timestamptz - n * interval '1 second' from generate_series(1, 2500) n`;
  await sql`
    insert into deliveries (endpoint_id, store_id, event_id, event_type, body, status, attempts, created_at, updated_at)
    select ${endpoint!.id}, ${storeId}, gen_random_uuid(), 'order.paid', '{}', 'succeeded', 1, ${old}, ${old} from generate_series(1, 1200)`;
  await sql`
    insert into delivery_attempts (delivery_id, number, started_at, status_code, latency_ms, result)
    select id, 1, ${old}, 200, 5, 'succeeded' from deliveries where store_id = ${storeId}`;
  const [pending] = await sql<{ id: string }[]>`
    insert into deliveries (endpoint_id, store_id, event_id, event_type, body, created_at, updated_at, next_attempt_at)
    values (${endpoint!.id}, ${storeId}, gen_random_uuid(), 'order.paid', '{}', ${old}, ${old}, now() + interval '1 day') returning id`;
  const fresh = randomUUID();
  await sql`insert into events (id, store_id, type, body) values (${fresh}, ${storeId}, 'order.paid', '{}')`;
  const [recent] = await sql<{ id: string }[]>`
    insert into deliveries (endpoint_id, store_id, event_id, event_type, body, status) values (${endpoint!.id}, ${storeId}, ${fresh}, 'order.paid', '{}', 'succeeded') returning id`;

  const purge = createPurge({ sql, retentionMs: stack.config.EVENT_RETENTION });
  const counts = await purge.run();
  // Other tests' rows are all fresh: only this test's old ones go.
  t.like(counts, { events: 2500, deliveries: 1200, attempts: 1200, endpoints: 0 });
  t.is(counts.batches, purgeStatements(2500) + purgeStatements(1200) + 1 + 1, `events and deliveries ${PURGE_BATCH} a statement, endpoints 0, health hours 0`);
  const [left] = await sql<{ events: number; deliveries: string[] }[]>`
    select (select count(*) from events where store_id = ${storeId})::int as events,
           (select coalesce(array_agg(id order by id), '{}') from deliveries where store_id = ${storeId}) as deliveries`;
  t.is(left!.events, 1);
  t.deepEqual(left!.deliveries, [pending!.id, recent!.id].sort());
  t.like(await purge.run(), { events: 0, deliveries: 0, attempts: 0 });
});

test("the webhook service purges at start and logs what it removed (own database, EVENT_RETENTION=1h)", async (t) => {
  const db = await createTestDatabase();
  const sql = connectDb(db.url, { schema: WEBHOOK_SCHEMA, max: 4 });
  const lines: any[] = [];
  const config = loadConfig({ EVENT_RETENTION: "1h", WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" });
  const start = (logger = createLogger("webhook", "silent")) =>
    startWebhookService({ sql, logger, config, bus: createInProcessBus(logger), mailer: { send: () => {} }, host: "127.0.0.1", port: 0 });
  try {
    // A first start creates the schema (and purges nothing).
    await (await start()).close(100);
    const storeId = randomUUID();
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await sql`
      insert into events (id, store_id, type, body, created_at)
      select gen_random_uuid(), ${storeId}, 'order.created', '{}', ${twoHoursAgo} from generate_series(1, 1500)`;
    await sql`insert into events (id, store_id, type, body) values (${randomUUID()}, ${storeId}, 'order.created', '{}')`;

    const service = await start(capturingLogger(lines));
    try {
      await waitFor(() => lines.some((line) => line.msg === "event log purged"), 10_000, 20);
    } finally {
      await service.close(100);
    }
    const logged = lines.find((line) => line.msg === "event log purged");
    t.like(logged, { level: 30, events: 1500, deliveries: 0, attempts: 0, endpoints: 0, batches: purgeStatements(1500) + 3 });
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from events`;
    t.is(row!.n, 1, "the hour-old event stays");
  } finally {
    await sql.end({ timeout: 5 });
    await db.drop();
  }
});
