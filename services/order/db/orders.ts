// The orders table with its items and status history: an order is written, read,
// moved between statuses and claimed for the gateway's checks here. Every helper takes
// `db: Db`, a pool or a transaction (postgres.js `ISql`), so a caller decides what runs
// in one transaction (`transaction` in platform/db.ts). Each other table of the order
// service has its file beside this one; no module outside db/ runs SQL.
import type postgres from "postgres";
import type { Metadata } from "../../../common/order-metadata.js";
import type { Db } from "../../../platform/db.js";
import { DriverConfusion } from "../../../platform/rpc-errors.js";
import type { OrderStatus } from "../status-machine.js";
import { inTrace, type NewOutboxRow } from "./outbox.js";
import type { RefundRow } from "./refunds.js";

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
  /** What the succeeded refunds add up to. */
  refunded_amount: number;
  /** When a pending gateway order is next asked about at the gateway; null: never again. */
  next_status_check_at: Date | null;
  /** How many times it has been asked about. */
  status_checks: number;
  /** When an expired or cancelled gateway order is next expired at the gateway too; null: nothing to do. */
  gateway_expire_at: Date | null;
  /** When it was paid (set with the change to paid, kept when refunded); null if never. */
  paid_at: Date | null;
  /** The client's own keys and values (docs/orders.md#metadata); `{}` when none. */
  metadata: Metadata;
  /** False for a test order (docs/keys.md#test-mode): it is seen only in test mode. */
  livemode: boolean;
  /** The catalog holds units for it (docs/orders.md#stock): its changes write stock changes (015_stock_changes.sql). */
  holds_stock: boolean;
  /** The payment link it was made through (docs/payments.md#payment-links); null or absent: none. */
  payment_link_id?: string | null;
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

export type NewOrder = Omit<OrderRow, "id" | "currency" | "status" | "refunded_amount" | "status_checks" | "gateway_expire_at" | "paid_at">;

export interface HistoryEntry {
  order_id: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  cause: string;
  /** What the cause refers to (the bank mutation id for cause bank_mutation). */
  detail?: string | null;
  /** A payment by a bank mutation: the credit's amount (018_history_amount_received.sql). */
  amount_received?: number | null;
}

/**
 * A new order in one statement, atomic on its own: for a bank transfer its amount
 * reserved until further notice, the order, its items, its first history row,
 * its events and, when the catalog holds units for it, the stock change confirming
 * that hold (docs/orders.md#stock). Undefined, with nothing written, when the amount was to be reserved
 * and another order holds it. Callers need a transaction only to add more to it.
 */
export async function insertNewOrder(
  db: Db,
  row: OrderRow,
  items: Omit<OrderItemRow, "order_id">[],
  events: NewOutboxRow[],
  options: { reserveAmount: boolean; cause: string },
): Promise<OrderRow | undefined> {
  // The row's own keys (never input), quoted: postgres.js's column-list helper reads the
  // words around it and takes a list after "insert" for a VALUES list.
  const columns = db.unsafe(Object.keys(row).map((column) => `"${column}"`).join(", "));
  const result = await db<OrderRow[]>`
    with r as (
      ${
        options.reserveAmount
          ? // The amount is free when no reservation holds it or the one holding it has run out.
            // A concurrent reservation of it waits on the key and then finds it taken.
            // Each mode has its own codes (013_test_mode.sql).
            db`insert into transfer_amount_reservations as r (store_id, livemode, amount, order_id, reserved_until)
              values (${row.store_id}, ${row.livemode}, ${row.amount}, ${row.id}, 'infinity')
              on conflict (store_id, livemode, amount) do update set order_id = excluded.order_id, reserved_until = excluded.reserved_until
                where r.reserved_until < clock_timestamp()
              returning 1`
          : db`select 1`
      }
    ), o as (
      insert into orders (${columns})
      select ${columns} from jsonb_populate_record(null::orders, ${db.json(row as unknown as postgres.JSONValue)})
      where exists (select 1 from r)
      returning *
    ), i as (
      insert into order_items (order_id, position, type, item_id, title, quantity, unit_price, line_total)
      select o.id, x.position, x.type, x.item_id, x.title, x.quantity, x.unit_price, x.line_total
      from o, jsonb_to_recordset(${db.json(items)}) as x(
        position int, type text, item_id uuid, title text, quantity int, unit_price bigint, line_total bigint)
    ), h as (
      insert into order_status_history (order_id, from_status, to_status, cause)
      select o.id, null, o.status, ${options.cause} from o
    ), e as (
      insert into outbox (id, store_id, order_id, event_type, payload, traceparent)
      select x.id, x.store_id, x.order_id, x.event_type, x.payload, x.traceparent
      -- json, not jsonb, all the way: receivers get the payload's keys in the order written.
      from o, json_to_recordset(${JSON.stringify(inTrace(events))}::text::json) as x(
        id uuid, store_id uuid, order_id uuid, event_type text, payload json, traceparent text)
    ), s as (
      insert into stock_changes (store_id, order_id, action)
      select o.store_id, o.id, 'confirm' from o where o.holds_stock
    )
    select * from o`;
  // Written without a reservation, the order always comes back; with one, it comes back
  // unless the code was taken. Anything else (another row, a hole in the array) is not
  // this statement's answer, and reading it as "the code was taken" could write twice.
  const [inserted] = result;
  const foreign = result.length !== result.count || (inserted ? inserted.id !== row.id || inserted.amount === undefined : !options.reserveAmount);
  if (foreign) throw new DriverConfusion("the order's insert");
  return inserted;
}

