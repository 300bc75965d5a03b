// Test mode in the webhook service (docs/webhooks.md#test-mode), in memory over real SQL:
// an endpoint is live or test, an event takes its mode from its order's `livemode`, a
// test event reaches test endpoints only, and every list, replay and lookup that names a
// mode sees that mode only (the other mode's ids are NOT_FOUND).
import { OPERATOR } from "../../common/actor.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { Code, createClient, createRouterTransport } from "@connectrpc/connect";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { createLogger } from "../../platform/logger.js";
import { createEventConsumer } from "../../services/webhook/consumer.js";
import { createWebhookDomain } from "../../services/webhook/domain.js";
import { createWebhookRoutes } from "../../services/webhook/routes.js";
import { createSecretBox } from "../../services/webhook/secret-box.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { migratedDatabase } from "../helpers/template-db.js";
import { failure } from "../helpers/rpc-failure.js";

const logger = createLogger("test", "silent");

async function setup(t: ExecutionContext) {
  const sql = (await migratedDatabase(t)).pool(WEBHOOK_SCHEMA);
  const domain = createWebhookDomain({
    sql,
    logger,
    box: createSecretBox("router-test-master-key"),
    allowHttp: false,
    rotationOverlapMs: 3_600_000,
    eventRetentionMs: 30 * 86_400_000,
    onRequeued: () => {},
  });
  const client = createClient(WebhookService, createRouterTransport(createWebhookRoutes(domain), { transport: { interceptors: [actorInterceptor(() => OPERATOR)] } }));
  const consume = createEventConsumer({ sql, logger, onRecorded: () => {} });
  /** An order event as the bus hands it over; `livemode` on its order as the order service renders it (undefined: a body from before test mode). */
  async function event(storeId: string, livemode: boolean | undefined, type = "order.created") {
    const id = randomUUID();
    const order = livemode === undefined ? { id: randomUUID() } : { id: randomUUID(), livemode };
    const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data: { store_id: storeId, order, previous_status: null } });
    await consume([{ id, storeId, type, body: Buffer.from(body), deliveryCount: 1 }]);
    return id;
  }
  return { client, event };
}

test("an endpoint is live or test: created, set and listed per mode; the other mode's endpoint is NOT_FOUND where a mode is given", async (t) => {
  const { client } = await setup(t);
  const storeId = randomUUID();
  const { endpoint: live } = await client.createEndpoint({ storeId, url: "https://live.example/" });
  const { endpoint: sandbox } = await client.createEndpoint({ storeId, url: "https://test.example/", testMode: true });
  t.true(live!.livemode);
  t.false(sandbox!.livemode);

  t.deepEqual((await client.listEndpoints({ storeId })).endpoints.map((e) => e.id), [live!.id], "live unless asked for test");
  t.deepEqual((await client.listEndpoints({ storeId, testMode: true })).endpoints.map((e) => e.id), [sandbox!.id]);

  t.is((await client.getEndpoint({ storeId, endpointId: sandbox!.id })).endpoint!.id, sandbox!.id, "no mode given: either");
  t.is((await client.getEndpoint({ storeId, endpointId: sandbox!.id, testMode: true })).endpoint!.id, sandbox!.id);
  t.like(await failure(client.getEndpoint({ storeId, endpointId: sandbox!.id, testMode: false })), { code: Code.NotFound });
  t.like(await failure(client.getEndpoint({ storeId, endpointId: live!.id, testMode: true })), { code: Code.NotFound });
  t.like(await failure(client.updateEndpoint({ storeId, endpointId: live!.id, testMode: true, description: "x" })), { code: Code.NotFound });
  t.is((await client.getEndpoint({ storeId, endpointId: live!.id })).endpoint!.description, "", "nothing changed");
  t.like(await failure(client.sendTestEvent({ storeId, endpointId: live!.id, testMode: true })), { code: Code.NotFound });
  t.like(await failure(client.replayEvents({ storeId, endpointId: sandbox!.id, testMode: false, since: new Date(0).toISOString() })), { code: Code.NotFound });

  // SetEndpoint keeps the store's one endpoint of each mode: a second store with one of each.
  const other = randomUUID();
  const setLive = await client.setEndpoint({ storeId: other, url: "https://one.example/" });
  const setTest = await client.setEndpoint({ storeId: other, url: "https://one-test.example/", testMode: true });
  t.not(setTest.endpoint!.id, setLive.endpoint!.id);
  t.false(setTest.endpoint!.livemode);
  const again = await client.setEndpoint({ storeId: other, url: "https://two-test.example/", testMode: true });
  t.is(again.endpoint!.id, setTest.endpoint!.id, "the test endpoint replaced, the live one untouched");
  t.is((await client.getEndpoint({ storeId: other, endpointId: setLive.endpoint!.id })).endpoint!.url, "https://one.example/");
});

