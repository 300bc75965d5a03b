// What the worker writes per delivery, on PostgreSQL: the lease hands out the endpoint's
// live secrets with the delivery, and one statement records an attempt (its number, the
// delivery's outcome, the endpoint's failing streak and its hour of health). Rows are
// locked endpoint first, as deleting an endpoint does, so an attempt recorded while its
// endpoint is being deleted waits for it instead of deadlocking with it.
import path from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import test from "ava";
import { connectDb, transaction } from "../../platform/db.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { failPendingDeliveries, leaseDue, recordAttempt } from "../../services/webhook/db/deliveries.js";
import { insertEndpoint, lockEndpoint, markEndpointDeleted } from "../../services/webhook/db/endpoints.js";
import { recordEvents } from "../../services/webhook/db/events.js";
import { insertSecret } from "../../services/webhook/db/secrets.js";
import { schemaBefore } from "../helpers/migrations.js";
import { attemptOf } from "../helpers/webhook-attempts.js";

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../services/webhook/migrations");

async function setup(t: Parameters<typeof schemaBefore>[0]) {
  const { sql, url } = await schemaBefore(t, WEBHOOK_SCHEMA, MIGRATIONS, "999");
  const storeId = randomUUID();
  const endpoint = await insertEndpoint(sql, { store_id: storeId, url: "https://hooks.example/in", description: "", event_types: null });
  const delivery = async () => {
    const id = randomUUID();
    await recordEvents(sql, [{ id, store_id: storeId, type: "order.paid", order_id: randomUUID(), body: "{}" }]);
    return (await sql<{ id: string }[]>`select id from deliveries where event_id = ${id}`)[0]!.id;
  };
  const failingSince = async () => (await sql<{ failing_since: Date | null }[]>`select failing_since from endpoints where id = ${endpoint.id}`)[0]!.failing_since;
  return { sql, url, storeId, endpoint, delivery, failingSince };
}

test("the lease carries the live secrets, newest first; each attempt is numbered, moves the streak and counts in its hour", async (t) => {
  const { sql, endpoint, delivery, failingSince } = await setup(t);
  await insertSecret(sql, endpoint.id, "sealed-old");
  await insertSecret(sql, endpoint.id, "sealed-expired");
  await sql`update endpoint_secrets set expires_at = now() - interval '1 second' where secret = 'sealed-expired'`;
  await sql`update endpoint_secrets set created_at = now() - interval '1 hour' where secret = 'sealed-old'`;
  await insertSecret(sql, endpoint.id, "sealed-new");
  const id = await delivery();
  const [leased] = await leaseDue(sql, 10, 20_000, []);
  t.is(leased!.id, id);
  t.deepEqual(leased!.secrets, ["sealed-new", "sealed-old"]);

  const first = new Date(Date.now() - 3_000);
  const sent = (succeeded: boolean) => ({ endpointId: endpoint.id, succeeded });
  await recordAttempt(sql, attemptOf(id, first, 500), { status: "pending", nextAttemptAt: new Date(Date.now() + 60_000), error: "HTTP 500" }, sent(false));
  t.deepEqual(await failingSince(), first, "a failure starts the streak at the attempt's start");
  await recordAttempt(sql, attemptOf(id, new Date(Date.now() - 2_000), 503), { status: "pending", nextAttemptAt: new Date(Date.now() + 60_000), error: "HTTP 503" }, sent(false));
  t.deepEqual(await failingSince(), first, "a second failure keeps it");
  await recordAttempt(sql, attemptOf(id, new Date(Date.now() - 1_000), 200), { status: "succeeded" }, sent(true));
  t.is(await failingSince(), null, "a success ends it");

  const [row] = await sql<{ status: string; attempts: number; leased_until: Date | null; unrecorded_sends: number; last_error: string | null }[]>`
    select status, attempts, leased_until, unrecorded_sends, last_error from deliveries where id = ${id}`;
  t.deepEqual(row, { status: "succeeded", attempts: 3, leased_until: null, unrecorded_sends: 0, last_error: null });
  const attempts = await sql`select number, status_code, latency_ms, result, error, response_excerpt from delivery_attempts where delivery_id = ${id} order by number`;
  t.deepEqual(
    attempts.map((a) => [a.number, a.status_code, a.result, a.error]),
    [
      [1, 500, "http_error", "HTTP 500"],
      [2, 503, "http_error", "HTTP 503"],
      [3, 200, "succeeded", null],
    ],
  );
  const [hours] = await sql<{ attempts: number; succeeded: number }[]>`select sum(attempts)::int as attempts, sum(succeeded)::int as succeeded from endpoint_attempt_hours where endpoint_id = ${endpoint.id}`;
  t.deepEqual(hours, { attempts: 3, succeeded: 1 });

  // Without `sent` (an attempt never sent: its endpoint was off), the streak stays.
  await sql`update endpoints set failing_since = ${first} where id = ${endpoint.id}`;
  const other = await delivery();
  await recordAttempt(sql, { ...attemptOf(other, new Date(), 0), status_code: null, result: "endpoint_disabled", error: "endpoint is disabled" }, { status: "failed", error: "endpoint is disabled" });
  t.deepEqual(await failingSince(), first);
  t.is((await sql`select 1 from delivery_attempts where delivery_id = ${other} and number = 1 and result = 'endpoint_disabled'`).length, 1);
});

