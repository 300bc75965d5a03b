// Retention's statements (purge.ts runs them): each removes at most `batch` rows, a short
// transaction of its own, so the purge never holds many locks or one long transaction.
// Rows are taken with SKIP LOCKED, so several instances may purge at once.
import type { Db } from "../../../platform/db.js";
import { attemptHour } from "../health-window.js";

/** Deletes up to `batch` events created before `before`; how many. */
export async function purgeEvents(db: Db, before: Date, batch: number): Promise<number> {
  const rows = await db`
    delete from events where id in (
      select id from events where created_at < ${before} limit ${batch} for update skip locked)
    returning id`;
  return rows.length;
}

/** Deletes up to `batch` settled deliveries last changed before `before`, with their attempts. */
export async function purgeDeliveries(db: Db, before: Date, batch: number): Promise<{ deliveries: number; attempts: number }> {
  const [row] = await db<{ deliveries: number; attempts: number }[]>`
    with doomed as (
      select id from deliveries
      where status <> 'pending' and updated_at < ${before}
      limit ${batch} for update skip locked
    ), attempts as (
      delete from delivery_attempts where delivery_id in (select id from doomed) returning 1
    ), gone as (
      delete from deliveries where id in (select id from doomed) returning 1
    )
    select (select count(*) from gone)::int as deliveries, (select count(*) from attempts)::int as attempts`;
  return row!;
}

/** Deletes up to `batch` endpoints deleted before `before` that have no delivery left; how many. */
export async function purgeDeletedEndpoints(db: Db, before: Date, batch: number): Promise<number> {
  const rows = await db`
    delete from endpoints where id in (
      select e.id from endpoints e
      where e.deleted_at < ${before} and not exists (select 1 from deliveries d where d.endpoint_id = e.id)
      limit ${batch} for update skip locked)
    returning id`;
  return rows.length;
}

/** Deletes up to `batch` hours of endpoint health before `before`; how many. */
export async function purgeAttemptHours(db: Db, before: Date, batch: number): Promise<number> {
  const rows = await db`
    delete from endpoint_attempt_hours where (endpoint_id, hour) in (
      select endpoint_id, hour from endpoint_attempt_hours where hour < ${attemptHour(before)} limit ${batch} for update skip locked)
    returning 1`;
  return rows.length;
}
