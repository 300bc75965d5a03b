// Fault injection across real processes: the catalog, order and webhook services run
// from their own entry points against real PostgreSQL and real NATS JetStream, and a
// real loopback receiver takes the webhooks. Whatever breaks (NATS, the webhook
// service, the receiver, the order service), every event the order service wrote to
// its outbox is eventually received at least once (docs/orders.md#outbox, docs/webhooks.md), and every request
// verifies with the endpoint's secret.
import test, { type ExecutionContext } from "ava";
import { waitFor } from "../helpers/http.js";
import { SHARED_NATS_URL, startPrivateNats } from "../helpers/nats.js";
import {
  arrivals,
  assertEveryEventDelivered,
  createServices,
  sleep,
  startHookReceiver,
  type HookReceiver,
  type Services,
} from "../helpers/service-processes.js";

// Short, and long enough in all (~28 s of retries) that a receiver that is down for a
// few seconds on a slow machine never exhausts it.
const SCHEDULE = "300ms,300ms,500ms,1s,1s,2s,2s,2s,2s,2s,5s,5s,5s";

const stacks: Services[] = [];
const receivers: HookReceiver[] = [];
const natsServers: Awaited<ReturnType<typeof startPrivateNats>>[] = [];

test.after.always(async () => {
  await Promise.allSettled(stacks.map((services) => services.close()));
  await Promise.allSettled(receivers.map((receiver) => receiver.close()));
  await Promise.allSettled(natsServers.map((nats) => nats.close()));
});

async function services(natsUrl: string, env: Record<string, string> = {}) {
  const made = await createServices({ natsUrl, env: { WEBHOOK_RETRY_SCHEDULE: SCHEDULE, ...env } });
  stacks.push(made);
  return made;
}

async function receiver(options: Parameters<typeof startHookReceiver>[0] = {}) {
  const made = await startHookReceiver(options);
  receivers.push(made);
  return made;
}

/** Outbox rows of one order, by event type. */
async function outboxTypes(stack: Services, orderId: string): Promise<string[]> {
  const rows = await stack.sql<{ event_type: string }[]>`
    select event_type from orders.outbox where order_id = ${orderId}`;
  return rows.map((row) => row.event_type).sort();
}

function logDuplicates(t: ExecutionContext, hooks: HookReceiver) {
  const repeated = [...arrivals(hooks).values()].filter((n) => n > 1).length;
  t.log(`${hooks.received.length} requests for ${arrivals(hooks).size} events (${repeated} sent more than once)`);
}

test.serial("NATS stopped while orders change status, then started: no event is lost", async (t) => {
  t.timeout(240_000);
  const nats = await startPrivateNats();
  natsServers.push(nats);
  const stack = await services(nats.url);
  const hooks = await receiver();
  await stack.spawn("catalog");
  await stack.spawn("webhook");
  await stack.spawn("order");
  const store = await stack.setUpStore(hooks.url);

  const before = [];
  for (let i = 0; i < 3; i++) before.push(await stack.createOrder(store));
  await waitFor(() => hooks.ids().size >= 3, 60_000, 100);
  t.pass("events flow while NATS is up");

  await nats.stop();
  // The order service keeps working: every change commits with its outbox rows.
  const during = [];
  for (let i = 0; i < 4; i++) during.push(await stack.createOrder(store));
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: during[0]!.id });
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: during[1]!.id });
  await stack.orders.cancelOrder({ storeId: store.storeId, orderId: during[2]!.id });
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: before[0]!.id });
  t.deepEqual(await outboxTypes(stack, during[0]!.id), ["order.created", "order.paid", "orderUpdated"]);
  t.deepEqual(await outboxTypes(stack, during[2]!.id), ["order.cancelled", "order.created", "orderUpdated"]);

  await sleep(2_000);
  const waiting = await stack.unpublishedCount();
  t.log(`${waiting} events wait in the outbox while NATS is down`);
  t.true(waiting >= 10, "the events written during the outage wait in the outbox");

  await nats.start();
  const ids = await assertEveryEventDelivered(t, stack, hooks, store.secret, 120_000);
  t.is(ids.length, 3 + 4 + 3 * 2 + 2);
  await waitFor(async () => (await stack.unpublishedCount()) === 0, 30_000, 250);
  // Publishes buffered during the outage and the relay's re-publishes carry the same
  // message ids: the stream holds each event once.
  t.is(await stack.streamMessages(), ids.length, "one stream message per event");
  logDuplicates(t, hooks);
});

