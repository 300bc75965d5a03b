import type postgres from "postgres";
import type { Sql } from "../lib/db.js";
import type { OrderStatus } from "./status-machine.js";

/** A pool or a transaction: every helper works in either. */
export type Db = Sql | postgres.TransactionSql;

export interface OrderRow {
  id: string;
  store_id: string;
  status: OrderStatus;
  payment_reference: string;
  payment_kind: "none" | "bank_transfer" | "gateway";
  payment_method: string;
  payment_provider: string;
  settlement_channel: string;
  subtotal: number;
  unique_amount_code: number | null;
  amount: number;
  currency: string;
  buyer_name: string;
  buyer_email: string;
  buyer_phone: string;
  bank_name: string | null;
  bank_code: string | null;
  account_number: string | null;
  account_holder: string | null;
  store_name: string;
  success_url: string;
  return_url: string;
  error_url: string;
  external_id: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface OrderItemRow {
  order_id: string;
  position: number;
  type: "product" | "bundle";
  item_id: string;
  title: string;
  quantity: number;
  unit_price: number;
  line_total: number;
}

export interface SessionRow {
  id: string;
  order_id: string;
  provider: string;
  token: string;
  redirect_url: string;
  expires_at: Date;
  created_at: Date;
}

export type NewOrder = Omit<OrderRow, "id" | "currency" | "status">;

// postgres.js types a transaction's tag function apart from the pool's; both run the
// same queries, so helpers accept either through this one cast.
const q = (db: Db) => db as Sql;

/**
 * The order and its items in one statement. With `unlessAmountTaken`, a bank-transfer
 * order whose amount another pending one holds is not inserted (undefined), so the
 * caller can try another code without a savepoint.
 */
export async function insertOrder(
  db: Db,
  order: NewOrder & { id: string },
  items: Omit<OrderItemRow, "order_id">[],
  unlessAmountTaken = false,
): Promise<OrderRow | undefined> {
  const sql = q(db);
  const [row] = await sql<OrderRow[]>`
    with o as (
      insert into orders ${sql({ ...order, status: "pending" })}
      ${unlessAmountTaken ? sql`on conflict (store_id, amount) where status = 'pending' and payment_kind = 'bank_transfer' do nothing` : sql``}
      returning *
    ), i as (
      insert into order_items (order_id, position, type, item_id, title, quantity, unit_price, line_total)
      select o.id, x.position, x.type, x.item_id, x.title, x.quantity, x.unit_price, x.line_total
      from o, jsonb_to_recordset(${sql.json(items as unknown as postgres.JSONValue)}) as x(
        position int, type text, item_id uuid, title text, quantity int, unit_price bigint, line_total bigint)
    )
    select * from o`;
  return row;
}

/** A status change's history row and its outbox events, in one statement. */
export async function insertHistoryAndEvents(
  db: Db,
  entry: { order_id: string; from_status: OrderStatus | null; to_status: OrderStatus; cause: string },
  events: { id: string; store_id: string; order_id: string; event_type: string; payload: unknown }[],
) {
  const sql = q(db);
  await sql`
    with h as (insert into order_status_history ${sql(entry)})
    insert into outbox ${sql(events.map((event) => ({ ...event, payload: event.payload as postgres.JSONValue })))}`;
}

export async function findOrder(db: Db, id: string, options: { storeId?: string; forUpdate?: boolean } = {}) {
  const sql = q(db);
  const [row] = await sql<OrderRow[]>`
    select * from orders
    where id = ${id} ${options.storeId ? sql`and store_id = ${options.storeId}` : sql``}
    ${options.forUpdate ? sql`for update` : sql``}`;
  return row;
}

export async function findOrderByReference(db: Db, reference: string, forUpdate = false) {
  const sql = q(db);
  const [row] = await sql<OrderRow[]>`
    select * from orders where payment_reference = ${reference} ${forUpdate ? sql`for update` : sql``}`;
  return row;
}

export async function findSessionByToken(db: Db, token: string) {
  const [row] = await q(db)<SessionRow[]>`select * from payment_sessions where token = ${token}`;
  return row;
}

export async function itemsOf(db: Db, orderIds: string[]): Promise<Map<string, OrderItemRow[]>> {
  const byOrder = new Map<string, OrderItemRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await q(db)<OrderItemRow[]>`
    select * from order_items where order_id = any(${orderIds}::uuid[]) order by order_id, position`;
  for (const row of rows) byOrder.get(row.order_id)!.push(row);
  return byOrder;
}

/** The newest session of each order that has not expired. */
export async function liveSessionsOf(db: Db, orderIds: string[]): Promise<Map<string, SessionRow>> {
  const byOrder = new Map<string, SessionRow>();
  if (orderIds.length === 0) return byOrder;
  const rows = await q(db)<SessionRow[]>`
    select distinct on (order_id) * from payment_sessions
    where order_id = any(${orderIds}::uuid[]) and expires_at > clock_timestamp()
    order by order_id, created_at desc`;
  for (const row of rows) byOrder.set(row.order_id, row);
  return byOrder;
}

export async function insertSession(db: Db, session: Omit<SessionRow, "id" | "created_at">): Promise<SessionRow> {
  const sql = q(db);
  const [row] = await sql<SessionRow[]>`insert into payment_sessions ${sql(session)} returning *`;
  return row!;
}

export async function listOrders(db: Db, storeId: string, limit: number, offset: number, status?: OrderStatus) {
  const sql = q(db);
  const rows = await sql<OrderRow[]>`
    select * from orders
    where store_id = ${storeId} ${status ? sql`and status = ${status}` : sql``}
    order by created_at desc, id desc
    limit ${limit + 1} offset ${offset}`;
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** Pending bank-transfer amounts of a store within [low, high]. */
export async function takenTransferAmounts(db: Db, storeId: string, low: number, high: number): Promise<number[]> {
  const rows = await q(db)<{ amount: number }[]>`
    select amount from orders
    where store_id = ${storeId} and status = 'pending' and payment_kind = 'bank_transfer'
      and amount between ${low} and ${high}`;
  return rows.map((row) => row.amount);
}

export async function updateStatus(db: Db, id: string, status: OrderStatus): Promise<OrderRow> {
  const [row] = await q(db)<OrderRow[]>`
    update orders set status = ${status}, updated_at = clock_timestamp() where id = ${id} returning *`;
  return row!;
}

/** Ids of pending orders past their expiry, locked for this transaction; others skip them. */
export async function lockDueOrders(db: Db, limit: number, storeId?: string): Promise<OrderRow[]> {
  const sql = q(db);
  return sql<OrderRow[]>`
    select * from orders
    where status = 'pending' and expires_at <= clock_timestamp()
      ${storeId ? sql`and store_id = ${storeId}` : sql``}
    order by expires_at
    limit ${limit}
    for update skip locked`;
}

// Idempotency records (CONTRACT §4: 24 h).

export type IdempotencyClaim =
  | { kind: "claimed" }
  | { kind: "mismatch" }
  | { kind: "in_flight"; orderId: string | null; stale: boolean }
  | { kind: "done"; response: Uint8Array };

/**
 * Claims `key` for this request, or says what already holds it. A record older than
 * 24 h is taken over as if it were not there, and so is one whose request died (no
 * order, no response) more than 30 s ago.
 */
export async function claimIdempotencyKey(db: Db, storeId: string, key: string, requestHash: string): Promise<IdempotencyClaim> {
  const sql = q(db);
  const [claimed] = await sql`
    insert into idempotency_keys as k (store_id, key, request_hash)
    values (${storeId}, ${key}, ${requestHash})
    on conflict (store_id, key) do update
      set request_hash = excluded.request_hash, order_id = null, response = null, created_at = clock_timestamp()
      where k.created_at < clock_timestamp() - interval '24 hours'
         or (k.response is null and k.order_id is null and k.created_at < clock_timestamp() - interval '30 seconds')
    returning 1`;
  if (claimed) return { kind: "claimed" };
  const [existing] = await sql<{ request_hash: string; response: Buffer | null; order_id: string | null; stale: boolean }[]>`
    select request_hash, response, order_id, created_at < clock_timestamp() - interval '30 seconds' as stale
    from idempotency_keys where store_id = ${storeId} and key = ${key}`;
  if (!existing) return claimIdempotencyKey(db, storeId, key, requestHash);
  if (existing.request_hash !== requestHash) return { kind: "mismatch" };
  if (!existing.response) return { kind: "in_flight", orderId: existing.order_id, stale: existing.stale };
  return { kind: "done", response: new Uint8Array(existing.response) };
}

/** Ties the key to its order, in the transaction that creates the order. */
export async function attachIdempotencyOrder(db: Db, storeId: string, key: string, orderId: string) {
  // Exactly one order per key: if another request took the key over meanwhile (this
  // one stalled past the takeover time) and attached its order, this one must not
  // commit a second.
  const rows = await q(db)`
    update idempotency_keys set order_id = ${orderId}
    where store_id = ${storeId} and key = ${key} and order_id is null
    returning 1`;
  if (rows.length !== 1) throw new IdempotencyKeyTaken();
}

export class IdempotencyKeyTaken extends Error {
  constructor() {
    super("another request with this Idempotency-Key made the order");
  }
}

export async function completeIdempotencyKey(db: Db, storeId: string, key: string, orderId: string, response: Uint8Array) {
  await q(db)`
    update idempotency_keys set order_id = ${orderId}, response = ${Buffer.from(response)}
    where store_id = ${storeId} and key = ${key}`;
}

export async function releaseIdempotencyKey(db: Db, storeId: string, key: string) {
  // Only a key whose request made no order: one that did must stay, or a retry would
  // make a second order.
  await q(db)`delete from idempotency_keys where store_id = ${storeId} and key = ${key} and response is null and order_id is null`;
}

export async function purgeIdempotencyKeys(db: Db) {
  await q(db)`delete from idempotency_keys where created_at < clock_timestamp() - interval '24 hours'`;
}
