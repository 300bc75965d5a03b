// The webhook service's Connect routes in memory (createRouterTransport) over the real
// domain modules and an in-memory store: every RPC's answer, its argument errors, and
// that one store never reaches another's endpoint or deliveries. No database, no server.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { createLogger } from "../../services/lib/logger.js";
import { createEventConsumer } from "../../services/webhook/consumer.js";
import { createWebhookDomain } from "../../services/webhook/domain.js";
import { createWebhookRoutes } from "../../services/webhook/routes.js";
import { createSecretBox } from "../../services/webhook/secret-box.js";
import { createFakeWebhookStore } from "../helpers/fake-webhook-store.js";

const OVERLAP_MS = 3_600_000;
const logger = createLogger("test", "silent");

function setup({ allowHttp = false } = {}) {
  const fake = createFakeWebhookStore();
  const box = createSecretBox("router-test-master-key");
  const requeued: number[] = [];
  const domain = createWebhookDomain({
    sql: fake.sql,
    store: fake.store,
    logger,
    box,
    allowHttp,
    rotationOverlapMs: OVERLAP_MS,
    onRequeued: () => requeued.push(Date.now()),
  });
  const client = createClient(WebhookService, createRouterTransport(createWebhookRoutes(domain)));
  const consume = createEventConsumer({ sql: fake.sql, store: fake.store, logger, onRecorded: () => {} });
  /** An order event for the store, as the bus hands it to the consumer. */
  async function event(storeId: string, orderId: string, type = "order.created") {
    const id = randomUUID();
    const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data: { store_id: storeId, order: { id: orderId }, previous_status: null } });
    await consume({ id, storeId, type, body: Buffer.from(body), deliveryCount: 1 });
    return id;
  }
  return { fake, box, client, requeued, event };
}

async function rejects(t: ExecutionContext, call: Promise<unknown>, code: Code, message?: RegExp) {
  const error = await t.throwsAsync(call);
  const connectError = ConnectError.from(error);
  t.is(connectError.code, code, `expected ${Code[code]}, got ${Code[connectError.code]}: ${connectError.rawMessage}`);
  if (message) t.regex(connectError.rawMessage, message);
}

