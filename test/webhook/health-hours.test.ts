// Endpoint health on PostgreSQL (docs/dashboard.md#overview), kept per endpoint and UTC hour
// (012_endpoint_attempt_hours.sql): attempts recorded before the upgrade are counted
// from it, attempts recorded after it by the statement that records them, none lost
// when they land at once and the last one staying the newest; the hours go with the
// purge a day after their window. The routes in memory over db/.
import path from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import test from "ava";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { OPERATOR } from "../../common/actor.js";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { createLogger } from "../../platform/logger.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { createWebhookDomain } from "../../services/webhook/domain.js";
import { createPurge } from "../../services/webhook/purge.js";
import { createWebhookRoutes } from "../../services/webhook/routes.js";
import { createSecretBox } from "../../services/webhook/secret-box.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { recordAttempt } from "../../services/webhook/db/deliveries.js";
import { schemaBefore } from "../helpers/migrations.js";
import { attemptOf, outcomeOf } from "../helpers/webhook-attempts.js";

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../services/webhook/migrations");
const HOUR = 3_600_000;
const logger = createLogger("test", "silent");

test("counted before the upgrade and after it, ten at once, one recorded late; purged a day after the window", async (t) => {
  const { sql, upgrade } = await schemaBefore(t, WEBHOOK_SCHEMA, MIGRATIONS, "012");
  const storeId = randomUUID();
  const otherStore = randomUUID();
  const endpoint = async (store: string) => (await sql<{ id: string }[]>`insert into endpoints (store_id, url) values (${store}, 'https://hooks.example/in') returning id`)[0]!.id;
  const mine = await endpoint(storeId);
  const theirs = await endpoint(otherStore);
  // An event and its delivery as the release before recorded them: this schema is older than the events' mode too.
  const event = async (store: string) => {
    const id = randomUUID();
    await sql`insert into events (id, store_id, type, order_id, body) values (${id}, ${store}, 'order.paid', ${randomUUID()}, '{}')`;
    const [delivery] = await sql<{ id: string }[]>`
      insert into deliveries (endpoint_id, store_id, event_id, event_type, order_id, body)
      select id, store_id, ${id}, 'order.paid', null, '{}' from endpoints where store_id = ${store}
      returning id`;
    return delivery!.id;
  };
  let number = 0;
  const attemptRow = (deliveryId: string, startedAt: Date, statusCode: number) => ({ ...attemptOf(deliveryId, startedAt, statusCode), number: ++number });
  const now = Date.now();
  const a = await event(storeId);
  const b = await event(storeId);
  const other = await event(otherStore);
  // Before the upgrade, as the release before recorded them.
  for (const row of [attemptRow(a, new Date(now - 26 * HOUR), 500), attemptRow(a, new Date(now - 2 * HOUR), 503), attemptRow(b, new Date(now - HOUR), 200), attemptRow(other, new Date(now - HOUR), 500)]) {
    await sql`insert into delivery_attempts ${sql(row)}`;
  }
  t.true((await upgrade()).includes("012_endpoint_attempt_hours.sql"));

  const domain = createWebhookDomain({ sql, logger, box: createSecretBox("health-hours-test-key"), allowHttp: false, rotationOverlapMs: HOUR, eventRetentionMs: 30 * 24 * HOUR, onRequeued: () => {} });
  const client = createClient(WebhookService, createRouterTransport(createWebhookRoutes(domain), { transport: { interceptors: [actorInterceptor(() => OPERATOR)] } }));
  const health = async () => {
    const answer = await client.getWebhookHealth({ storeId });
    const [row] = answer.endpoints;
    return { failed: answer.failedAttempts24h, endpoints: answer.endpoints.length, row: row && { id: row.endpointId, attempts: row.attempts24h, succeeded: row.succeeded24h, last: [Date.parse(row.lastAttemptAt), row.lastResult, row.lastStatusCode] } };
  };
  t.deepEqual(await health(), { failed: 1, endpoints: 1, row: { id: mine, attempts: 2, succeeded: 1, last: [now - HOUR, "succeeded", 200] } }, "from the attempts of the release before; 26 h ago is out");

  // After it, as the worker records them: one, ten at once, and one that started before
  // the others but is recorded last.
  const record = (deliveryId: string, startedAt: Date, statusCode: number) =>
    recordAttempt(sql, attemptOf(deliveryId, startedAt, statusCode), outcomeOf(statusCode), { endpointId: mine, succeeded: statusCode < 300 });
  await record(a, new Date(now - 1_000), 502);
  await Promise.all(Array.from({ length: 10 }, (_, i) => record(b, new Date(now - 500 + i), 200)));
  await record(a, new Date(now - 2_000), 500);
  t.deepEqual(await health(), { failed: 3, endpoints: 1, row: { id: mine, attempts: 14, succeeded: 11, last: [now - 491, "succeeded", 200] } });
  t.is((await client.getWebhookHealth({ storeId: otherStore })).endpoints[0]?.endpointId, theirs, "the other store's own");

  // The list pages' lean list on PostgreSQL: no bodies, and attempts only when asked.
  const listed = (await client.listDeliveries({ storeId })).deliveries;
  t.deepEqual(listed.map((d) => [d.body, d.attempts.length]).sort(), [["", 4], ["", 11]].sort());
  t.deepEqual((await client.listDeliveries({ storeId, withoutAttempts: true })).deliveries.map((d) => d.attempts.length), [0, 0]);

  const purge = createPurge({ sql, retentionMs: 30 * 24 * HOUR });
  await purge.run(new Date(now + 24 * HOUR));
  t.is((await health()).row?.attempts, 14, "kept a day past the window");
  await purge.run(new Date(now + 50 * HOUR));
  const [left] = await sql<{ n: number }[]>`select count(*)::int as n from endpoint_attempt_hours`;
  t.is(left!.n, 0, "then purged");
  const [attempts] = await sql<{ n: number }[]>`select count(*)::int as n from delivery_attempts`;
  t.is(attempts!.n, 16, "the attempts themselves stay for the event retention");
});
