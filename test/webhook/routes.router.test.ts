// The webhook service's Connect routes in memory (createRouterTransport) over the real
// domain modules and a database of each test's own, cloned from a migrated template
// (test/helpers/template-db.ts): every RPC's answer, its argument errors, and that one
// store never reaches another's endpoint or deliveries. No server. Each test has its own
// database because leasing, the consumer and the purge see every store's rows.
import { OPERATOR, type Actor } from "../../common/actor.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import type { Sql } from "../../platform/db.js";
import { createLogger } from "../../platform/logger.js";
import { createEventConsumer } from "../../services/webhook/consumer.js";
import { leaseDue, recordAttempt, requeue } from "../../services/webhook/db/deliveries.js";
import { disableEndpoint } from "../../services/webhook/db/endpoints.js";
import { liveSecrets } from "../../services/webhook/db/secrets.js";
import { createWebhookDomain } from "../../services/webhook/domain.js";
import { createPurge } from "../../services/webhook/purge.js";
import { createWebhookRoutes } from "../../services/webhook/routes.js";
import { createSecretBox } from "../../services/webhook/secret-box.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { checkPaging } from "../helpers/audit-pages.js";
import { migratedDatabase } from "../helpers/template-db.js";
import { attemptOf, outcomeOf } from "../helpers/webhook-attempts.js";
import { failure } from "../helpers/rpc-failure.js";
import { waitFor } from "../helpers/http.js";
import { startReceiver } from "../helpers/receiver.js";
import { startDeliveryWorker } from "../../services/webhook/worker.js";

const OVERLAP_MS = 3_600_000;
const RETENTION_MS = 30 * 86_400_000;
const logger = createLogger("test", "silent");

/** What a test reads (or moves back in time) in the tables themselves. */
function tablesOf(sql: Sql) {
  return {
    /** Every secret row of an endpoint, oldest first, as stored (sealed). */
    async secretsOf(endpointId: string) {
      const rows = await sql<{ secret: string; created_at: Date; expires_at: Date | null }[]>`
        select secret, created_at, expires_at from endpoint_secrets where endpoint_id = ${endpointId} order by created_at, id`;
      return [...rows];
    },
    /** Moves a stored event (and its deliveries) back in time, as if it happened `ms` earlier. */
    async age(eventId: string, ms: number) {
      const by = `${ms} milliseconds`;
      await sql`update events set created_at = created_at - ${by}::interval where id = ${eventId}`;
      await sql`update deliveries set created_at = created_at - ${by}::interval, updated_at = updated_at - ${by}::interval where event_id = ${eventId}`;
    },
    /** How many rows each table holds. */
    async counts() {
      const [row] = await sql<{ endpoints: number; events: number; deliveries: number; attempts: number; audit: number }[]>`
        select (select count(*) from endpoints)::int as endpoints, (select count(*) from events)::int as events,
          (select count(*) from deliveries)::int as deliveries, (select count(*) from delivery_attempts)::int as attempts,
          (select count(*) from audit_log)::int as audit`;
      return row!;
    },
    /** Whether the endpoint takes deliveries, as stored. */
    async enabled(endpointId: string) {
      const [row] = await sql<{ enabled: boolean }[]>`select enabled from endpoints where id = ${endpointId}`;
      return row?.enabled;
    },
    /** The endpoint's custom headers as stored: names in the clear, the rest sealed. */
    async headersOf(endpointId: string) {
      const [row] = await sql<{ header_names: string[]; headers_sealed: string | null }[]>`
        select header_names, headers_sealed from endpoints where id = ${endpointId}`;
      return { names: row?.header_names ?? [], sealed: row?.headers_sealed ?? null };
    },
  };
}

async function setup(t: ExecutionContext, { allowHttp = false } = {}) {
  const sql = (await migratedDatabase(t)).pool(WEBHOOK_SCHEMA);
  const box = createSecretBox("router-test-master-key");
  const requeued: number[] = [];
  const domain = createWebhookDomain({
    sql,
    logger,
    box,
    allowHttp,
    rotationOverlapMs: OVERLAP_MS,
    eventRetentionMs: RETENTION_MS,
    onRequeued: () => requeued.push(Date.now()),
  });
  // Every call is the one of whoever `as.actor` names at the time (the operator unless a test says).
  const as: { actor: Actor | undefined } = { actor: OPERATOR };
  const client = createClient(WebhookService, createRouterTransport(createWebhookRoutes(domain), { transport: { interceptors: [actorInterceptor(() => as.actor)] } }));
  const consume = createEventConsumer({ sql, logger, onRecorded: () => {} });
  /** An order event for the store, as the bus hands it to the consumer. */
  async function event(storeId: string, orderId: string, type = "order.created") {
    const id = randomUUID();
    const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data: { store_id: storeId, order: { id: orderId, payment_reference: referenceOf(orderId) }, previous_status: null } });
    await consume([{ id, storeId, type, body: Buffer.from(body), deliveryCount: 1 }]);
    return id;
  }
  return { sql, db: tablesOf(sql), box, client, requeued, event, as };
}

/** The payment reference the test events' orders carry. */
const referenceOf = (orderId: string) => `SO-${orderId.slice(0, 8).toUpperCase()}`;

async function rejects(t: ExecutionContext, call: Promise<unknown>, code: Code, message?: RegExp) {
  const error = await t.throwsAsync(call);
  const connectError = ConnectError.from(error);
  t.is(connectError.code, code, `expected ${Code[code]}, got ${Code[connectError.code]}: ${connectError.rawMessage}`);
  if (message) t.regex(connectError.rawMessage, message);
}

