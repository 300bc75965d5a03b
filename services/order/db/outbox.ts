// The outbox: events written in the transaction of the change they report, read and
// published by outbox-relay.ts.
import type postgres from "postgres";
import type { Db } from "../../../platform/db.js";
import { currentTraceparent } from "../../../platform/tracing.js";

export interface NewOutboxRow {
  id: string;
  store_id: string;
  order_id: string;
  event_type: string;
  payload: unknown;
}

export interface OutboxRow {
  id: string;
  store_id: string;
  event_type: string;
  payload: unknown;
  created_at: Date;
  /** The trace the event was written in (tracing.ts), which the relay carries on; null when untraced. */
  traceparent?: string | null;
}

/**
 * Outbox rows stamped with the trace of the change that writes them (null when
 * untraced): the relay continues that trace onto the bus (010_outbox_traceparent.sql).
 */
export function inTrace<T extends NewOutboxRow>(events: T[]): (T & { traceparent: string | null })[] {
  const traceparent = currentTraceparent();
  return events.map((event) => ({ ...event, traceparent }));
}

/** Outbox events with no status change (a refund's). */
export async function insertEvents(db: Db, events: NewOutboxRow[]) {
  if (events.length === 0) return;
  await db`insert into outbox ${db(inTrace(events).map((event) => ({ ...event, payload: event.payload as postgres.JSONValue })))}`;
}

/**
 * Up to `limit` unsent events, oldest first, locked for this transaction (others skip
 * them). Call inside a transaction: its commit is made asynchronous, since losing it
 * in a crash only re-publishes the batch, which JetStream drops by message id.
 */
export async function lockUnsentEvents(tx: Db, limit: number): Promise<OutboxRow[]> {
  await tx`set local synchronous_commit = off`;
  return tx<OutboxRow[]>`
    select id, store_id, event_type, payload, created_at, traceparent from outbox
    where published_at is null
    order by created_at
    limit ${limit}
    for update skip locked`;
}

export async function markEventsSent(db: Db, ids: string[]) {
  if (ids.length === 0) return;
  await db`update outbox set published_at = clock_timestamp() where id = any(${ids}::uuid[])`;
}

/**
 * Deletes up to `limit` events published more than `keepSeconds` ago, oldest first;
 * how many. Rows another instance is deleting are skipped, not waited for.
 */
export async function deletePublishedEvents(db: Db, keepSeconds: number, limit: number): Promise<number> {
  const [row] = await db<{ count: number }[]>`
    with gone as (
      delete from outbox where id in (
        select id from outbox
        where published_at < clock_timestamp() - make_interval(secs => ${keepSeconds})
        order by published_at
        limit ${limit}
        for update skip locked)
      returning 1)
    select count(*)::int as count from gone`;
  return row!.count;
}

/** How many events wait and the oldest one's age in seconds. */
export async function outboxBacklog(db: Db): Promise<{ count: number; oldestSeconds: number }> {
  const [row] = await db<{ count: number; oldest: number | null }[]>`
    select count(*)::int as count, extract(epoch from clock_timestamp() - min(created_at))::float8 as oldest
    from outbox where published_at is null`;
  return { count: row!.count, oldestSeconds: row!.oldest ?? 0 };
}