/** Status changes' history rows and their outbox events, in one statement however many. */
export async function insertHistoryAndEvents(db: Db, entries: HistoryEntry[], events: NewOutboxRow[]) {
  if (entries.length === 0) return;
  // One set of columns for every row of a multi-row insert.
  const history = entries.map((entry) => ({ ...entry, detail: entry.detail ?? null, amount_received: entry.amount_received ?? null }));
  if (events.length === 0) {
    await db`insert into order_status_history ${db(history)}`;
    return;
  }
  await db`
    with h as (insert into order_status_history ${db(history)})
    insert into outbox ${db(inTrace(events).map((event) => ({ ...event, payload: event.payload as postgres.JSONValue })))}`;
}

/**
 * Which orders a read may find: the store's (when given) of one mode (when given). An
 * order of another store or the other mode is simply not there (docs/keys.md#test-mode).
 */
export interface OrderScope {
  storeId?: string;
  livemode?: boolean;
}

const scoped = (db: Db, scope: OrderScope, alias?: string) => {
  const column = (name: string) => db(alias ? `${alias}.${name}` : name);
  return db`
    ${scope.storeId ? db`and ${column("store_id")} = ${scope.storeId}` : db``}
    ${scope.livemode === undefined ? db`` : db`and ${column("livemode")} = ${scope.livemode}`}`;
};

export async function findOrder(db: Db, id: string, options: OrderScope & { forUpdate?: boolean } = {}) {
  const [row] = await db<OrderRow[]>`
    select * from orders
    where id = ${id} ${scoped(db, options)}
    ${options.forUpdate ? db`for update` : db``}`;
  return row;
}

/**
 * The order, its items and its refunds in one round trip (the order read's hot path):
 * they come as JSON arrays, whose numbers are exact since every amount is far below 2^53.
 */
export async function findOrderWithItems(db: Db, id: string, options: OrderScope = {}) {
  const [found] = await db<(OrderRow & { items: OrderItemRow[]; refunds: (Omit<RefundRow, "created_at"> & { created_at: string })[] })[]>`
    select o.*,
      coalesce((select json_agg(i order by i.position) from order_items i where i.order_id = o.id), '[]') as items,
      coalesce((select json_agg(r order by r.created_at, r.id) from (
        select id, store_id, order_id, amount, reason, reference, status, failure_message, method, restock, created_at
        from refunds where order_id = o.id) r), '[]') as refunds
    from orders o
    where o.id = ${id} ${scoped(db, options, "o")}`;
  if (!found) return undefined;
  const { items, refunds, ...row } = found;
  return { row, items, refunds: refunds.map((refund) => ({ ...refund, created_at: new Date(refund.created_at) })) };
}