test("a test event reaches test endpoints only, a live one (or one from before test mode) live endpoints only; the log lists one mode", async (t) => {
  const { client, event } = await setup(t);
  const storeId = randomUUID();
  const { endpoint: live } = await client.createEndpoint({ storeId, url: "https://live.example/" });
  const { endpoint: sandbox } = await client.createEndpoint({ storeId, url: "https://test.example/", testMode: true });
  const testEvent = await event(storeId, false);
  const liveEvent = await event(storeId, true, "order.paid");
  const oldEvent = await event(storeId, undefined);

  const deliveredTo = async (eventId: string) => (await client.listDeliveries({ storeId, eventId })).deliveries.map((d) => d.endpointId);
  t.deepEqual(await deliveredTo(testEvent), [sandbox!.id]);
  t.deepEqual(await deliveredTo(liveEvent), [live!.id]);
  t.deepEqual(await deliveredTo(oldEvent), [live!.id], "no livemode in the body: live");

  const liveLog = (await client.listEvents({ storeId })).events;
  t.deepEqual(liveLog.map((e) => e.id), [oldEvent, liveEvent]);
  t.true(liveLog.every((e) => e.livemode));
  const testLog = (await client.listEvents({ storeId, testMode: true })).events;
  t.deepEqual(testLog.map((e) => [e.id, e.livemode]), [[testEvent, false]]);

  t.deepEqual((await client.listDeliveries({ storeId, testMode: true })).deliveries.map((d) => d.eventId), [testEvent]);
  t.deepEqual((await client.listDeliveries({ storeId, testMode: false })).deliveries.map((d) => d.eventId).sort(), [liveEvent, oldEvent].sort());
  t.is((await client.listDeliveries({ storeId })).deliveries.length, 3, "no mode given: both");

  // A replay to the test endpoint queues the test events only.
  t.is((await client.replayEvents({ storeId, endpointId: sandbox!.id, since: new Date(0).toISOString() })).queued, 1);
  t.is((await client.replayEvents({ storeId, endpointId: live!.id, since: new Date(0).toISOString(), testMode: false })).queued, 2);

  // A test endpoint's test event says it is test data.
  const { delivery } = await client.sendTestEvent({ storeId, endpointId: sandbox!.id, testMode: true });
  const { delivery: full } = await client.getDelivery({ storeId, deliveryId: delivery!.id });
  t.deepEqual(JSON.parse(full!.body).data, { store_id: storeId, endpoint_id: sandbox!.id, livemode: false });
});

test("ListEvents pages with starting_after and has_more within one mode; an unknown or other-mode event id is NOT_FOUND", async (t) => {
  const { client, event } = await setup(t);
  const storeId = randomUUID();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(await event(storeId, false));
  const liveId = await event(storeId, true);
  const newestFirst = [...ids].reverse();

  const first = await client.listEvents({ storeId, testMode: true, limit: 2 });
  t.deepEqual(first.events.map((e) => e.id), newestFirst.slice(0, 2));
  t.true(first.hasMore);
  const second = await client.listEvents({ storeId, testMode: true, limit: 2, startingAfter: first.events[1]!.id });
  t.deepEqual(second.events.map((e) => e.id), newestFirst.slice(2));
  t.false(second.hasMore);
  t.false((await client.listEvents({ storeId, limit: 1 })).hasMore, "the one live event");

  t.like(await failure(client.listEvents({ storeId, testMode: true, startingAfter: liveId })), { code: Code.NotFound });
  t.like(await failure(client.listEvents({ storeId, startingAfter: ids[0]! })), { code: Code.NotFound });
  t.like(await failure(client.listEvents({ storeId, testMode: true, startingAfter: randomUUID() })), { code: Code.NotFound });
  t.like(await failure(client.listEvents({ storeId: randomUUID(), testMode: true, startingAfter: ids[0]! })), { code: Code.NotFound }, "another store's");
  t.like(await failure(client.listEvents({ storeId, startingAfter: "x" })), { code: Code.InvalidArgument, field: "starting_after" });
});