test("SetEndpoint: the endpoint and a whsec_ secret shown once; only the sealed secret is stored", async (t) => {
  const { client, fake, box } = setup();
  const storeId = randomUUID();
  const { endpoint, secret } = await client.setEndpoint({ storeId: storeId.toUpperCase(), url: "https://hooks.example/in?token=1" });
  t.like(endpoint, { storeId, url: "https://hooks.example/in?token=1", enabled: true });
  t.is(new Date(endpoint!.createdAt).toISOString(), endpoint!.createdAt);
  t.regex(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.is(Buffer.from(secret.slice(6), "base64").length, 32);
  const stored = fake.secretsOf(endpoint!.id);
  t.is(stored.length, 1);
  t.regex(stored[0]!.secret, /^aesgcm:/);
  t.false(stored[0]!.secret.includes(secret.slice(6)));
  t.is(box.open(stored[0]!.secret), secret);
});

test("SetEndpoint again: the same endpoint, enabled, with the new URL and a new secret; the old secret stops at once", async (t) => {
  const { client, fake } = setup();
  const storeId = randomUUID();
  const first = await client.setEndpoint({ storeId, url: "https://one.example/" });
  await fake.store.disableEndpoint(fake.sql, first.endpoint!.id, "receiver answered 410 Gone");
  const second = await client.setEndpoint({ storeId, url: "https://two.example/" });
  t.is(second.endpoint!.id, first.endpoint!.id);
  t.like(second.endpoint, { url: "https://two.example/", enabled: true });
  t.not(second.secret, first.secret);
  t.is((await fake.store.liveSecrets(fake.sql, first.endpoint!.id)).length, 1);
});

test("SetEndpoint: INVALID_ARGUMENT for a bad store id or URL; http:// only when allowed", async (t) => {
  const { client } = setup();
  const storeId = randomUUID();
  await rejects(t, client.setEndpoint({ storeId: "nope", url: "https://x.example/" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, client.setEndpoint({ storeId, url: "hooks.example/in" }), Code.InvalidArgument, /^url must be an absolute URL$/);
  await rejects(t, client.setEndpoint({ storeId, url: "http://hooks.example/in" }), Code.InvalidArgument, /^url must be https:\/\/ \(http:\/\/ only with WEBHOOK_ALLOW_HTTP\)$/);
  await rejects(t, client.setEndpoint({ storeId, url: "ftp://hooks.example/in" }), Code.InvalidArgument, /https/);
  await rejects(t, client.setEndpoint({ storeId, url: "https://user:pw@hooks.example/in" }), Code.InvalidArgument, /^url must not carry credentials$/);
  await rejects(t, client.setEndpoint({ storeId, url: `https://hooks.example/${"a".repeat(2048)}` }), Code.InvalidArgument, /^url must be at most 2048 characters$/);

  const permissive = setup({ allowHttp: true });
  t.is((await permissive.client.setEndpoint({ storeId, url: "http://127.0.0.1:9/in" })).endpoint!.url, "http://127.0.0.1:9/in");
});

test("RotateSecret: a new secret; the old ones sign until the overlap ends", async (t) => {
  const { client, fake } = setup();
  const storeId = randomUUID();
  const { endpoint } = await client.setEndpoint({ storeId, url: "https://hooks.example/" });
  const before = Date.now();
  const rotated = await client.rotateSecret({ storeId });
  t.is(rotated.endpoint!.id, endpoint!.id);
  t.regex(rotated.secret, /^whsec_/);
  const expires = Date.parse(rotated.previousSecretExpiresAt);
  t.true(expires >= before + OVERLAP_MS && expires <= Date.now() + OVERLAP_MS);
  t.is((await fake.store.liveSecrets(fake.sql, endpoint!.id)).length, 2, "old and new both sign");
  await client.rotateSecret({ storeId });
  t.is((await fake.store.liveSecrets(fake.sql, endpoint!.id)).length, 3, "rotating twice within the overlap: three live secrets");
  const stored = fake.secretsOf(endpoint!.id);
  t.is(stored.filter((row) => row.expires_at === null).length, 1, "only the newest has no end");
});

test("RotateSecret: NOT_FOUND for a store without an endpoint; INVALID_ARGUMENT for a bad id", async (t) => {
  const { client } = setup();
  const storeId = randomUUID();
  await rejects(t, client.rotateSecret({ storeId }), Code.NotFound, new RegExp(`^store ${storeId} has no webhook endpoint$`));
  await rejects(t, client.rotateSecret({ storeId: "x" }), Code.InvalidArgument, /^store_id must be a UUID$/);
});

test("ListDeliveries: the store's deliveries, newest first, with attempts; --order filters; limit; other stores see none", async (t) => {
  const { client, fake, event } = setup();
  const storeId = randomUUID();
  const otherStoreId = randomUUID();
  const { endpoint } = await client.setEndpoint({ storeId, url: "https://a.example/" });
  await client.setEndpoint({ storeId: otherStoreId, url: "https://b.example/" });
  const orderA = randomUUID();
  const orderB = randomUUID();
  const first = await event(storeId, orderA);
  const second = await event(storeId, orderB, "order.paid");
  await event(otherStoreId, randomUUID());

  const [leased] = await fake.store.leaseDue(fake.sql, 1, 20_000, []);
  t.is(leased!.event_id, first);
  const number = await fake.store.finishAttempt(fake.sql, leased!.id, { status: "failed", error: "HTTP 500" });
  await fake.store.insertAttempt(fake.sql, {
    delivery_id: leased!.id,
    number,
    started_at: new Date(),
    status_code: 500,
    latency_ms: 12,
    result: "http_error",
    error: "HTTP 500",
    response_excerpt: "oops",
  });

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
  const { client, fake, requeued, event } = setup();
  const storeId = randomUUID();
  const otherStoreId = randomUUID();
  await client.setEndpoint({ storeId, url: "https://a.example/" });
  const eventId = await event(storeId, randomUUID());
  const [leased] = await fake.store.leaseDue(fake.sql, 1, 20_000, []);
  await fake.store.finishAttempt(fake.sql, leased!.id, { status: "failed", error: "HTTP 500" });

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
  const { client, fake, event } = setup();
  const storeId = randomUUID();
  const consume = createEventConsumer({ sql: fake.sql, store: fake.store, logger, onRecorded: () => {} });

  await event(storeId, randomUUID());
  t.deepEqual((await client.listDeliveries({ storeId })).deliveries, [], "no endpoint yet: nothing to deliver");

  const { endpoint } = await client.setEndpoint({ storeId, url: "https://a.example/" });
  const id = randomUUID();
  const message = { id, storeId, type: "order.paid", body: Buffer.from('{"data":{"order":{"id":null}}}'), deliveryCount: 1 };
  await consume(message);
  await consume({ ...message, deliveryCount: 2 });
  const { deliveries } = await client.listDeliveries({ storeId });
  t.is(deliveries.length, 1, "a redelivered message records nothing more");
  t.is(deliveries[0]!.orderId, "");

  await consume({ ...message, id: randomUUID(), body: Buffer.from("not json") });
  t.is((await client.listDeliveries({ storeId })).deliveries.length, 1, "a body that is not JSON is dropped");

  await fake.store.disableEndpoint(fake.sql, endpoint!.id, "receiver answered 410 Gone");
  await event(storeId, randomUUID());
  t.is((await client.listDeliveries({ storeId })).deliveries.length, 1, "a disabled endpoint gets nothing");
});
