// The Events page's paging on PostgreSQL: events are stored to the millisecond, so a
// batch recorded at once shares one time, and a page may end inside it. ListEvents
// goes on after the last event shown (its time and id), so each event is listed once
// whatever the page size. The routes in memory over db/.
import path from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import test from "ava";
import { Code, createClient, createRouterTransport } from "@connectrpc/connect";
import { OPERATOR } from "../../common/actor.js";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { createLogger } from "../../platform/logger.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { createWebhookDomain } from "../../services/webhook/domain.js";
import { createWebhookRoutes } from "../../services/webhook/routes.js";
import { createSecretBox } from "../../services/webhook/secret-box.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { recordEvents } from "../../services/webhook/db/events.js";
import { schemaBefore } from "../helpers/migrations.js";
import { failure } from "../helpers/rpc-failure.js";

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../services/webhook/migrations");
const HOUR = 3_600_000;

test("paging through events that share a millisecond lists each once, newest first", async (t) => {
  const { sql } = await schemaBefore(t, WEBHOOK_SCHEMA, MIGRATIONS, "999");
  const storeId = randomUUID();
  const event = () => ({ id: randomUUID(), store_id: storeId, type: "order.paid", order_id: randomUUID(), body: "{}" });
  const older = [event(), event()];
  const burst = Array.from({ length: 5 }, event);
  const newest = event();
  for (const batch of [older, burst, [newest]]) await recordEvents(sql, batch);
  const at = new Date(Date.now() - 60_000);
  // Recorded in one statement, a burst may share its millisecond; here it surely does.
  await sql`update events set created_at = ${at} where id = any(${burst.map((e) => e.id)}::uuid[])`;
  await sql`update events set created_at = ${new Date(at.getTime() - 1_000)} where id = any(${older.map((e) => e.id)}::uuid[])`;

  const domain = createWebhookDomain({ sql, logger: createLogger("test", "silent"), box: createSecretBox("events-paging-test-key"), allowHttp: false, rotationOverlapMs: HOUR, eventRetentionMs: 30 * 24 * HOUR, onRequeued: () => {} });
  const client = createClient(WebhookService, createRouterTransport(createWebhookRoutes(domain), { transport: { interceptors: [actorInterceptor(() => OPERATOR)] } }));

  const listed: string[] = [];
  let page = await client.listEvents({ storeId, limit: 2, withoutBodies: true });
  for (let pages = 1; page.events.length > 0; pages++) {
    if (pages > 5) {
      t.fail("paging does not end");
      break;
    }
    listed.push(...page.events.map((e) => e.id));
    const last = page.events.at(-1)!;
    page = await client.listEvents({ storeId, limit: 2, withoutBodies: true, before: last.createdAt, beforeId: last.id });
  }
  const byIdDescending = (events: { id: string }[]) => events.map((e) => e.id).sort().reverse();
  t.deepEqual(listed, [newest.id, ...byIdDescending(burst), ...byIdDescending(older)], "every event once: newest first, then by id descending");

  const [first] = (await client.listEvents({ storeId, limit: 1 })).events;
  t.like(await failure(client.listEvents({ storeId, beforeId: first!.id })), { code: Code.InvalidArgument, field: "before_id", message: "before_id must come with before" });
  t.like(await failure(client.listEvents({ storeId, before: first!.createdAt, beforeId: "x" })), { code: Code.InvalidArgument, field: "before_id", message: "before_id must be a UUID" });
});
