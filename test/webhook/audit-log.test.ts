// The webhook service's part of the audit log on real PostgreSQL (docs/team.md#audit-log, the
// readable audit trail): the routes in memory over db/ on a database of the
// test's own, migrated as the release before and then upgraded. Endpoints are named by
// their URL, their changes say before → after (a custom header by its name, never its
// value), the system's disabling of failing endpoints included; filters by actor and
// action; pages by position, ties within one microsecond included.
import test, { type ExecutionContext } from "ava";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Code, createClient, createRouterTransport } from "@connectrpc/connect";
import { OPERATOR, type Actor } from "../../common/actor.js";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { createLogger } from "../../platform/logger.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { createWebhookDomain } from "../../services/webhook/domain.js";
import { createFailingEndpoints } from "../../services/webhook/failing-endpoints.js";
import { createWebhookRoutes } from "../../services/webhook/routes.js";
import { createSecretBox } from "../../services/webhook/secret-box.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { checkPaging } from "../helpers/audit-pages.js";
import { schemaBefore } from "../helpers/migrations.js";
import { failure } from "../helpers/rpc-failure.js";

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../services/webhook/migrations");
const ADDED = "009_audit_label_changes.sql";
const logger = createLogger("test", "silent");

/** The schema as the release before left it, with one entry of then; upgraded; the routes over it. */
async function setup(t: ExecutionContext) {
  const { sql, upgrade } = await schemaBefore(t, WEBHOOK_SCHEMA, MIGRATIONS, ADDED);
  const storeId = randomUUID();
  await sql`insert into audit_log (store_id, actor, action, target) values (${storeId}, 'operator', 'endpoint.deleted', 'endpoint:old')`;
  t.true((await upgrade()).includes(ADDED), "the upgrade applies it");
  const as: { actor: Actor } = { actor: OPERATOR };
  const domain = createWebhookDomain({
    sql,
    logger,
    box: createSecretBox("audit-log-test-master-key"),
    allowHttp: false,
    rotationOverlapMs: 3_600_000,
    eventRetentionMs: 30 * 86_400_000,
    onRequeued: () => {},
  });
  const client = createClient(WebhookService, createRouterTransport(createWebhookRoutes(domain), { transport: { interceptors: [actorInterceptor(() => as.actor)] } }));
  const failing = createFailingEndpoints({ sql, logger, disableAfterMs: 60_000, ownersOf: async () => [], mailer: { send: () => {} }, publicBaseUrl: "https://shop.example" });
  return { sql, as, client, failing, storeId, list: (request: object) => client.listAudit({ storeId, ...request }) };
}

const developer: Actor = { kind: "member", memberId: randomUUID(), role: "developer", email: "dev@toko.example" };
const changesOf = (entry: { changes: { field: string; before: string; after: string }[] }) => entry.changes.map((c) => `${c.field}: ${c.before} → ${c.after}`);

test("an entry of the release before reads with no label; endpoints are named by their URL and their changes say before → after", async (t) => {
  const s = await setup(t);
  const { storeId, client } = s;
  const [legacy] = (await s.list({})).entries;
  t.like(legacy, { action: "endpoint.deleted", target: "endpoint:old", targetLabel: "", changes: [] });

  const { endpoint } = await client.createEndpoint({ storeId, url: "https://hooks.example/a", description: "kasir", events: { types: ["order.paid", "order.created"] } });
  const endpointId = endpoint!.id;
  s.as.actor = developer;
  await client.updateEndpoint({ storeId, endpointId, url: "https://hooks.example/b", events: { all: true }, maxPerSecond: "20" });
  await client.updateEndpoint({ storeId, endpointId, description: "akuntansi", maxPerSecond: "" });
  await client.updateEndpoint({ storeId, endpointId, enabled: false });
  await client.updateEndpoint({ storeId, endpointId, enabled: true });
  await client.setEndpointHeader({ storeId, endpointId, header: { name: "X-Tenant", value: "toko-rahasia" } });
  await client.removeEndpointHeader({ storeId, endpointId, name: "x-tenant" });
  await client.rotateSecret({ storeId, endpointId });
  await client.revealSecret({ storeId, endpointId });
  const { delivery } = await client.sendTestEvent({ storeId, endpointId });
  await client.redeliver({ storeId, deliveryId: delivery!.id });
  await client.deleteEndpoint({ storeId, endpointId });
  s.as.actor = OPERATOR;

  const { entries } = await s.list({});
  const url = "https://hooks.example/b";
  t.deepEqual(
    entries.reverse().map((e) => [e.action, e.targetLabel, changesOf(e)]),
    [
      ["endpoint.deleted", "", []],
      ["endpoint.created", "https://hooks.example/a", []],
      ["endpoint.updated", url, ["url: https://hooks.example/a → https://hooks.example/b", "events: order.created, order.paid → all", "max_per_second: no limit → 20"]],
      ["endpoint.updated", url, ["description: kasir → akuntansi", "max_per_second: 20 → no limit"]],
      ["endpoint.disabled", url, ["enabled: true → false"]],
      ["endpoint.enabled", url, ["enabled: false → true"]],
      ["endpoint.header_set", url, ["header.X-Tenant:  → (hidden)"]],
      ["endpoint.header_removed", url, ["header.X-Tenant: (hidden) → "]],
      ["endpoint.secret_rotated", url, []],
      ["endpoint.secret_revealed", url, []],
      ["endpoint.test_sent", url, []],
      ["delivery.resent", "webhook.test", []],
      ["endpoint.deleted", url, []],
    ],
  );
  t.false(JSON.stringify(entries.map((e) => e.changes)).includes("rahasia"), "a header's value is never in the log");
});