test("SetEndpoint: the endpoint and a whsec_ secret shown once; only the sealed secret is stored", async (t) => {
  const { client, box, db } = await setup(t);
  const storeId = randomUUID();
  const { endpoint, secret } = await client.setEndpoint({ storeId: storeId.toUpperCase(), url: "https://hooks.example/in?token=1" });
  t.like(endpoint, { storeId, url: "https://hooks.example/in?token=1", enabled: true });
  t.is(new Date(endpoint!.createdAt).toISOString(), endpoint!.createdAt);
  t.regex(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.is(Buffer.from(secret.slice(6), "base64").length, 32);
  const stored = await db.secretsOf(endpoint!.id);
  t.is(stored.length, 1);
  t.regex(stored[0]!.secret, /^aesgcm:/);
  t.false(stored[0]!.secret.includes(secret.slice(6)));
  t.is(box.open(stored[0]!.secret), secret);
});

test("SetEndpoint again: the same endpoint, enabled, with the new URL and a new secret; the old secret stops at once", async (t) => {
  const { client, sql } = await setup(t);
  const storeId = randomUUID();
  const first = await client.setEndpoint({ storeId, url: "https://one.example/" });
  await disableEndpoint(sql, first.endpoint!.id, "receiver answered 410 Gone");
  const second = await client.setEndpoint({ storeId, url: "https://two.example/" });
  t.is(second.endpoint!.id, first.endpoint!.id);
  t.like(second.endpoint, { url: "https://two.example/", enabled: true });
  t.not(second.secret, first.secret);
  t.is((await liveSecrets(sql, first.endpoint!.id)).length, 1);
});

test("SetEndpoint: INVALID_ARGUMENT for a bad store id or URL; http:// only when allowed", async (t) => {
  const { client } = await setup(t);
  const storeId = randomUUID();
  await rejects(t, client.setEndpoint({ storeId: "nope", url: "https://x.example/" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, client.setEndpoint({ storeId, url: "hooks.example/in" }), Code.InvalidArgument, /^url must be an absolute URL$/);
  await rejects(t, client.setEndpoint({ storeId, url: "http://hooks.example/in" }), Code.InvalidArgument, /^url must be https:\/\/ \(http:\/\/ only with WEBHOOK_ALLOW_HTTP\)$/);
  await rejects(t, client.setEndpoint({ storeId, url: "ftp://hooks.example/in" }), Code.InvalidArgument, /https/);
  await rejects(t, client.setEndpoint({ storeId, url: "https://user:pw@hooks.example/in" }), Code.InvalidArgument, /^url must not carry credentials$/);
  await rejects(t, client.setEndpoint({ storeId, url: `https://hooks.example/${"a".repeat(2048)}` }), Code.InvalidArgument, /^url must be at most 2048 characters$/);

  const permissive = await setup(t, { allowHttp: true });
  t.is((await permissive.client.setEndpoint({ storeId, url: "http://127.0.0.1:9/in" })).endpoint!.url, "http://127.0.0.1:9/in");
});

test("RotateSecret: a new secret; the old ones sign until the overlap ends", async (t) => {
  const { client, sql, db } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.setEndpoint({ storeId, url: "https://hooks.example/" });
  const before = Date.now();
  const rotated = await client.rotateSecret({ storeId });
  t.is(rotated.endpoint!.id, endpoint!.id);
  t.regex(rotated.secret, /^whsec_/);
  const expires = Date.parse(rotated.previousSecretExpiresAt);
  t.true(expires >= before + OVERLAP_MS && expires <= Date.now() + OVERLAP_MS);
  t.is((await liveSecrets(sql, endpoint!.id)).length, 2, "old and new both sign");
  await client.rotateSecret({ storeId });
  t.is((await liveSecrets(sql, endpoint!.id)).length, 3, "rotating twice within the overlap: three live secrets");
  const stored = await db.secretsOf(endpoint!.id);
  t.is(stored.filter((row) => row.expires_at === null).length, 1, "only the newest has no end");
});

test("RotateSecret: NOT_FOUND for a store without an endpoint; INVALID_ARGUMENT for a bad id", async (t) => {
  const { client } = await setup(t);
  const storeId = randomUUID();
  await rejects(t, client.rotateSecret({ storeId }), Code.NotFound, new RegExp(`^store ${storeId} has no webhook endpoint$`));
  await rejects(t, client.rotateSecret({ storeId: "x" }), Code.InvalidArgument, /^store_id must be a UUID$/);
});

test("ListDeliveries: the store's deliveries, newest first, with attempts; --order filters; limit; other stores see none", async (t) => {
  const { client, event, sql } = await setup(t);
  const storeId = randomUUID();
  const otherStoreId = randomUUID();
  const { endpoint } = await client.setEndpoint({ storeId, url: "https://a.example/" });
  await client.setEndpoint({ storeId: otherStoreId, url: "https://b.example/" });
  const orderA = randomUUID();
  const orderB = randomUUID();
  const first = await event(storeId, orderA);
  const second = await event(storeId, orderB, "order.paid");
  await event(otherStoreId, randomUUID());

  const [leased] = await leaseDue(sql, 1, 20_000, []);
  t.is(leased!.event_id, first);
  await recordAttempt(
    sql,
    { delivery_id: leased!.id, started_at: new Date(), status_code: 500, latency_ms: 12, result: "http_error", error: "HTTP 500", response_excerpt: "oops" },
    { status: "failed", error: "HTTP 500" },
  );

  const { deliveries } = await client.listDeliveries({ storeId });
  t.deepEqual(deliveries.map((d) => d.eventId), [second, first]);
  t.like(deliveries[0], { endpointId: endpoint!.id, eventType: "order.paid", orderId: orderB, status: "pending", attemptsMade: 0 });
  t.truthy(deliveries[0]!.nextAttemptAt, "a pending delivery says when it is next tried");
  t.like(deliveries[1], { status: "failed", attemptsMade: 1, nextAttemptAt: "" });
  t.is(deliveries[1]!.attempts.length, 1);
  t.like(deliveries[1]!.attempts[0], { number: 1, statusCode: 500, latencyMs: 12, result: "http_error", error: "HTTP 500", responseExcerpt: "oops" });

  t.deepEqual((await client.listDeliveries({ storeId, orderId: orderA.toUpperCase() })).deliveries.map((d) => d.eventId), [first]);
  t.is((await client.listDeliveries({ storeId, limit: 1 })).deliveries.length, 1);
  t.is((await client.listDeliveries({ storeId: otherStoreId })).deliveries.length, 1);
  t.deepEqual((await client.listDeliveries({ storeId: randomUUID() })).deliveries, []);
  await rejects(t, client.listDeliveries({ storeId: "x" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, client.listDeliveries({ storeId, orderId: "x" }), Code.InvalidArgument, /^order_id must be a UUID$/);
});

test("Redeliver: the delivery is queued again now and the worker woken; another store's delivery is NOT_FOUND", async (t) => {
  const { client, requeued, event, sql } = await setup(t);
  const storeId = randomUUID();
  const otherStoreId = randomUUID();
  await client.setEndpoint({ storeId, url: "https://a.example/" });
  const eventId = await event(storeId, randomUUID());
  const [leased] = await leaseDue(sql, 1, 20_000, []);
  await recordAttempt(
    sql,
    { delivery_id: leased!.id, started_at: new Date(), status_code: 500, latency_ms: 3, result: "http_error", error: "HTTP 500", response_excerpt: null },
    { status: "failed", error: "HTTP 500" },
  );

  await rejects(
    t,
    client.redeliver({ storeId: otherStoreId, deliveryId: leased!.id }),
    Code.NotFound,
    new RegExp(`^delivery ${leased!.id} not found$`),
  );
  t.is(requeued.length, 0);
  const { delivery } = await client.redeliver({ storeId, deliveryId: leased!.id });
  t.like(delivery, { id: leased!.id, eventId, status: "pending", attemptsMade: 1 });
  t.truthy(delivery!.nextAttemptAt);
  t.deepEqual(delivery!.attempts, []);
  t.is(requeued.length, 1);
  await rejects(t, client.redeliver({ storeId, deliveryId: "x" }), Code.InvalidArgument, /^delivery_id must be a UUID$/);
  await rejects(t, client.redeliver({ storeId: "x", deliveryId: leased!.id }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, client.redeliver({ storeId, deliveryId: randomUUID() }), Code.NotFound);
});

test("the consumer records one delivery per event for an enabled endpoint, and drops what it cannot use", async (t) => {
  const { client, event, sql } = await setup(t);
  const storeId = randomUUID();
  const consume = createEventConsumer({ sql, logger, onRecorded: () => {} });

  await event(storeId, randomUUID());
  t.deepEqual((await client.listDeliveries({ storeId })).deliveries, [], "no endpoint yet: nothing to deliver");

  const { endpoint } = await client.setEndpoint({ storeId, url: "https://a.example/" });
  const id = randomUUID();
  const message = { id, storeId, type: "order.paid", body: Buffer.from('{"data":{"order":{"id":null}}}'), deliveryCount: 1 };
  await consume([message]);
  await consume([{ ...message, deliveryCount: 2 }]);
  const { deliveries } = await client.listDeliveries({ storeId });
  t.is(deliveries.length, 1, "a redelivered message records nothing more");
  t.is(deliveries[0]!.orderId, "");

  await consume([{ ...message, id: randomUUID(), body: Buffer.from("not json") }]);
  t.is((await client.listDeliveries({ storeId })).deliveries.length, 1, "a body that is not JSON is dropped");

  await disableEndpoint(sql, endpoint!.id, "receiver answered 410 Gone");
  await event(storeId, randomUUID());
  t.is((await client.listDeliveries({ storeId })).deliveries.length, 1, "a disabled endpoint gets nothing");
});

// Developer settings: several endpoints with subscriptions, secrets revealed
// and rotated per endpoint, the event log, replays, test events and delivery details.

const ALL_TYPES = ["order.created", "orderUpdated", "order.paid", "order.failed", "order.expired", "order.cancelled", "order.refunded", "refund.succeeded", "refund.failed"];

test("CreateEndpoint: url, trimmed description, a subscription in the documented order, and a secret shown once", async (t) => {
  const { client, box, db } = await setup(t);
  const storeId = randomUUID();
  const { endpoint, secret } = await client.createEndpoint({
    storeId,
    url: "https://hooks.example/paid",
    description: "  Accounting  ",
    events: { types: ["order.refunded", "order.paid", "order.paid"] },
  });
  t.like(endpoint, { storeId, url: "https://hooks.example/paid", description: "Accounting", enabled: true, disabledReason: "" });
  t.deepEqual(endpoint!.eventTypes, ["order.paid", "order.refunded"]);
  t.is(endpoint!.updatedAt, endpoint!.createdAt);
  t.regex(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.is(box.open((await db.secretsOf(endpoint!.id))[0]!.secret), secret);

  const all = await client.createEndpoint({ storeId, url: "https://hooks.example/all", events: { all: true } });
  t.deepEqual(all.endpoint!.eventTypes, [], "every type: an empty list");
  t.is(all.endpoint!.description, "");
  const unset = await client.createEndpoint({ storeId, url: "https://hooks.example/unset" });
  t.deepEqual(unset.endpoint!.eventTypes, []);
  t.not(all.secret, unset.secret);
  const everyOne = await client.createEndpoint({ storeId, url: "https://hooks.example/each", events: { types: [...ALL_TYPES].reverse() } });
  t.deepEqual(everyOne.endpoint!.eventTypes, ALL_TYPES, "a full list stays a list");

  const { endpoints } = await client.listEndpoints({ storeId });
  t.deepEqual(endpoints.map((e) => e.id), [endpoint!.id, all.endpoint!.id, unset.endpoint!.id, everyOne.endpoint!.id], "oldest first");
  t.deepEqual((await client.listEndpoints({ storeId: randomUUID() })).endpoints, []);
});

test("CreateEndpoint: INVALID_ARGUMENT naming url, description, events.types or store_id", async (t) => {
  const { client } = await setup(t);
  const storeId = randomUUID();
  await rejects(t, client.createEndpoint({ storeId: "x", url: "https://a.example/" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, client.createEndpoint({ storeId, url: "http://a.example/" }), Code.InvalidArgument, /^url must be https/);
  await rejects(t, client.createEndpoint({ storeId, url: "" }), Code.InvalidArgument, /^url must be an absolute URL$/);
  await rejects(t, client.createEndpoint({ storeId, url: "https://a.example/", description: "d".repeat(501) }), Code.InvalidArgument, /^description must be at most 500 characters$/);
  // 500 characters as a person counts them: an emoji is one.
  const emoji = "\u{1F600}".repeat(500);
  t.is((await client.createEndpoint({ storeId, url: "https://a.example/", description: emoji })).endpoint!.description, emoji);
  await rejects(t, client.createEndpoint({ storeId, url: "https://a.example/", events: { types: ["order.shipped"] } }), Code.InvalidArgument, /^events\.types .*order\.shipped/);
  await rejects(t, client.createEndpoint({ storeId, url: "https://a.example/", events: { types: ["webhook.test"] } }), Code.InvalidArgument, /^events\.types .*webhook\.test/);
  await rejects(t, client.createEndpoint({ storeId, url: "https://a.example/", events: { types: [] } }), Code.InvalidArgument, /^events\.types must name at least one/);
  await rejects(t, client.createEndpoint({ storeId, url: "https://a.example/", events: { all: true, types: ["order.paid"] } }), Code.InvalidArgument, /^events\.types must be empty/);
  const error = ConnectError.from(await t.throwsAsync(client.createEndpoint({ storeId, url: "https://a.example/", description: "d".repeat(501) })));
  t.is(error.details.length, 1, "the field travels in the details too");
  t.is((await client.listEndpoints({ storeId })).endpoints.length, 1, "only the valid one was made");
});

test("CreateEndpoint: at most 10 per store; an 11th is FAILED_PRECONDITION, until one is deleted", async (t) => {
  const { client } = await setup(t);
  const storeId = randomUUID();
  const made = [];
  for (let i = 0; i < 10; i++) made.push((await client.createEndpoint({ storeId, url: `https://h${i}.example/` })).endpoint!);
  await rejects(t, client.createEndpoint({ storeId, url: "https://h10.example/" }), Code.FailedPrecondition, /^a store has at most 10 webhook endpoints$/);
  t.is((await client.listEndpoints({ storeId })).endpoints.length, 10);
  // Another store is not affected.
  await client.createEndpoint({ storeId: randomUUID(), url: "https://other.example/" });
  await client.deleteEndpoint({ storeId, endpointId: made[3]!.id });
  await client.createEndpoint({ storeId, url: "https://h10.example/" });
  t.is((await client.listEndpoints({ storeId })).endpoints.length, 10);
});

test("GetEndpoint / UpdateEndpoint / DeleteEndpoint / RevealSecret / SendTestEvent: endpoint_id is checked, another store's is NOT_FOUND", async (t) => {
  const { client } = await setup(t);
  const storeId = randomUUID();
  const otherStoreId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://a.example/" });
  const id = endpoint!.id;
  const calls = {
    getEndpoint: (s: string, e: string) => client.getEndpoint({ storeId: s, endpointId: e }),
    updateEndpoint: (s: string, e: string) => client.updateEndpoint({ storeId: s, endpointId: e, description: "x" }),
    revealSecret: (s: string, e: string) => client.revealSecret({ storeId: s, endpointId: e }),
    rotateSecret: (s: string, e: string) => client.rotateSecret({ storeId: s, endpointId: e }),
    sendTestEvent: (s: string, e: string) => client.sendTestEvent({ storeId: s, endpointId: e }),
    replayEvents: (s: string, e: string) => client.replayEvents({ storeId: s, endpointId: e, since: "2024-01-01T00:00:00Z" }),
    deleteEndpoint: (s: string, e: string) => client.deleteEndpoint({ storeId: s, endpointId: e }),
  };
  for (const [name, call] of Object.entries(calls)) {
    await rejects(t, call(storeId, "nope"), Code.InvalidArgument, /^endpoint_id must be a UUID$/);
    if (name !== "rotateSecret") await rejects(t, call(storeId, ""), Code.InvalidArgument, /^endpoint_id must be a UUID$/);
    await rejects(t, call("nope", id), Code.InvalidArgument, /^store_id must be a UUID$/);
    await rejects(t, call(otherStoreId, id), Code.NotFound, new RegExp(`^endpoint ${id} not found$`));
    await rejects(t, call(storeId, randomUUID()), Code.NotFound);
  }
  // Nothing above changed it.
  const { endpoint: after } = await client.getEndpoint({ storeId, endpointId: id.toUpperCase() });
  t.like(after, { id, description: "", enabled: true, updatedAt: endpoint!.updatedAt });
  t.deepEqual((await client.listDeliveries({ storeId })).deliveries, [], "no test event was queued");
});

test("UpdateEndpoint: only the fields set change; disabling records why, enabling clears it", async (t) => {
  const { client, sql } = await setup(t);
  const storeId = randomUUID();
  const { endpoint, secret } = await client.createEndpoint({ storeId, url: "https://a.example/", description: "first", events: { types: ["order.paid"] } });
  const id = endpoint!.id;

  const described = (await client.updateEndpoint({ storeId, endpointId: id, description: "second" })).endpoint!;
  t.like(described, { url: "https://a.example/", description: "second", enabled: true });
  t.deepEqual(described.eventTypes, ["order.paid"]);
  t.true(described.updatedAt > endpoint!.updatedAt);

  const moved = (await client.updateEndpoint({ storeId, endpointId: id, url: "https://b.example/" })).endpoint!;
  t.like(moved, { url: "https://b.example/", description: "second" });
  t.deepEqual(moved.eventTypes, ["order.paid"]);
  const everything = (await client.updateEndpoint({ storeId, endpointId: id, events: { all: true } })).endpoint!;
  t.deepEqual(everything.eventTypes, []);
  const some = (await client.updateEndpoint({ storeId, endpointId: id, events: { types: ["order.cancelled", "order.created"] } })).endpoint!;
  t.deepEqual(some.eventTypes, ["order.created", "order.cancelled"]);
  t.is((await client.updateEndpoint({ storeId, endpointId: id, description: "" })).endpoint!.description, "", "an empty description clears it");

  const off = (await client.updateEndpoint({ storeId, endpointId: id, enabled: false })).endpoint!;
  t.like(off, { enabled: false, disabledReason: "disabled by the store", url: "https://b.example/" });
  const on = (await client.updateEndpoint({ storeId, endpointId: id, enabled: true })).endpoint!;
  t.like(on, { enabled: true, disabledReason: "" });
  // A receiver's 410 turned it off: turning it off again keeps that reason.
  await disableEndpoint(sql, id, "receiver answered 410 Gone");
  t.is((await client.updateEndpoint({ storeId, endpointId: id, enabled: false })).endpoint!.disabledReason, "receiver answered 410 Gone");
  t.is((await client.updateEndpoint({ storeId, endpointId: id, enabled: true })).endpoint!.disabledReason, "");

  const unchanged = (await client.updateEndpoint({ storeId, endpointId: id })).endpoint!;
  t.is(unchanged.updatedAt, (await client.getEndpoint({ storeId, endpointId: id })).endpoint!.updatedAt, "nothing set: nothing changes");
  t.is((await client.revealSecret({ storeId, endpointId: id })).secret, secret, "updates leave the secret alone");

  await rejects(t, client.updateEndpoint({ storeId, endpointId: id, url: "ftp://x.example/" }), Code.InvalidArgument, /^url /);
  await rejects(t, client.updateEndpoint({ storeId, endpointId: id, description: "d".repeat(501) }), Code.InvalidArgument, /^description /);
  await rejects(t, client.updateEndpoint({ storeId, endpointId: id, events: { types: ["nope"] } }), Code.InvalidArgument, /^events\.types /);
  await rejects(t, client.updateEndpoint({ storeId, endpointId: id, events: { types: [] } }), Code.InvalidArgument, /^events\.types /);
  t.like((await client.getEndpoint({ storeId, endpointId: id })).endpoint, { url: "https://b.example/", description: "" });
});

test("UpdateEndpoint max_per_second: 1–1000 sets the rate, empty removes it; 0, 1001 and non-integers are INVALID_ARGUMENT naming it and change nothing", async (t) => {
  const { client } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://a.example/" });
  const endpointId = endpoint!.id;
  t.is((await client.updateEndpoint({ storeId, endpointId, maxPerSecond: "1" })).endpoint!.maxPerSecond, 1);
  t.is((await client.updateEndpoint({ storeId, endpointId, maxPerSecond: "1000" })).endpoint!.maxPerSecond, 1000);
  t.is((await client.updateEndpoint({ storeId, endpointId, maxPerSecond: "20" })).endpoint!.maxPerSecond, 20);
  const before = (await client.getEndpoint({ storeId, endpointId })).endpoint!;
  for (const typed of ["0", "1001", "1.5", "-1", "2e2", "abc", " 5", "00000"]) {
    const error = ConnectError.from(await t.throwsAsync(client.updateEndpoint({ storeId, endpointId, maxPerSecond: typed, description: "changed" })));
    t.is(error.code, Code.InvalidArgument, typed);
    t.is(error.rawMessage, "max_per_second must be a whole number from 1 to 1000, or empty for no limit", typed);
    t.is(error.details.length, 1, "the field travels in the details too");
  }
  t.deepEqual((await client.getEndpoint({ storeId, endpointId })).endpoint, before, "nothing changed, the description neither");
  t.is((await client.updateEndpoint({ storeId, endpointId, maxPerSecond: "" })).endpoint!.maxPerSecond, 0, "empty: no limit");
  const { entries } = await client.listAudit({ storeId, action: "endpoint.updated" });
  t.deepEqual(
    entries.map((entry) => entry.changes.map((change) => `${change.field}: ${change.before} → ${change.after}`)),
    [["max_per_second: 20 → no limit"], ["max_per_second: 1000 → 20"], ["max_per_second: 1 → 1000"], ["max_per_second: no limit → 1"]],
    "only the accepted changes are audited",
  );
});

test("DeleteEndpoint: gone from every lookup, its secrets forgotten, its pending deliveries never sent; its history stays readable", async (t) => {
  const { client, event, sql, db } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://a.example/" });
  const keep = await client.createEndpoint({ storeId, url: "https://b.example/" });
  const id = endpoint!.id;
  await event(storeId, randomUUID(), "order.paid");

  const { endpoint: deleted } = await client.deleteEndpoint({ storeId, endpointId: id });
  t.like(deleted, { id, enabled: false });
  t.deepEqual((await client.listEndpoints({ storeId })).endpoints.map((e) => e.id), [keep.endpoint!.id]);
  await rejects(t, client.getEndpoint({ storeId, endpointId: id }), Code.NotFound);
  await rejects(t, client.deleteEndpoint({ storeId, endpointId: id }), Code.NotFound, /not found/);
  await rejects(t, client.revealSecret({ storeId, endpointId: id }), Code.NotFound);
  await rejects(t, client.updateEndpoint({ storeId, endpointId: id, enabled: true }), Code.NotFound);
  t.deepEqual(await db.secretsOf(id), []);

  const mine = (await client.listDeliveries({ storeId, endpointId: id })).deliveries;
  t.is(mine.length, 1, "its delivery is still listed");
  t.like(mine[0], { status: "failed", lastError: "endpoint deleted" });
  t.is((await client.listDeliveries({ storeId, endpointId: keep.endpoint!.id })).deliveries[0]!.status, "pending", "the other endpoint's is untouched");
  await rejects(t, client.redeliver({ storeId, deliveryId: mine[0]!.id }), Code.NotFound);
  const leased = await leaseDue(sql, 10, 20_000, []);
  t.deepEqual(leased.map((d) => d.endpoint_id), [keep.endpoint!.id], "nothing of the deleted endpoint is due");

  await event(storeId, randomUUID(), "order.paid");
  t.is((await client.listDeliveries({ storeId, endpointId: id })).deliveries.length, 1, "new events do not reach it");
});

test("SetEndpoint and RotateSecret without endpoint_id: FAILED_PRECONDITION once a store has several endpoints", async (t) => {
  const { client } = await setup(t);
  const storeId = randomUUID();
  const first = await client.setEndpoint({ storeId, url: "https://a.example/" });
  const second = await client.createEndpoint({ storeId, url: "https://b.example/" });
  await rejects(t, client.setEndpoint({ storeId, url: "https://c.example/" }), Code.FailedPrecondition, /has 2 webhook endpoints.*endpoint_id/);
  await rejects(t, client.rotateSecret({ storeId }), Code.FailedPrecondition, /has 2 webhook endpoints.*endpoint_id/);
  t.deepEqual((await client.listEndpoints({ storeId })).endpoints.map((e) => e.url), ["https://a.example/", "https://b.example/"]);

  // With endpoint_id: that endpoint only.
  const rotated = await client.rotateSecret({ storeId, endpointId: second.endpoint!.id });
  t.is(rotated.endpoint!.id, second.endpoint!.id);
  t.is((await client.revealSecret({ storeId, endpointId: second.endpoint!.id })).secret, rotated.secret, "reveal: the newest secret");
  t.is((await client.revealSecret({ storeId, endpointId: first.endpoint!.id })).secret, first.secret, "the other keeps its own");

  // Back to one endpoint: the one-endpoint commands work again.
  await client.deleteEndpoint({ storeId, endpointId: first.endpoint!.id });
  const set = await client.setEndpoint({ storeId, url: "https://c.example/" });
  t.is(set.endpoint!.id, second.endpoint!.id);
  t.is((await client.rotateSecret({ storeId })).endpoint!.id, second.endpoint!.id);
  // And with none left, set creates one (subscribed to everything).
  await client.deleteEndpoint({ storeId, endpointId: second.endpoint!.id });
  await rejects(t, client.rotateSecret({ storeId }), Code.NotFound, /has no webhook endpoint/);
  const fresh = await client.setEndpoint({ storeId, url: "https://d.example/" });
  t.not(fresh.endpoint!.id, second.endpoint!.id);
  t.deepEqual(fresh.endpoint!.eventTypes, []);
});

test("SendTestEvent: a test delivery with the documented body; FAILED_PRECONDITION when disabled", async (t) => {
  const { client, requeued } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://a.example/", events: { types: ["order.paid"] } });
  const before = Date.now();
  const { delivery } = await client.sendTestEvent({ storeId, endpointId: endpoint!.id });
  t.like(delivery, { endpointId: endpoint!.id, eventType: "webhook.test", kind: "test", status: "pending", orderId: "", attemptsMade: 0, body: "" });
  t.regex(delivery!.eventId, /^[0-9a-f-]{36}$/);
  t.is(requeued.length, 1, "the worker is woken");

  const { delivery: full } = await client.getDelivery({ storeId, deliveryId: delivery!.id });
  const body = JSON.parse(full!.body);
  t.deepEqual(Object.keys(body), ["type", "timestamp", "data"]);
  t.deepEqual(body.data, { store_id: storeId, endpoint_id: endpoint!.id, livemode: true });
  t.is(body.type, "webhook.test");
  t.true(Date.parse(body.timestamp) >= before - 1 && body.timestamp === new Date(body.timestamp).toISOString());
  t.is(full!.body, JSON.stringify(body), "exactly that JSON, no spaces");

  const second = await client.sendTestEvent({ storeId, endpointId: endpoint!.id });
  t.not(second.delivery!.eventId, delivery!.eventId, "each test has its own webhook-id");
  t.deepEqual((await client.listEvents({ storeId })).events, [], "a test is not an order event: not in the log");

  await client.updateEndpoint({ storeId, endpointId: endpoint!.id, enabled: false });
  await rejects(t, client.sendTestEvent({ storeId, endpointId: endpoint!.id }), Code.FailedPrecondition, /disabled/);
  t.is((await client.listDeliveries({ storeId })).deliveries.length, 2);
});

test("ListEvents: every event of the store, with or without endpoints, newest first, with deliveries; filters and paging", async (t) => {
  const { client, event, db } = await setup(t);
  const storeId = randomUUID();
  const orderA = randomUUID();
  const orderB = randomUUID();
  const e1 = await event(storeId, orderA, "order.created");
  const { endpoint: paid } = await client.createEndpoint({ storeId, url: "https://paid.example/", events: { types: ["order.paid"] } });
  const { endpoint: all } = await client.createEndpoint({ storeId, url: "https://all.example/" });
  const e2 = await event(storeId, orderA, "order.paid");
  const e3 = await event(storeId, orderB, "order.created");
  await event(randomUUID(), orderA, "order.paid");

  const { events } = await client.listEvents({ storeId });
  t.deepEqual(events.map((e) => e.id), [e3, e2, e1]);
  t.like(events[2], { storeId, type: "order.created", orderId: orderA });
  t.is(JSON.parse(events[2]!.body).data.order.id, orderA, "the body exactly as received");
  t.deepEqual(events[2]!.deliveries, [], "made before any endpoint existed: kept, delivered nowhere");
  t.deepEqual(events[1]!.deliveries.map((d) => d.endpointId).sort(), [paid!.id, all!.id].sort());
  t.deepEqual(events[0]!.deliveries.map((d) => d.endpointId), [all!.id], "order.created is not order.paid");
  t.true(events[1]!.deliveries.every((d) => d.eventId === e2 && d.kind === "event" && d.attempts.length === 0 && d.body === ""));
  t.deepEqual(events.map((e) => e.orderReference), [orderB, orderA, orderA].map(referenceOf), "each event names its order as a person knows it");

  t.deepEqual((await client.listEvents({ storeId, orderId: orderA.toUpperCase() })).events.map((e) => e.id), [e2, e1]);
  t.deepEqual((await client.listEvents({ storeId, type: "order.created" })).events.map((e) => e.id), [e3, e1]);
  t.deepEqual((await client.listEvents({ storeId, orderId: orderA, type: "order.created" })).events.map((e) => e.id), [e1]);
  t.deepEqual((await client.listEvents({ storeId, limit: 2 })).events.map((e) => e.id), [e3, e2]);
  const lean = (await client.listEvents({ storeId, withoutBodies: true })).events;
  t.deepEqual(lean.map((e) => [e.id, e.body, e.deliveries.length]), events.map((e) => [e.id, "", e.deliveries.length]), "the Events page's: the same, without bodies");
  const page = await client.listEvents({ storeId, before: events[1]!.createdAt });
  t.deepEqual(page.events.map((e) => e.id), [e1], "before: strictly older");
  t.deepEqual((await client.listEvents({ storeId: randomUUID() })).events, []);

  // Past the retention an event is not listed, even before the purge removes it.
  await db.age(e1, RETENTION_MS + 1_000);
  t.deepEqual((await client.listEvents({ storeId })).events.map((e) => e.id), [e3, e2]);

  await rejects(t, client.listEvents({ storeId: "x" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, client.listEvents({ storeId, orderId: "x" }), Code.InvalidArgument, /^order_id must be a UUID$/);
  await rejects(t, client.listEvents({ storeId, type: "order.shipped" }), Code.InvalidArgument, /^type must be one of/);
  await rejects(t, client.listEvents({ storeId, before: "yesterday" }), Code.InvalidArgument, /^before must be an RFC 3339/);
});

test("the consumer keeps every event once, delivers it to each enabled endpoint subscribed to its type, and a redelivered message adds nothing", async (t) => {
  const { client, sql } = await setup(t);
  const storeId = randomUUID();
  const consume = createEventConsumer({ sql, logger, onRecorded: () => {} });
  const { endpoint: paid } = await client.createEndpoint({ storeId, url: "https://paid.example/", events: { types: ["order.paid"] } });
  const { endpoint: off } = await client.createEndpoint({ storeId, url: "https://off.example/" });
  await client.updateEndpoint({ storeId, endpointId: off!.id, enabled: false });
  const message = { id: randomUUID(), storeId, type: "order.paid", body: Buffer.from(`{"data":{"order":{"id":"${randomUUID()}"}}}`), deliveryCount: 1 };
  await consume([message]);
  t.deepEqual((await client.listDeliveries({ storeId })).deliveries.map((d) => d.endpointId), [paid!.id]);

  // Even an endpoint added or enabled since does not make the same message count twice.
  const { endpoint: late } = await client.createEndpoint({ storeId, url: "https://late.example/" });
  await client.updateEndpoint({ storeId, endpointId: off!.id, enabled: true });
  await consume([{ ...message, deliveryCount: 2 }]);
  t.is((await client.listDeliveries({ storeId })).deliveries.length, 1);
  t.is((await client.listEvents({ storeId })).events.length, 1);

  await consume([{ ...message, id: randomUUID(), type: "orderUpdated" }]);
  t.deepEqual(
    (await client.listDeliveries({ storeId })).deliveries.filter((d) => d.eventType === "orderUpdated").map((d) => d.endpointId).sort(),
    [off!.id, late!.id].sort(),
  );
});

test("ReplayEvents: a new replay delivery per kept event since the time, of the endpoint's types, with the original webhook-id", async (t) => {
  const { client, event, requeued, db } = await setup(t);
  const storeId = randomUUID();
  const order = randomUUID();
  const old = await event(storeId, order, "order.paid");
  await db.age(old, 3_600_000);
  await event(storeId, order, "order.created");
  const paidEvent = await event(storeId, order, "order.paid");
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://paid.example/", events: { types: ["order.paid"] } });
  const since = new Date(Date.now() - 60_000);

  const { queued } = await client.replayEvents({ storeId, endpointId: endpoint!.id, since: since.toISOString() });
  t.is(queued, 1, "order.created is not its type, and the hour-old event is before since");
  t.is(requeued.length, 1);
  const [replayed] = (await client.listDeliveries({ storeId, endpointId: endpoint!.id })).deliveries;
  t.like(replayed, { eventId: paidEvent, kind: "replay", eventType: "order.paid", orderId: order, status: "pending" });
  const { delivery } = await client.getDelivery({ storeId, deliveryId: replayed!.id });
  t.is(delivery!.body, (await client.listEvents({ storeId, type: "order.paid" })).events[0]!.body);

  // Replaying again queues again: each replay is a new delivery.
  const offset = new Date(since.getTime() - 2 * 3_600_000 + 7 * 3_600_000).toISOString().replace("Z", "+07:00").replace(/\.\d+/, "");
  t.is((await client.replayEvents({ storeId, endpointId: endpoint!.id, since: offset })).queued, 2, "an offset other than Z: the old event too");
  t.is((await client.listDeliveries({ storeId, endpointId: endpoint!.id })).deliveries.length, 3);
  t.is((await client.replayEvents({ storeId, endpointId: endpoint!.id, since: new Date(Date.now() + 60_000).toISOString() })).queued, 0);

  for (const bad of ["", "yesterday", "2024-01-01", "2024-01-01T00:00:00", "2024-02-30T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00+25:00", "1714521600"]) {
    await rejects(t, client.replayEvents({ storeId, endpointId: endpoint!.id, since: bad }), Code.InvalidArgument, /^since must be an RFC 3339/);
  }
  await client.updateEndpoint({ storeId, endpointId: endpoint!.id, enabled: false });
  await rejects(t, client.replayEvents({ storeId, endpointId: endpoint!.id, since: since.toISOString() }), Code.FailedPrecondition, /disabled/);
});

test("ListDeliveries filters by endpoint, status and event; GetDelivery shows one with body and attempts, store-scoped", async (t) => {
  const { client, event, sql } = await setup(t);
  const storeId = randomUUID();
  const otherStoreId = randomUUID();
  const { endpoint: a } = await client.createEndpoint({ storeId, url: "https://a.example/" });
  const { endpoint: b } = await client.createEndpoint({ storeId, url: "https://b.example/" });
  const firstOrder = randomUUID();
  const secondOrder = randomUUID();
  const first = await event(storeId, firstOrder, "order.created");
  const second = await event(storeId, secondOrder, "order.paid");

  const leased = await leaseDue(sql, 1, 20_000, []);
  const failed = leased[0]!;
  await recordAttempt(
    sql,
    { delivery_id: failed.id, started_at: new Date(), status_code: 500, latency_ms: 9, result: "http_error", error: "HTTP 500", response_excerpt: "no" },
    { status: "failed", error: "HTTP 500" },
  );

  t.is((await client.listDeliveries({ storeId })).deliveries.length, 4);
  const ofA = (await client.listDeliveries({ storeId, endpointId: a!.id })).deliveries;
  t.deepEqual(ofA.map((d) => d.eventId), [second, first]);
  t.deepEqual(ofA.map((d) => d.orderReference), [secondOrder, firstOrder].map(referenceOf), "each delivery names its order as a person knows it");
  t.true(ofA.every((d) => d.endpointId === a!.id));
  t.deepEqual((await client.listDeliveries({ storeId, status: "failed" })).deliveries.map((d) => d.id), [failed.id]);
  t.is((await client.listDeliveries({ storeId, status: "pending" })).deliveries.length, 3);
  t.deepEqual((await client.listDeliveries({ storeId, status: "succeeded" })).deliveries, []);
  t.deepEqual((await client.listDeliveries({ storeId, eventId: second })).deliveries.map((d) => d.endpointId).sort(), [a!.id, b!.id].sort());
  t.is((await client.listDeliveries({ storeId, eventId: second, endpointId: b!.id })).deliveries.length, 1);
  t.deepEqual((await client.listDeliveries({ storeId: otherStoreId, endpointId: a!.id })).deliveries, [], "another store's endpoint: nothing of it");

  await rejects(t, client.listDeliveries({ storeId, status: "done" }), Code.InvalidArgument, /^status must be one of pending, succeeded, failed, refused$/);
  await rejects(t, client.listDeliveries({ storeId, endpointId: "x" }), Code.InvalidArgument, /^endpoint_id must be a UUID$/);
  await rejects(t, client.listDeliveries({ storeId, eventId: "x" }), Code.InvalidArgument, /^event_id must be a UUID$/);

  const { delivery } = await client.getDelivery({ storeId, deliveryId: failed.id.toUpperCase() });
  t.like(delivery, { id: failed.id, kind: "event", status: "failed", lastError: "HTTP 500", attemptsMade: 1, nextAttemptAt: "" });
  t.is(delivery!.body, failed.body);
  t.is(delivery!.orderReference, referenceOf(JSON.parse(delivery!.body).data.order.id), "the delivery's page names its order by its reference");
  t.is(delivery!.body, (await client.listEvents({ storeId, type: "order.created" })).events[0]!.body, "the event's body as the bus carried it");
  t.like(delivery!.attempts[0], { number: 1, statusCode: 500, latencyMs: 9, result: "http_error", responseExcerpt: "no" });
  t.true(delivery!.updatedAt >= delivery!.createdAt);
  const listed = (await client.listDeliveries({ storeId, status: "failed" })).deliveries[0]!;
  t.is(listed.body, "", "listings carry no bodies");
  t.is(listed.lastError, "HTTP 500");
  t.is(listed.attempts.length, 1);
  const lean = (await client.listDeliveries({ storeId, status: "failed", withoutAttempts: true })).deliveries[0]!;
  t.like(lean, { id: failed.id, attemptsMade: 1, lastError: "HTTP 500", attempts: [] }, "a list page's: the count, not the attempts");

  await rejects(t, client.getDelivery({ storeId: otherStoreId, deliveryId: failed.id }), Code.NotFound, new RegExp(`^delivery ${failed.id} not found$`));
  await rejects(t, client.getDelivery({ storeId, deliveryId: randomUUID() }), Code.NotFound);
  await rejects(t, client.getDelivery({ storeId, deliveryId: "x" }), Code.InvalidArgument, /^delivery_id must be a UUID$/);
  await rejects(t, client.getDelivery({ storeId: "x", deliveryId: failed.id }), Code.InvalidArgument, /^store_id must be a UUID$/);
});

test("purge: events and settled deliveries (with attempts) past the retention go in batches; newer and pending ones stay", async (t) => {
  const { event, client, sql, db } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://a.example/" });
  const oldIds = [];
  for (let i = 0; i < 5; i++) oldIds.push(await event(storeId, randomUUID(), "order.paid"));
  const recent = await event(storeId, randomUUID(), "order.paid");
  // Settle every delivery but the newest, with one attempt each.
  for (const d of await leaseDue(sql, 5, 20_000, [])) {
    await recordAttempt(
      sql,
      { delivery_id: d.id, started_at: new Date(), status_code: 200, latency_ms: 1, result: "succeeded", error: null, response_excerpt: "" },
      { status: "succeeded" },
    );
  }
  for (const id of oldIds) await db.age(id, RETENTION_MS + 60_000);
  // An old delivery still pending is not purged: it is still to be sent.
  await requeue(sql, storeId, (await client.listDeliveries({ storeId, eventId: oldIds[0] })).deliveries[0]!.id);
  await db.age(oldIds[0]!, 0);

  const purge = createPurge({ sql, retentionMs: RETENTION_MS, batchSize: 2 });
  const counts = await purge.run();
  t.like(counts, { events: 5, deliveries: 4, attempts: 4, endpoints: 0 });
  // 5 events in batches of 2: 2+2+1 (3 statements); 4 deliveries: 2+2+0 (3); endpoints: 1;
  // health's hours: 1.
  t.is(counts.batches, 8);
  t.deepEqual((await client.listEvents({ storeId })).events.map((e) => e.id), [recent]);
  const left = (await client.listDeliveries({ storeId })).deliveries;
  t.deepEqual(left.map((d) => d.eventId).sort(), [recent, oldIds[0]].sort());
  t.like(await purge.run(), { events: 0, deliveries: 0, attempts: 0, batches: 4 });

  // A deleted endpoint goes once its deliveries have.
  await client.deleteEndpoint({ storeId, endpointId: endpoint!.id });
  const later = new Date(Date.now() + RETENTION_MS + 3_600_000);
  t.like(await purge.run(later), { deliveries: 2, endpoints: 1 });
  t.like(await db.counts(), { endpoints: 0, events: 0, deliveries: 0, attempts: 0 });
});

test("the webhook service enforces the role table: support and viewer manage no endpoint, and nothing is written or audited", async (t) => {
  const { client, as, db } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://hooks.example/a" });
  const before = await db.counts();
  for (const role of ["support", "viewer"] as const) {
    as.actor = { kind: "member", memberId: randomUUID(), role, email: `${role}@toko.example` };
    const attempts = [
      client.createEndpoint({ storeId, url: "https://hooks.example/b" }),
      client.updateEndpoint({ storeId, endpointId: endpoint!.id, enabled: false }),
      client.revealSecret({ storeId, endpointId: endpoint!.id }),
      client.rotateSecret({ storeId, endpointId: endpoint!.id }),
      client.sendTestEvent({ storeId, endpointId: endpoint!.id }),
      client.deleteEndpoint({ storeId, endpointId: endpoint!.id }),
    ];
    for (const attempt of attempts) {
      const error = await t.throwsAsync(attempt);
      t.is(ConnectError.from(error).code, Code.PermissionDenied, role);
    }
    t.is((await client.listEndpoints({ storeId })).endpoints.length, 1, "they can still see it");
  }
  t.deepEqual(await db.counts(), before, "no endpoint, delivery or audit entry written");
  t.true(await db.enabled(endpoint!.id));

  as.actor = { kind: "member", memberId: randomUUID(), role: "developer", email: "dev@toko.example" };
  await client.revealSecret({ storeId, endpointId: endpoint!.id });
  await client.updateEndpoint({ storeId, endpointId: endpoint!.id, enabled: false });
  const { entries } = await client.listAudit({ storeId });
  t.deepEqual(
    entries.map((entry) => [entry.actor, entry.action]),
    [
      ["dev@toko.example", "endpoint.disabled"],
      ["dev@toko.example", "endpoint.secret_revealed"],
      ["operator", "endpoint.created"],
    ],
  );
});

test("endpoint URLs: roles that may not manage webhooks (viewer, support) and a call naming no actor read the origin only, in endpoints and the audit log; owner, developer and operator the whole URL", async (t) => {
  const { client, as } = await setup(t);
  const storeId = randomUUID();
  const first = "https://hooks.example:8443/T0K3N/abc?key=s3cr3t#frag";
  const second = "https://relay.example/hook/T0K3N-2?key=s3cr3t-2";
  as.actor = { kind: "member", memberId: randomUUID(), role: "owner", email: "owner@toko.example" };
  const { endpoint } = await client.createEndpoint({ storeId, url: first });
  const endpointId = endpoint!.id;
  await client.updateEndpoint({ storeId, endpointId, url: second, description: "ERP" });
  await client.revealSecret({ storeId, endpointId });

  const read = async () => ({
    listed: (await client.listEndpoints({ storeId })).endpoints.map((e) => e.url),
    got: (await client.getEndpoint({ storeId, endpointId })).endpoint!.url,
    audit: (await client.listAudit({ storeId })).entries
      .reverse()
      .map((e) => [e.action, e.targetLabel, ...e.changes.filter((c) => c.field === "url").map((c) => `${c.before} → ${c.after}`)]),
  });
  const whole = {
    listed: [second],
    got: second,
    audit: [
      ["endpoint.created", first],
      ["endpoint.updated", second, `${first} → ${second}`],
      ["endpoint.secret_revealed", second],
    ],
  };
  const origins = {
    listed: ["https://relay.example"],
    got: "https://relay.example",
    audit: [
      ["endpoint.created", "https://hooks.example:8443"],
      ["endpoint.updated", "https://relay.example", "https://hooks.example:8443 → https://relay.example"],
      ["endpoint.secret_revealed", "https://relay.example"],
    ],
  };
  for (const role of ["viewer", "support"] as const) {
    as.actor = { kind: "member", memberId: randomUUID(), role, email: `${role}@toko.example` };
    t.deepEqual(await read(), origins, role);
  }
  as.actor = undefined;
  t.deepEqual(await read(), origins, "a read that names no actor");
  for (const role of ["owner", "developer"] as const) {
    as.actor = { kind: "member", memberId: randomUUID(), role, email: `${role}@toko.example` };
    t.deepEqual(await read(), whole, role);
  }
  as.actor = OPERATOR;
  t.deepEqual(await read(), whole, "the operator");
});

test("custom headers: set (a name in any case replaces), listed by name, values sealed, revealed only with an audit entry, removed", async (t) => {
  const { client, box, db } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://hooks.example/in", events: { all: true, types: [] } });
  const id = endpoint!.id;
  await client.setEndpointHeader({ storeId, endpointId: id, header: { name: "Authorization", value: "Bearer rahasia-1" } });
  await client.setEndpointHeader({ storeId, endpointId: id, header: { name: "X-Tenant", value: "toko-1" } });
  const { endpoint: replaced } = await client.setEndpointHeader({ storeId, endpointId: id, header: { name: "authorization", value: "Bearer rahasia-2" } });
  t.deepEqual(replaced!.headerNames, ["authorization", "X-Tenant"]);
  const stored = await db.headersOf(id);
  t.regex(stored.sealed ?? "", /^aesgcm:/);
  t.false(stored.sealed!.includes("rahasia"), "values are not stored in the clear");
  t.deepEqual(JSON.parse(box.open(stored.sealed!)), [
    { name: "authorization", value: "Bearer rahasia-2" },
    { name: "X-Tenant", value: "toko-1" },
  ]);
  t.false(JSON.stringify(await client.getEndpoint({ storeId, endpointId: id })).includes("rahasia"), "reading the endpoint never shows a value");

  const auditBefore = (await db.counts()).audit;
  const { headers } = await client.revealEndpointHeaders({ storeId, endpointId: id });
  t.deepEqual(headers.map((h) => [h.name, h.value]), [
    ["authorization", "Bearer rahasia-2"],
    ["X-Tenant", "toko-1"],
  ]);
  t.is((await db.counts()).audit, auditBefore + 1, "the reveal is audited");
  const { endpoint: removed } = await client.removeEndpointHeader({ storeId, endpointId: id, name: "x-tenant" });
  t.deepEqual(removed!.headerNames, ["authorization"]);
  await rejects(t, client.removeEndpointHeader({ storeId, endpointId: id, name: "X-Tenant" }), Code.NotFound, /no header X-Tenant/);
  await rejects(t, client.setEndpointHeader({ storeId: randomUUID(), endpointId: id, header: { name: "X-A", value: "b" } }), Code.NotFound);
  await rejects(t, client.revealEndpointHeaders({ storeId: randomUUID(), endpointId: id }), Code.NotFound);
});

test("custom headers: forbidden names and bad values are INVALID_ARGUMENT naming the field; an eleventh is refused; nothing is written", async (t) => {
  const { client, db } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://hooks.example/in", events: { all: true, types: [] } });
  const id = endpoint!.id;
  for (const [name, value, field] of [
    ["webhook-signature", "v1,x", "header_name"],
    ["Content-Type", "text/plain", "header_name"],
    ["Host", "evil.example", "header_name"],
    ["Transfer-Encoding", "chunked", "header_name"],
    ["X Bad", "v", "header_name"],
    ["X-Ok", "line\nbreak", "header_value"],
    ["X-Ok", "", "header_value"],
  ] as const) {
    await rejects(t, client.setEndpointHeader({ storeId, endpointId: id, header: { name, value } }), Code.InvalidArgument, new RegExp(`^${field} `));
  }
  t.deepEqual((await db.headersOf(id)).names, []);
  for (let i = 0; i < 10; i++) await client.setEndpointHeader({ storeId, endpointId: id, header: { name: `X-H${i}`, value: "v" } });
  await rejects(t, client.setEndpointHeader({ storeId, endpointId: id, header: { name: "X-H10", value: "v" } }), Code.InvalidArgument, /at most 10/);
  t.is((await db.headersOf(id)).names.length, 10);
});

test("custom headers are developer settings: support and viewer get PERMISSION_DENIED and nothing changes", async (t) => {
  const { client, as, db } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://hooks.example/in", events: { all: true, types: [] } });
  const id = endpoint!.id;
  await client.setEndpointHeader({ storeId, endpointId: id, header: { name: "X-Token", value: "abc" } });
  const before = { headers: await db.headersOf(id), audit: (await db.counts()).audit };
  for (const role of ["support", "viewer"] as const) {
    as.actor = { kind: "member", memberId: randomUUID(), role, email: `${role}@toko.example` };
    await rejects(t, client.setEndpointHeader({ storeId, endpointId: id, header: { name: "X-Token", value: "forged" } }), Code.PermissionDenied);
    await rejects(t, client.removeEndpointHeader({ storeId, endpointId: id, name: "X-Token" }), Code.PermissionDenied);
    await rejects(t, client.revealEndpointHeaders({ storeId, endpointId: id }), Code.PermissionDenied);
  }
  t.deepEqual({ headers: await db.headersOf(id), audit: (await db.counts()).audit }, before);
  as.actor = { kind: "member", memberId: randomUUID(), role: "developer", email: "dev@toko.example" };
  t.deepEqual((await client.revealEndpointHeaders({ storeId, endpointId: id })).headers.map((h) => h.value), ["abc"]);
});

test("GetWebhookHealth: per endpoint, attempts and successes in 24 h and the latest; the store's failed attempts; other stores and older attempts left out", async (t) => {
  const { client, event, sql } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.setEndpoint({ storeId, url: "https://hooks.example/in" });
  const other = randomUUID();
  await client.setEndpoint({ storeId: other, url: "https://hooks.example/other" });
  for (let i = 0; i < 3; i++) await event(storeId, randomUUID());
  await event(other, randomUUID());
  const attempt = async (deliveryId: string, statusCode: number, startedAt: Date) => {
    await recordAttempt(sql, attemptOf(deliveryId, startedAt, statusCode), outcomeOf(statusCode));
  };
  const leased = await leaseDue(sql, 10, 20_000, []);
  const mine = leased.filter((d) => d.store_id === storeId);
  const theirs = leased.find((d) => d.store_id === other)!;
  const now = Date.now();
  await attempt(mine[0]!.id, 500, new Date(now - 25 * 3_600_000)); // older than 24 h
  await attempt(mine[0]!.id, 503, new Date(now - 60_000));
  await attempt(mine[1]!.id, 200, new Date(now - 30_000));
  await attempt(mine[2]!.id, 500, new Date(now - 10_000));
  await attempt(theirs.id, 500, new Date(now - 10_000));
  const health = await client.getWebhookHealth({ storeId });
  t.is(health.failedAttempts24h, 2);
  t.is(health.endpoints.length, 1);
  t.like(health.endpoints[0], { endpointId: endpoint!.id, attempts24h: 3, succeeded24h: 1, lastResult: "http_error", lastStatusCode: 500 });
  t.is(Date.parse(health.endpoints[0]!.lastAttemptAt), now - 10_000);
  await rejects(t, client.getWebhookHealth({ storeId: "x" }), Code.InvalidArgument, /store_id/);
});

test("ListAudit: endpoints are called by their URL; their changes say before → after, a custom header by its name only", async (t) => {
  const { client, as } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://hooks.example/a", description: "kasir", events: { types: ["order.paid"] } });
  const endpointId = endpoint!.id;
  as.actor = { kind: "member", memberId: randomUUID(), role: "developer", email: "dev@toko.example" };
  await client.updateEndpoint({ storeId, endpointId, url: "https://hooks.example/b", description: "akuntansi", events: { all: true }, maxPerSecond: "5" });
  await client.updateEndpoint({ storeId, endpointId, enabled: false });
  await client.updateEndpoint({ storeId, endpointId, enabled: true });
  await client.setEndpointHeader({ storeId, endpointId, header: { name: "Authorization", value: "Bearer rahasia-1" } });
  await client.setEndpointHeader({ storeId, endpointId, header: { name: "authorization", value: "Bearer rahasia-2" } });
  await client.removeEndpointHeader({ storeId, endpointId, name: "AUTHORIZATION" });
  await client.revealSecret({ storeId, endpointId });
  await client.rotateSecret({ storeId, endpointId });
  const { delivery } = await client.sendTestEvent({ storeId, endpointId });
  await client.redeliver({ storeId, deliveryId: delivery!.id });
  await client.deleteEndpoint({ storeId, endpointId });

  const { entries } = await client.listAudit({ storeId });
  const url = "https://hooks.example/b";
  t.deepEqual(
    entries.reverse().map((e) => [e.action, e.target, e.targetLabel, e.changes.map((c) => `${c.field}: ${c.before} → ${c.after}`)]),
    [
      ["endpoint.created", `endpoint:${endpointId}`, "https://hooks.example/a", []],
      [
        "endpoint.updated",
        `endpoint:${endpointId}`,
        url,
        ["url: https://hooks.example/a → https://hooks.example/b", "description: kasir → akuntansi", "events: order.paid → all", "max_per_second: no limit → 5"],
      ],
      ["endpoint.disabled", `endpoint:${endpointId}`, url, ["enabled: true → false"]],
      ["endpoint.enabled", `endpoint:${endpointId}`, url, ["enabled: false → true"]],
      ["endpoint.header_set", `endpoint:${endpointId}`, url, ["header.Authorization:  → (hidden)"]],
      ["endpoint.header_set", `endpoint:${endpointId}`, url, ["header.authorization: (hidden) → (hidden)"]],
      ["endpoint.header_removed", `endpoint:${endpointId}`, url, ["header.authorization: (hidden) → "]],
      ["endpoint.secret_revealed", `endpoint:${endpointId}`, url, []],
      ["endpoint.secret_rotated", `endpoint:${endpointId}`, url, []],
      ["endpoint.test_sent", `endpoint:${endpointId}`, url, []],
      ["delivery.resent", `delivery:${delivery!.id}`, "webhook.test", []],
      ["endpoint.deleted", `endpoint:${endpointId}`, url, []],
    ],
  );
  t.false(JSON.stringify(entries.map((e) => e.changes)).includes("rahasia"), "a header's value is never in the log");
});

test("ListAudit: SetEndpoint's change of the store's one endpoint says what it replaced", async (t) => {
  const { client, sql } = await setup(t);
  const storeId = randomUUID();
  const first = await client.setEndpoint({ storeId, url: "https://one.example/" });
  await disableEndpoint(sql, first.endpoint!.id, "receiver answered 410 Gone");
  await client.setEndpoint({ storeId, url: "https://two.example/" });
  const { entries } = await client.listAudit({ storeId });
  t.deepEqual(
    entries.map((e) => [e.action, e.targetLabel, e.changes.map((c) => `${c.field}: ${c.before} → ${c.after}`)]),
    [
      ["endpoint.updated", "https://two.example/", ["url: https://one.example/ → https://two.example/", "enabled: false → true"]],
      ["endpoint.created", "https://one.example/", []],
    ],
  );
});

test("ListAudit: filtered by actor and by action, paged by position with nothing twice or missed; an unknown action is INVALID_ARGUMENT naming action", async (t) => {
  const { client, as, sql } = await setup(t);
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://hooks.example/a" });
  const endpointId = endpoint!.id;
  as.actor = { kind: "member", memberId: randomUUID(), role: "developer", email: "dev@toko.example" };
  await client.revealSecret({ storeId, endpointId });
  await client.updateEndpoint({ storeId, endpointId, description: "kasir" });
  as.actor = OPERATOR;
  await client.revealSecret({ storeId, endpointId });
  // Three entries of one transaction, all at its start time: only the sequence orders them.
  await sql.begin(async (tx) => {
    for (const name of ["a", "b", "c"]) {
      await tx`insert into audit_log (store_id, created_at, actor, action, target, target_label)
        values (${storeId}, now(), 'system', 'endpoint.disabled', ${`endpoint:${name}`}, ${`https://${name}.example/`})`;
    }
  });
  const list = (request: object) => client.listAudit({ storeId, ...request });

  t.deepEqual((await list({ actor: "dev@toko.example" })).entries.map((e) => e.action), ["endpoint.updated", "endpoint.secret_revealed"]);
  t.deepEqual((await list({ action: "endpoint.secret_revealed" })).entries.map((e) => e.actor), ["operator", "dev@toko.example"]);
  t.deepEqual((await list({ actor: "system", action: "endpoint.disabled" })).entries.map((e) => e.targetLabel), ["https://c.example/", "https://b.example/", "https://a.example/"]);
  t.deepEqual((await list({ actor: "dev@toko.example", action: "endpoint.created" })).entries, []);

  t.is((await checkPaging(t, list, { ties: true })).length, 7);
  await checkPaging(t, list, { filters: { actor: "system" }, ties: true });
  t.deepEqual((await client.listAudit({ storeId: randomUUID() })).entries, [], "one store's entries only");

  t.deepEqual(await failure(list({ action: "endpoint.renamed" })), { code: Code.InvalidArgument, field: "action", message: "action: is not an action the audit log records" });
  t.like(await failure(list({ before: { micros: 1n, seq: -1n } })), { code: Code.InvalidArgument, field: "before" });
});

test("GetDelivery: each attempt lists the headers it was sent with, exactly as the receiver got them, a custom header's value masked", async (t) => {
  const { sql, box, client } = await setup(t, { allowHttp: true });
  // The receiver refuses the first request, so the delivery has two attempts, each signed at its own time.
  const receiver = await startReceiver((_request, index) => ({ status: index === 0 ? 500 : 200 }));
  t.teardown(() => receiver.close());
  const storeId = randomUUID();
  const { endpoint } = await client.createEndpoint({ storeId, url: receiver.url });
  await client.setEndpointHeader({ storeId, endpointId: endpoint!.id, header: { name: "X-Erp-Token", value: "erp-secret-123" } });
  const { delivery } = await client.sendTestEvent({ storeId, endpointId: endpoint!.id });
  const worker = startDeliveryWorker({ sql, logger, box, schedule: [0, 0], allowHttp: true, allowPrivate: true, pollMs: 50 });
  t.teardown(() => worker.stop());
  await waitFor(async () => (await client.getDelivery({ storeId, deliveryId: delivery!.id })).delivery!.status === "succeeded", 20_000, 50);

  const { delivery: full } = await client.getDelivery({ storeId, deliveryId: delivery!.id });
  t.is(full!.attempts.length, 2);
  t.is(receiver.received.length, 2);
  for (const [index, attempt] of full!.attempts.entries()) {
    const got = receiver.received[index]!.headers;
    const recorded = attempt.requestHeaders.map((header) => [header.name, header.masked ? "(masked)" : header.value]);
    const expected = Object.keys(got)
      // HTTP's own, which the client adds, are not the worker's.
      .filter((name) => !["host", "content-length", "connection"].includes(name))
      .map((name) => [name, name === "x-erp-token" ? "(masked)" : got[name]]);
    t.deepEqual(recorded, expected, `attempt ${attempt.number}`);
    t.is(got["x-erp-token"], "erp-secret-123", "the value itself was sent");
    t.false(JSON.stringify(attempt.requestHeaders).includes("erp-secret-123"), "and is not in the record");
  }
  t.deepEqual(
    full!.attempts[0]!.requestHeaders.map((header) => header.name).sort(),
    ["content-type", "user-agent", "webhook-id", "webhook-signature", "webhook-timestamp", "x-erp-token"],
  );
  const stored = await sql<{ request_headers: unknown }[]>`select request_headers from delivery_attempts where delivery_id = ${delivery!.id}`;
  t.false(JSON.stringify(stored).includes("erp-secret-123"), "the custom header's value is never stored with the attempt");
});
