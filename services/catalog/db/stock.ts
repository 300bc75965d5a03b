// The stock_reservations table and the stock column of items: what each order holds or
// took of each tracked item (docs/catalog.md#stock). Every write that changes what an
// item holds or has first locks the item rows, always in id order, so two orders
// never both take the last unit and no two transactions wait on each other in a circle.
import type { Db } from "../../../platform/db.js";
import type { StockLevel } from "../availability.js";
import type { ReservationState } from "../reservation-states.js";

export interface ReservationRow {
  order_id: string;
  item_id: string;
  store_id: string;
  quantity: number;
  state: ReservationState;
  confirm_by: Date | null;
  oversold: boolean;
}

/**
 * Locks the store's items among `ids` in id order, then reads their stock levels. Two
 * statements on purpose: a statement that waited for a lock still sees the held rows as
 * of its start, so the sums are read by a statement begun once every lock is ours.
 */
export async function lockStockLevels(db: Db, storeId: string, ids: string[]): Promise<Map<string, StockLevel>> {
  if (ids.length === 0) return new Map();
  // NO KEY UPDATE: excludes other holders and stock writers, but not a bundle being
  // written that names one of these products (its foreign key takes KEY SHARE), which
  // would otherwise wait on us while holding its own bundle row.
  await db`select id from items where store_id = ${storeId} and id = any(${ids}::uuid[]) order by id for no key update`;
  const rows = await db<(StockLevel & { id: string })[]>`
    select i.id, i.stock,
      coalesce((select sum(r.quantity) from stock_reservations r where r.item_id = i.id and r.state = 'held'), 0)::bigint as held
    from items i where i.store_id = ${storeId} and i.id = any(${ids}::uuid[])`;
  return new Map(rows.map((row) => [row.id, { stock: row.stock, held: row.held }]));
}

/** The order's reservations, by item id. */
export async function orderReservations(db: Db, storeId: string, orderId: string): Promise<ReservationRow[]> {
  return db<ReservationRow[]>`
    select * from stock_reservations where store_id = ${storeId} and order_id = ${orderId} order by item_id`;
}

/** New tentative holds of the order, each to be confirmed within `confirmSeconds`. */
export async function insertHolds(db: Db, storeId: string, orderId: string, holds: ReadonlyMap<string, number>, confirmSeconds: number): Promise<void> {
  if (holds.size === 0) return;
  const rows = [...holds].map(([itemId, quantity]) => ({ item_id: itemId, quantity }));
  await db`
    insert into stock_reservations (order_id, item_id, store_id, quantity, state, confirm_by)
    select ${orderId}, x.item_id, ${storeId}, x.quantity, 'held', clock_timestamp() + make_interval(secs => ${confirmSeconds})
    from jsonb_to_recordset(${db.json(rows)}) as x(item_id uuid, quantity bigint)`;
}

/**
 * The order's reservations, locked, each with its item's stock level: the items are
 * locked first in id order (lockStockLevels), then the reservations.
 */
export async function lockOrderReservations(db: Db, storeId: string, orderId: string): Promise<(ReservationRow & StockLevel)[]> {
  const itemIds = (await db<{ item_id: string }[]>`select item_id from stock_reservations where store_id = ${storeId} and order_id = ${orderId}`).map((row) => row.item_id);
  if (itemIds.length === 0) return [];
  const levels = await lockStockLevels(db, storeId, itemIds);
  const rows = await orderReservationsForUpdate(db, storeId, orderId);
  return rows.map((row) => ({ ...row, ...(levels.get(row.item_id) ?? { stock: null, held: 0 }) }));
}

async function orderReservationsForUpdate(db: Db, storeId: string, orderId: string): Promise<ReservationRow[]> {
  return db<ReservationRow[]>`
    select * from stock_reservations where store_id = ${storeId} and order_id = ${orderId} order by item_id for update`;
}

/** One reservation's new state; `settled` clears confirm_by. */
export async function setReservation(
  db: Db,
  orderId: string,
  itemId: string,
  change: { state: ReservationState; settled: boolean; oversold: boolean },
): Promise<void> {
  await db`
    update stock_reservations set
      state = ${change.state},
      oversold = oversold or ${change.oversold},
      confirm_by = case when ${change.settled} then null else confirm_by end,
      updated_at = clock_timestamp()
    where order_id = ${orderId} and item_id = ${itemId}`;
}

/** Units on hand change by `delta` (a tracked item only: an untracked one stays untracked). */
export async function addStock(db: Db, itemId: string, delta: number): Promise<void> {
  if (delta === 0) return;
  await db`update items set stock = stock + ${delta}, updated_at = clock_timestamp() where id = ${itemId} and stock is not null`;
}

/**
 * The sweep: releases up to `limit` holds whose order was never confirmed in time,
 * skipping rows another transaction has locked (a confirm under way, another sweeper).
 * confirm_by stays, so a confirm arriving later still holds again. The orders released.
 */
export async function releaseUnconfirmed(db: Db, limit: number): Promise<{ order_id: string; item_id: string; quantity: number }[]> {
  return db<{ order_id: string; item_id: string; quantity: number }[]>`
    with due as (
      select order_id, item_id from stock_reservations
      where state = 'held' and confirm_by is not null and confirm_by < clock_timestamp()
      order by confirm_by
      limit ${limit}
      for update skip locked
    )
    update stock_reservations r set state = 'released', updated_at = clock_timestamp()
    from due where r.order_id = due.order_id and r.item_id = due.item_id
    returning r.order_id, r.item_id, r.quantity`;
}
