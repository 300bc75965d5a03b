// Stock changes waiting for the catalog (015_stock_changes.sql): written by the change
// they report, in its transaction, and read and marked sent by stock-relay.ts.
import type { Db } from "../../../platform/db.js";

export type StockChangeAction = "confirm" | "release" | "sell" | "restock";

export interface NewStockChange {
  store_id: string;
  order_id: string;
  action: StockChangeAction;
}

export interface StockChangeRow extends NewStockChange {
  /** bigint, as postgres.js reads it: a string. */
  id: string;
  created_at: Date;
}

/** Changes to send, in the caller's transaction; one statement however many. */
export async function insertStockChanges(db: Db, changes: NewStockChange[]) {
  if (changes.length === 0) return;
  await db`insert into stock_changes ${db(changes)}`;
}

/**
 * Up to `limit` unsent changes in writing order, locked for this transaction (other
 * relays skip them). A change whose order has an earlier unsent change (sent by
 * another relay right now, or waiting) is left for a later batch: an order's changes
 * reach the catalog in the order they were written. The commit is asynchronous, since
 * losing it in a crash only sends the batch again, which the catalog applies once.
 */
export async function lockUnsentStockChanges(tx: Db, limit: number): Promise<StockChangeRow[]> {
  await tx`set local synchronous_commit = off`;
  return tx<StockChangeRow[]>`
    select c.id, c.store_id, c.order_id, c.action, c.created_at from stock_changes c
    where c.sent_at is null
      and not exists (select 1 from stock_changes e where e.order_id = c.order_id and e.sent_at is null and e.id < c.id)
    order by c.id
    limit ${limit}
    for update skip locked`;
}

export async function markStockChangesSent(db: Db, ids: string[]) {
  if (ids.length === 0) return;
  await db`update stock_changes set sent_at = clock_timestamp() where id = any(${ids}::bigint[])`;
}

/** Deletes up to `limit` changes sent more than `keepSeconds` ago; how many. */
export async function deleteSentStockChanges(db: Db, keepSeconds: number, limit: number): Promise<number> {
  const [row] = await db<{ count: number }[]>`
    with gone as (
      delete from stock_changes where id in (
        select id from stock_changes
        where sent_at < clock_timestamp() - make_interval(secs => ${keepSeconds})
        order by sent_at
        limit ${limit}
        for update skip locked)
      returning 1)
    select count(*)::int as count from gone`;
  return row!.count;
}

/** How many changes wait and the oldest one's age in seconds. */
export async function stockChangeBacklog(db: Db): Promise<{ count: number; oldestSeconds: number }> {
  const [row] = await db<{ count: number; oldest: number | null }[]>`
    select count(*)::int as count, extract(epoch from clock_timestamp() - min(created_at))::float8 as oldest
    from stock_changes where sent_at is null`;
  return { count: row!.count, oldestSeconds: row!.oldest ?? 0 };
}