test.serial("the webhook service SIGKILLed mid-delivery and restarted: leased deliveries resume", async (t) => {
  t.timeout(240_000);
  const stack = await services(SHARED_NATS_URL);
  // A slow receiver: every request waits 1.5 s for its answer, so deliveries are in flight.
  const hooks = await receiver({ respond: async () => (await sleep(1_500), { status: 200 }) });
  await stack.spawn("catalog");
  const webhook = await stack.spawn("webhook");
  await stack.spawn("order");
  const store = await stack.setUpStore(hooks.url);

  const orders = [];
  for (let i = 0; i < 8; i++) orders.push(await stack.createOrder(store));
  for (const order of orders.slice(0, 4)) await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: order.id });

  // Requests are on the wire and unanswered: kill the sender now.
  await waitFor(() => hooks.received.some((entry) => entry.answered === undefined), 60_000, 20);
  webhook.child.kill("SIGKILL");
  await webhook.exited;
  const leased = await stack.sql<{ n: number }[]>`
    select count(*)::int as n from webhooks.deliveries where status = 'pending' and leased_until > clock_timestamp()`;
  t.log(`killed with ${hooks.received.filter((e) => e.answered === undefined).length} requests in flight, ${leased[0]!.n} deliveries leased`);
  t.true(leased[0]!.n > 0, "the killed process held leases on deliveries it had not finished");

  await stack.spawn("webhook");
  // Events made after the restart are delivered as well.
  const later = await stack.createOrder(store);
  await stack.orders.cancelOrder({ storeId: store.storeId, orderId: later.id });

  // Leases run out after 20 s (15 s timeout + 5 s) and unacked bus messages come back
  // after JetStream's ack wait (30 s): allow for both.
  const ids = await assertEveryEventDelivered(t, stack, hooks, store.secret, 120_000);
  t.is(ids.length, 8 + 4 * 2 + 1 + 2);
  logDuplicates(t, hooks);
});

test.serial("the receiver down for a while, then answering 503, then up: deliveries retry and all arrive", async (t) => {
  t.timeout(240_000);
  const stack = await services(SHARED_NATS_URL);
  // A port of its own, closed for now: connections are refused.
  const hooks = await receiver({ listen: false });
  await stack.spawn("catalog");
  await stack.spawn("webhook");
  await stack.spawn("order");
  const store = await stack.setUpStore(hooks.url);

  const orders = [];
  for (let i = 0; i < 4; i++) orders.push(await stack.createOrder(store));
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: orders[0]!.id });
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: orders[1]!.id });
  await stack.orders.cancelOrder({ storeId: store.storeId, orderId: orders[2]!.id });
  const expected = 4 + 3 * 2;

  // Every delivery has been tried at least twice against the closed port.
  await waitFor(async () => {
    const [row] = await stack.sql<{ n: number; least: number | null }[]>`
      select count(*)::int as n, min(attempts)::int as least from webhooks.deliveries`;
    return row!.n === expected && (row!.least ?? 0) >= 2;
  }, 60_000, 100);
  const refused = await stack.sql<{ n: number }[]>`
    select count(*)::int as n from webhooks.delivery_attempts where result = 'network_error'`;
  t.log(`${refused[0]!.n} attempts found the port closed`);
  t.is(hooks.received.length, 0);
  t.deepEqual(await stack.deliveryStatuses(), { pending: expected }, "nothing is given up while the schedule lasts");

  // Up, but failing: 503 for a while.
  hooks.respondWith(() => ({ status: 503, body: "maintenance" }));
  await hooks.listen();
  // Every delivery is answered 503 at least once.
  await waitFor(() => new Set(hooks.received.map((entry) => entry.headers["webhook-id"])).size >= expected, 60_000, 50);
  t.is(hooks.ids().size, 0, "nothing accepted yet");

  hooks.respondWith(() => ({ status: 200 }));
  const ids = await assertEveryEventDelivered(t, stack, hooks, store.secret, 90_000);
  t.is(ids.length, expected);
  const tries = await stack.sql<{ least: number }[]>`select min(attempts)::int as least from webhooks.deliveries`;
  t.true(tries[0]!.least >= 4, "each delivery went through refused and 503 attempts before succeeding");
  logDuplicates(t, hooks);
});

test.serial("the order service SIGKILLed right after a status change commits: the committed events still arrive", async (t) => {
  t.timeout(240_000);
  const stack = await services(SHARED_NATS_URL);
  const hooks = await receiver();
  await stack.spawn("catalog");
  await stack.spawn("webhook");
  let order = await stack.spawn("order");
  const store = await stack.setUpStore(hooks.url);

  const orders = [];
  for (let i = 0; i < 5; i++) orders.push(await stack.createOrder(store));

  const changes: [string, (request: { storeId: string; orderId: string }) => Promise<unknown>, string][] = [
    [orders[0]!.id, (r) => stack.orders.markOrderPaid(r), "order.paid"],
    [orders[1]!.id, (r) => stack.orders.markOrderPaid(r), "order.paid"],
    [orders[2]!.id, (r) => stack.orders.cancelOrder(r), "order.cancelled"],
    [orders[3]!.id, (r) => stack.orders.markOrderPaid(r), "order.paid"],
  ];
  let leftUnpublished = 0;
  for (const [orderId, change, type] of changes) {
    await change({ storeId: store.storeId, orderId });
    order.child.kill("SIGKILL");
    await order.exited;
    // The change committed with its events, whatever the relay managed before the kill.
    t.deepEqual(await outboxTypes(stack, orderId), [type, "order.created", "orderUpdated"].sort());
    leftUnpublished += await stack.unpublishedCount();
    order = await stack.spawn("order");
  }
  t.log(`${leftUnpublished} events were still unpublished at the kills (summed over ${changes.length} kills)`);

  const ids = await assertEveryEventDelivered(t, stack, hooks, store.secret, 90_000);
  t.is(ids.length, 5 + changes.length * 2);
  await waitFor(async () => (await stack.unpublishedCount()) === 0, 30_000, 250);
  // Whatever was published before a kill and published again after the restart went in once.
  t.is(await stack.streamMessages(), ids.length, "one stream message per event");
  logDuplicates(t, hooks);
});