export async function findOrderByReference(db: Db, reference: string, forUpdate = false, scope: OrderScope = {}) {
  const [row] = await db<OrderRow[]>`
    select * from orders where payment_reference = ${reference} ${scoped(db, scope)}
    ${forUpdate ? db`for update` : db``}`;
  return row;
}

export async function itemsOf(db: Db, orderIds: string[]): Promise<Map<string, OrderItemRow[]>> {
  const byOrder = new Map<string, OrderItemRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await db<OrderItemRow[]>`
    select * from order_items where order_id = any(${orderIds}::uuid[]) order by order_id, position`;
  for (const row of rows) byOrder.get(row.order_id)!.push(row);
  return byOrder;
}

/**
 * A pending order past expires_at reads as expired before the sweeper has written it
 * (docs/orders.md#expiry), so no read waits for that work: `due` picks those, or (false) the ones
 * still awaiting payment. statement_timestamp(), unlike clock_timestamp(), is stable, so
 * it can bound an index scan (003_order_search.sql's pending index).
 */
export const pendingWhere = (db: Db, due: boolean) => db`status = 'pending' and expires_at ${due ? db`<=` : db`>`} statement_timestamp()`;

export interface HistoryRow {
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  cause: string;
  detail: string | null;
  amount_received: number | null;
  created_at: Date;
}

/** The order's status changes, oldest first (its changes are serialised by the row lock, so id order is change order). */
export async function historyOf(db: Db, orderId: string): Promise<HistoryRow[]> {
  return db<HistoryRow[]>`
    select from_status, to_status, cause, detail, amount_received, created_at from order_status_history
    where order_id = ${orderId} order by id`;
}

/**
 * The store's bank-transfer orders with `amount` that a transfer at `occurredAt` could
 * concern: those created before it that were pending, expired or cancelled within
 * `graceMs` of it, or paid or refunded since `graceMs` before it (payable ones first,
 * then newest first), and the first one created at or after it. Not locked.
 */
export async function transferOrdersFor(db: Db, storeId: string, livemode: boolean, amount: number, occurredAt: Date, graceMs: number): Promise<OrderRow[]> {
  const since = new Date(occurredAt.getTime() - graceMs);
  // A test transfer concerns test orders only, a live one live orders (docs/reconciliation.md#test-mode).
  return db<OrderRow[]>`
    (select * from orders
      where store_id = ${storeId} and livemode = ${livemode} and payment_kind = 'bank_transfer' and amount = ${amount} and created_at < ${occurredAt}
        and (status = 'pending'
          or (status = 'expired' and expires_at >= ${since})
          or (status in ('cancelled', 'paid', 'refunded') and updated_at >= ${since}))
      order by status in ('pending', 'expired') desc, created_at desc
      limit 10)
    union all
    (select * from orders
      where store_id = ${storeId} and livemode = ${livemode} and payment_kind = 'bank_transfer' and amount = ${amount} and created_at >= ${occurredAt}
      order by created_at
      limit 1)`;
}

/**
 * Moves every order of `changes` to `status` in one statement; each that is to be
 * expired at the gateway too gets its gateway_expire_at. The rows as written, by id.
 */
export async function updateStatuses(db: Db, changes: { id: string; expireAtGateway: boolean }[], status: OrderStatus): Promise<Map<string, OrderRow>> {
  if (changes.length === 0) return new Map();
  const update = db`
    update orders o set status = ${status}, updated_at = clock_timestamp(), next_status_check_at = null,
      gateway_expire_at = case when o.id = any(${changes.filter((change) => change.expireAtGateway).map((change) => change.id)}::uuid[])
        then clock_timestamp() else o.gateway_expire_at end
      ${status === "paid" ? db`, paid_at = clock_timestamp()` : db``}
    where o.id = any(${changes.map((change) => change.id)}::uuid[])
    returning o.*`;
  // Paid: the store's day of sales grows in the same statement (ordered, so two
  // payments in flight lock the day rows in one order).
  const rows =
    status === "paid"
      ? await db<OrderRow[]>`
          with changed as (${update}), sold as (
            insert into sales_days (store_id, day, slot, paid_count, paid_amount)
            select store_id, (paid_at at time zone 'Asia/Jakarta')::date, pg_backend_pid() % 16, count(*), sum(amount)
            -- The overview's sales are live sales: a test payment is no money (docs/keys.md#test-mode).
            from changed where livemode group by 1, 2 order by 1, 2
            on conflict (store_id, day, slot) do update
              set paid_count = sales_days.paid_count + excluded.paid_count, paid_amount = sales_days.paid_amount + excluded.paid_amount
          )
          select * from changed`
      : await db<OrderRow[]>`${update}`;
  return new Map(rows.map((row) => [row.id, row]));
}