test("SetEndpoint and the system's disabling of failing endpoints say what they changed", async (t) => {
  const s = await setup(t);
  const { storeId, client } = s;
  const first = await client.setEndpoint({ storeId, url: "https://one.example/" });
  await client.updateEndpoint({ storeId, endpointId: first.endpoint!.id, enabled: false });
  await client.setEndpoint({ storeId, url: "https://two.example/" });
  const second = await client.createEndpoint({ storeId, url: "https://three.example/" });
  await s.sql`update endpoints set failing_since = now() - interval '1 hour' where store_id = ${storeId}`;
  t.is((await s.failing.sweep()).length, 2);

  const { entries } = await s.list({ limit: 5 });
  const newest = entries.slice(0, 2).sort((a, b) => a.targetLabel.localeCompare(b.targetLabel));
  t.deepEqual(
    newest.map((e) => [e.actor, e.action, e.target, e.targetLabel, changesOf(e)]),
    [
      ["system", "endpoint.disabled", `endpoint:${second.endpoint!.id}`, "https://three.example/", ["enabled: true → false"]],
      ["system", "endpoint.disabled", `endpoint:${first.endpoint!.id}`, "https://two.example/", ["enabled: true → false"]],
    ],
  );
  t.deepEqual(
    entries.slice(2).map((e) => [e.action, e.targetLabel, changesOf(e)]),
    [
      ["endpoint.created", "https://three.example/", []],
      ["endpoint.updated", "https://two.example/", ["url: https://one.example/ → https://two.example/", "enabled: false → true"]],
      ["endpoint.disabled", "https://one.example/", ["enabled: true → false"]],
    ],
  );
});

test("filters by actor and action; pages by position give every entry once, ties within one microsecond included; an unknown action is INVALID_ARGUMENT", async (t) => {
  const s = await setup(t);
  const { storeId, client } = s;
  const { endpoint } = await client.createEndpoint({ storeId, url: "https://hooks.example/a" });
  s.as.actor = developer;
  await client.revealSecret({ storeId, endpointId: endpoint!.id });
  s.as.actor = OPERATOR;
  await client.revealSecret({ storeId, endpointId: endpoint!.id });
  // Three entries of one transaction, all at its start time: only seq tells them apart.
  await s.sql.begin(async (tx) => {
    for (const n of [1, 2, 3]) {
      await tx`insert into audit_log (store_id, created_at, actor, action, target, target_label)
        values (${storeId}, now(), 'system', 'endpoint.disabled', ${`endpoint:${n}`}, ${`https://${n}.example/`})`;
    }
  });

  t.deepEqual((await s.list({ actor: "dev@toko.example" })).entries.map((e) => e.action), ["endpoint.secret_revealed"]);
  t.deepEqual((await s.list({ action: "endpoint.secret_revealed" })).entries.map((e) => e.actor), ["operator", "dev@toko.example"]);
  t.deepEqual((await s.list({ actor: "system", action: "endpoint.disabled" })).entries.map((e) => e.targetLabel), ["https://3.example/", "https://2.example/", "https://1.example/"]);
  t.deepEqual((await s.list({ actor: "operator", action: "endpoint.disabled" })).entries, []);

  t.is((await checkPaging(t, s.list, { ties: true })).length, 7);
  await checkPaging(t, s.list, { filters: { action: "endpoint.disabled" }, ties: true });
  t.deepEqual((await client.listAudit({ storeId: randomUUID() })).entries, [], "one store's entries only");

  t.deepEqual(await failure(s.list({ action: "endpoint.renamed" })), { code: Code.InvalidArgument, field: "action", message: "action: is not an action the audit log records" });
});
