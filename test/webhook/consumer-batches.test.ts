// The consumer records what the bus hands it together, in one statement:
// on PostgreSQL, a batch with a message it cannot use still records the others, and a
// redelivered batch records nothing new; on both buses, a batch is acked or handed out
// again as a whole, and messages that wait share the next handler call.
import path from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import test from "ava";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { createInProcessBus, createJetStreamBus, type BusEvent, type BusMessage } from "../../platform/bus.js";
import { connectDb, migrate } from "../../platform/db.js";
import { createLogger } from "../../platform/logger.js";
import { createEventConsumer } from "../../services/webhook/consumer.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/http.js";
import { SHARED_NATS_URL, uniqueBusNames } from "../helpers/nats.js";
import { capturingLogger } from "../helpers/logs.js";

const silent = createLogger("test", "silent");
const migrations = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../services/webhook/migrations");

let db: TestDatabase;
let sql: ReturnType<typeof connectDb>;
test.before(async () => {
  db = await createTestDatabase();
  sql = connectDb(db.url, { schema: WEBHOOK_SCHEMA, max: 4 });
  await migrate(sql, WEBHOOK_SCHEMA, migrations, silent);
});
test.after.always(async () => {
  await sql?.end({ timeout: 5 });
  await db?.drop();
});

function orderEvent(storeId: string, type = "order.paid"): BusMessage {
  const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data: { store_id: storeId, order: { id: randomUUID() } } });
  return { id: randomUUID(), storeId, type, body: Buffer.from(body), deliveryCount: 1 };
}