/** Replaces the order's metadata (merged by the caller, the row locked); a change like any other, so updated_at moves. */
export async function writeMetadata(db: Db, id: string, metadata: Metadata): Promise<OrderRow> {
  const [row] = await db<OrderRow[]>`
    update orders set metadata = ${db.json(metadata)}, updated_at = clock_timestamp() where id = ${id} returning *`;
  return row!;
}

/**
 * Marks the order changed when what changed is in another table that the order shows
 * (a refund added or settled): its updated_at moves, and with it the order's place in
 * a sync (docs/orders.md#syncing).
 */
export async function touchOrder(db: Db, id: string): Promise<OrderRow> {
  const [row] = await db<OrderRow[]>`update orders set updated_at = clock_timestamp() where id = ${id} returning *`;
  return row!;
}

/** Adds a succeeded refund to the order's refunded amount. */
export async function addRefundedAmount(db: Db, id: string, amount: number): Promise<OrderRow> {
  const [row] = await db<OrderRow[]>`
    update orders set refunded_amount = refunded_amount + ${amount}, updated_at = clock_timestamp() where id = ${id} returning *`;
  return row!;
}

// Asking the gateway (gateway-checks.ts decides when; these carry it out). A claim moves
// the order's time on by a lease before the gateway is called, so other instances skip
// it meanwhile and a check that dies with its process is made again once it runs out.

/** Up to `limit` pending orders due a status check, each now leased for `leaseMs`. */
export async function claimDueStatusChecks(db: Db, limit: number, leaseMs: number): Promise<OrderRow[]> {
  return db<OrderRow[]>`
    update orders set next_status_check_at = clock_timestamp() + make_interval(secs => ${leaseMs / 1000})
    where id in (
      select id from orders
      where next_status_check_at <= statement_timestamp() and status = 'pending'
      order by next_status_check_at
      limit ${limit}
      for update skip locked)
    returning *`;
}

/** After a check: counted, and the next one at `at` (null: none) while the order is still pending. */
export async function scheduleStatusCheck(db: Db, id: string, at: Date | null, counted: boolean) {
  await db`
    update orders set next_status_check_at = ${at} ${counted ? db`, status_checks = status_checks + 1` : db``}
    where id = ${id} and status = 'pending'`;
}

/** Up to `limit` orders due to be expired at the gateway, each now leased for `leaseMs`. */
export async function claimDueGatewayExpiries(db: Db, limit: number, leaseMs: number): Promise<OrderRow[]> {
  return db<OrderRow[]>`
    update orders set gateway_expire_at = clock_timestamp() + make_interval(secs => ${leaseMs / 1000})
    where id in (
      select id from orders
      where gateway_expire_at <= statement_timestamp()
      order by gateway_expire_at
      limit ${limit}
      for update skip locked)
    returning *`;
}

/** The next try at expiring the order at the gateway (null: done). */
export async function setGatewayExpireAt(db: Db, id: string, at: Date | null) {
  await db`update orders set gateway_expire_at = ${at} where id = ${id}`;
}

/** Pending orders past their expiry, locked for this transaction; others skip them. */
export async function lockDueOrders(db: Db, limit: number): Promise<OrderRow[]> {
  // statement_timestamp(), not the volatile clock_timestamp(): only a stable bound is an
  // index condition, and without one every read and sweep walked all pending orders.
  return db<OrderRow[]>`
    select * from orders
    where status = 'pending' and expires_at <= statement_timestamp()
    order by expires_at
    limit ${limit}
    for update skip locked`;
}
