// Lists and counts of a store's orders: the dashboard's and the API's pages, the
// search, and the counts by status.
import type postgres from "postgres";
import type { Db } from "../../../platform/db.js";
import type { OrderStatus } from "../status-machine.js";
import { pendingWhere, type OrderRow } from "./orders.js";

export interface OrderFilter {
  status?: OrderStatus;
  /**
   * Orders whose external id is `text`, whose buyer email is `text` in any letter case,
   * or (when given) whose payment reference is `reference`.
   */
  search?: { text: string; reference?: string };
  /** The mode shown (docs/keys.md#test-mode); live when absent. */
  livemode?: boolean;
}

/**
 * A page of the store's orders, newest first: by offset, or after `cursor` (keyset: the
 * page costs the same however deep the walk). Each row carries its `cursor_at` (created_at
 * to the microsecond) for the next page's cursor.
 */
export async function listOrders(db: Db, storeId: string, limit: number, offset: number, filter: OrderFilter = {}, cursor?: { at: string; id: string }) {
  const { status, search } = filter;
  const livemode = filter.livemode ?? true;
  // Each arm of the search has its own index (003_order_search.sql, and the unique
  // reference), so PostgreSQL can OR three index lookups instead of scanning the store.
  const matches = search
    ? db`and (external_id = ${search.text} or lower(buyer_email) = lower(${search.text})
        ${search.reference ? db`or payment_reference = ${search.reference}` : db``})`
    : db``;
  const after = cursor ? db`and (created_at, id) < (${cursor.at}::timestamptz, ${cursor.id}::uuid)` : db``;
  // A due order (pendingWhere) is shown, filtered and counted as expired.
  const arm = (where: postgres.PendingQuery<postgres.Row[]>) => db`
    select *, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at,
      (${pendingWhere(db, true)}) as due
    from orders
    where store_id = ${storeId} and livemode = ${livemode} ${where} ${matches} ${after}
    order by created_at desc, id desc`;
  const page = db`limit ${limit + 1} offset ${offset}`;
  // "expired" is two index ranges (written, and due), each already in page order:
  // merged, rather than one OR that would sort every expired order of the store. Each
  // arm gives all the rows up to the page's end; the merge skips the offset.
  const upToPageEnd = db`limit ${offset + limit + 1}`;
  const query =
    status === "expired"
      ? db`select * from ((${arm(db`and status = 'expired'`)} ${upToPageEnd}) union all (${arm(db`and ${pendingWhere(db, true)}`)} ${upToPageEnd})) u
          order by created_at desc, id desc ${page}`
      : status === "pending"
        ? db`${arm(db`and ${pendingWhere(db, false)}`)} ${page}`
        : db`${arm(status ? db`and status = ${status}` : db``)} ${page}`;
  const rows = await db<(OrderRow & { cursor_at: string; due: boolean })[]>`${query}`;
  const shown = rows.map(({ due, ...row }) => (due ? { ...row, status: "expired" as const } : row));
  return { rows: shown.slice(0, limit), hasMore: rows.length > limit };
}

/** Where an order of the store stands in a list: its creation time to the microsecond and id; undefined when not the store's. */
export async function orderPlace(db: Db, storeId: string, orderId: string, livemode = true): Promise<{ at: string; id: string } | undefined> {
  const [row] = await db<{ at: string; id: string }[]>`
    select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id from orders
    where id = ${orderId} and store_id = ${storeId} and livemode = ${livemode}`;
  return row;
}

/**
 * How many of the store's orders have `status` (every order when absent). A pending
 * order past expires_at counts as expired whether or not it has been written so yet.
 */
export async function countOrders(db: Db, storeId: string, status?: OrderStatus, livemode = true): Promise<number> {
  // Each arm is one index-only range (pendingWhere), the mode right after the store (013_test_mode.sql).
  const store = db`store_id = ${storeId} and livemode = ${livemode}`;
  const dueSplit = (due: boolean) => db`select count(*) from orders where ${store} and ${pendingWhere(db, due)}`;
  const [row] = await db<{ count: number }[]>`select (${
    status === "pending"
      ? dueSplit(false)
      : status === "expired"
        ? db`(select count(*) from orders where ${store} and status = 'expired') + (${dueSplit(true)})`
        : db`select count(*) from orders where ${store} ${status ? db`and status = ${status}` : db``}`
  }) as count`;
  return row!.count;
}

/**
 * A page of the store's orders in change order (docs/orders.md#syncing): the ones changed
 * at or after `since`, or every change after `after`, by (change_xid, id). Only changes
 * of transactions below this statement's snapshot xmin are read: each of those has
 * ended, so a transaction still open (one that began before this read and commits
 * after it) has an id at or above `horizon` and comes on a later page. `horizon` is that
 * xmin, where the walk may go on from when this page is the last. A due pending order is
 * shown expired, as in the other lists.
 *
 * `options.testMode`: which mode's orders the caller asks for (docs/keys.md#test-mode); this
 * statement is where it selects them.
 */
export async function listChangedOrders(
  db: Db,
  storeId: string,
  page: { limit: number; status?: OrderStatus; since?: Date; after?: { xid: string; id: string }; testMode: boolean },
) {
  const from = page.after
    ? db`and (o.change_xid, o.id) > (${page.after.xid}::xid8, ${page.after.id}::uuid)`
    : db`and o.updated_at >= ${page.since!}`;
  const status = page.status
    ? db`and (case when ${pendingWhere(db, true)} then 'expired' else o.status end) = ${page.status}`
    : db``;
  const rows = await db<(OrderRow & { position: string | null; horizon: string; due: boolean | null })[]>`
    with snapshot as (select pg_snapshot_xmin(pg_current_snapshot()) as xmin)
    select o.*, o.change_xid::text as position, snapshot.xmin::text as horizon, (${pendingWhere(db, true)}) as due
    from snapshot left join lateral (
      select * from orders o
      where o.store_id = ${storeId} and o.livemode = ${!page.testMode} and o.change_xid < snapshot.xmin ${from} ${status}
      order by o.change_xid, o.id
      limit ${page.limit + 1}
    ) o on true
    order by o.change_xid, o.id`;
  const horizon = rows[0]!.horizon;
  const found = rows
    .filter((row) => row.id !== null)
    .map(({ due, horizon: _, ...row }) => (due ? { ...row, status: "expired" as const } : row) as OrderRow & { position: string });
  return { rows: found.slice(0, page.limit), hasMore: found.length > page.limit, horizon };
}