test("a batch with a body that is not JSON records the others, in the order they came; the same batch again records nothing new", async (t) => {
  const storeId = randomUUID();
  const [all] = await sql<{ id: string }[]>`insert into endpoints (store_id, url) values (${storeId}, 'https://all.example/') returning id`;
  const [paidOnly] = await sql<{ id: string }[]>`
    insert into endpoints (store_id, url, event_types) values (${storeId}, 'https://paid.example/', '{order.paid}') returning id`;
  await sql`insert into endpoints (store_id, url, enabled) values (${storeId}, 'https://off.example/', false)`;
  const lines: Record<string, unknown>[] = [];
  let woken = 0;
  const consume = createEventConsumer({ sql, logger: capturingLogger(lines), onRecorded: () => woken++ });

  const created = orderEvent(storeId, "order.created");
  const garbled = { ...orderEvent(storeId), body: Buffer.from("not json") };
  const paid = orderEvent(storeId);
  const otherStore = orderEvent(randomUUID());
  await consume([created, garbled, paid, otherStore, { ...created, deliveryCount: 2 }]);

  t.is(woken, 1);
  t.like(lines.find((line) => line.msg === "event body is not JSON; dropped"), { level: 50, eventId: garbled.id });
  const events = await sql<{ id: string }[]>`select id from events order by created_at, id`;
  t.deepEqual(events.map((e) => e.id).sort(), [created.id, paid.id, otherStore.id].sort(), "every event but the garbled one, once");
  const deliveries = async () =>
    sql<{ endpoint_id: string; event_id: string; next_attempt_at: Date }[]>`
      select endpoint_id, event_id, next_attempt_at from deliveries where store_id = ${storeId} order by event_id, endpoint_id`;
  const first = await deliveries();
  t.deepEqual(
    first.map((d) => `${d.event_id} → ${d.endpoint_id}`).sort(),
    [`${created.id} → ${all!.id}`, `${paid.id} → ${all!.id}`, `${paid.id} → ${paidOnly!.id}`].sort(),
    "each to the endpoints subscribed to its type; none to the disabled one",
  );
  const dueAt = (eventId: string) => first.filter((d) => d.event_id === eventId).map((d) => d.next_attempt_at.getTime());
  t.true(Math.max(...dueAt(created.id)) <= Math.min(...dueAt(paid.id)), "due in the order the events came");

  // Redelivered, even with an endpoint added since: nothing more, and the worker is not woken.
  await sql`insert into endpoints (store_id, url) values (${storeId}, 'https://late.example/')`;
  await consume([created, paid, otherStore].map((message) => ({ ...message, deliveryCount: 2 })));
  t.is(woken, 1);
  t.deepEqual(await deliveries(), first);
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from events`;
  t.is(count!.n, 3);
});

test("a batch of messages the consumer cannot use records nothing and resolves (they are dropped, not retried)", async (t) => {
  const lines: Record<string, unknown>[] = [];
  // The real pool, counting every statement (and every fragment of one) it is handed.
  let calls = 0;
  const counting = new Proxy(sql, {
    apply(target, self, args: Parameters<typeof sql>) {
      calls++;
      return Reflect.apply(target, self, args) as unknown;
    },
  });
  const consume = createEventConsumer({ sql: counting, logger: capturingLogger(lines), onRecorded: () => t.fail() });
  const storeId = randomUUID();
  await consume([
    { ...orderEvent(storeId), body: Buffer.from("{") },
    { ...orderEvent(storeId), storeId: "" },
    { ...orderEvent(storeId), body: Buffer.from('{"data":{"order":{"id":"not-a-uuid"}}}') },
  ]);
  t.is(calls, 0, "no statement for nothing");
  t.deepEqual(
    lines.map((line) => line.msg),
    ["event body is not JSON; dropped", "event ids are not UUIDs; dropped", "event ids are not UUIDs; dropped"],
  );
});

test("in-process bus: publishes made while the handler runs share its next call, and a failed call fails each of its publishes", async (t) => {
  const bus = createInProcessBus(silent);
  const calls: string[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  await bus.consume(async (messages) => {
    calls.push(messages.map((message) => message.id));
    if (calls.length === 1) await gate;
    if (calls.length === 2) throw new Error("statement failed");
  });
  const events: BusEvent[] = Array.from({ length: 5 }, () => ({ id: randomUUID(), storeId: randomUUID(), type: "order.paid", body: Buffer.from("{}") }));
  const published = Promise.allSettled(events.map((event) => bus.publish(event)));
  release();
  const outcomes = await published;
  t.deepEqual(calls, [[events[0]!.id], events.slice(1).map((event) => event.id)]);
  t.deepEqual(
    outcomes.map((outcome) => outcome.status),
    ["fulfilled", "rejected", "rejected", "rejected", "rejected"],
  );
  // Failed publishes are not remembered as sent: the outbox's retry goes through.
  await bus.publish(events[1]!);
  t.deepEqual(calls[2], [events[1]!.id]);
  await bus.close();
});

test("JetStream bus: a failed handler call hands each of its messages out again, a successful one acks each", async (t) => {
  const names = uniqueBusNames("BATCH");
  const bus = await createJetStreamBus(SHARED_NATS_URL, { stream: names.EVENTS_STREAM, consumer: names.EVENTS_CONSUMER }, silent);
  const nc = await connect({ servers: SHARED_NATS_URL });
  const jsm = await jetstreamManager(nc);
  try {
    const events: BusEvent[] = Array.from({ length: 30 }, () => ({ id: randomUUID(), storeId: randomUUID(), type: "order.paid", body: Buffer.from("{}") }));
    for (const event of events) await bus.publish(event);
    const handled = new Map<string, number>(); // id → delivery count when handled
    let failed: string[] | undefined;
    await bus.consume(async (messages) => {
      if (!failed) {
        failed = messages.map((message) => message.id);
        throw new Error("statement failed");
      }
      for (const message of messages) handled.set(message.id, message.deliveryCount);
    });
    await waitFor(() => handled.size === events.length, 30_000);
    t.deepEqual([...handled.keys()].sort(), events.map((event) => event.id).sort());
    t.true(failed!.length > 0);
    for (const id of failed!) t.is(handled.get(id), 2, "handed out again after the failed call");
    await waitFor(async () => (await jsm.consumers.info(names.EVENTS_STREAM, names.EVENTS_CONSUMER)).num_ack_pending === 0, 30_000);
    t.pass("every message acked");
  } finally {
    await bus.close();
    await jsm.streams.delete(names.EVENTS_STREAM).catch(() => {});
    await nc.close();
  }
});