test("an attempt whose delivery was purged meanwhile records nothing, its endpoint's streak included", async (t) => {
  const { sql, endpoint, delivery, failingSince } = await setup(t);
  const id = await delivery();
  await sql`delete from deliveries where id = ${id}`;
  await recordAttempt(sql, attemptOf(id, new Date(), 500), { status: "pending", error: "HTTP 500" }, { endpointId: endpoint.id, succeeded: false });
  t.is((await sql`select 1 from delivery_attempts`).length, 0);
  t.is((await sql`select 1 from endpoint_attempt_hours`).length, 0);
  t.is(await failingSince(), null);
});

test("a failed attempt recorded while its endpoint is being deleted waits for the delete, and both complete", async (t) => {
  const { sql, url, storeId, endpoint, delivery, failingSince } = await setup(t);
  // The two connections of `sql` are the delete's and the recording's; this one watches.
  const watcher = connectDb(url, { max: 1 });
  t.teardown(() => watcher.end({ timeout: 1 }));
  const id = await delivery();
  await leaseDue(sql, 10, 20_000, []);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const endpointLocked = new Promise<void>((resolve) => (locked = resolve));
  // Deleting, as the service does: the endpoint's row, then its pending deliveries.
  const deleting = transaction(sql, async (tx) => {
    await lockEndpoint(tx, storeId, endpoint.id);
    await markEndpointDeleted(tx, storeId, endpoint.id);
    locked();
    await released;
    return failPendingDeliveries(tx, endpoint.id, "endpoint deleted");
  });
  await endpointLocked;
  const started = new Date();
  const recording = recordAttempt(sql, attemptOf(id, started, 500), { status: "pending", nextAttemptAt: new Date(Date.now() + 60_000), error: "HTTP 500" }, { endpointId: endpoint.id, succeeded: false });
  // The recording is waiting on a row lock before the delete touches the delivery.
  for (let waited = 0; ; waited++) {
    const waiting = await watcher`
      select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%with streak as%'`;
    if (waiting.length > 0) break;
    if (waited > 200) return t.fail("the recording never waited for the endpoint's lock");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  release();
  t.is(await deleting, 1, "the delete failed the pending delivery");
  await recording;
  t.deepEqual(await failingSince(), started);
  const [row] = await sql<{ attempts: number; last_error: string }[]>`select attempts, last_error from deliveries where id = ${id}`;
  t.deepEqual(row, { attempts: 1, last_error: "HTTP 500" }, "the attempt under way recorded its own outcome after the delete");
});
