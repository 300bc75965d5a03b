// The order service's SQL, and only here. Every helper takes `db: Db`, a pool or a
// transaction (postgres.js `ISql`), so a caller decides what runs in one transaction;
// `transaction` opens one on the pool. No other module of services/order runs SQL.
import type postgres from "postgres";
import { jakartaDate } from "../../../common/jakarta-time.js";
import { ping, transaction, type Db, type Sql } from "../../../platform/db.js";
import { currentTraceparent } from "../../../platform/tracing.js";
import type { OrderStatus } from "../status-machine.js";

/** The pool: the one thing that can open a transaction. */
export type Pool = Sql;

export { ping, transaction, type Db };

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

export type RefundStatus = "pending" | "succeeded" | "failed";
export type RefundMethod = "gateway" | "manual";

export interface RefundRow {
  id: string;
  store_id: string;
  order_id: string;
  amount: number;
  reason: string;
  reference: string | null;
  status: RefundStatus;
  failure_message: string | null;
  method: RefundMethod;
  gateway_key: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  response: Uint8Array | null;
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewRefund = Pick<
  RefundRow,
  "id" | "store_id" | "order_id" | "amount" | "reason" | "reference" | "status" | "method" | "gateway_key" | "idempotency_key" | "request_hash" | "next_attempt_at"
>;

export type NewOrder = Omit<OrderRow, "id" | "currency" | "status" | "refunded_amount" | "status_checks" | "gateway_expire_at" | "paid_at">;

export interface HistoryEntry {
  order_id: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  cause: string;
  /** What the cause refers to (the bank mutation id for cause bank_mutation). */
  detail?: string | null;
}

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
function inTrace<T extends NewOutboxRow>(events: T[]): (T & { traceparent: string | null })[] {
  const traceparent = currentTraceparent();
  return events.map((event) => ({ ...event, traceparent }));
}

// Orders, items, history.

/**
 * A new order in one statement, atomic on its own: for a bank transfer its amount
 * reserved until further notice, the order, its items, its first history row
 * and its events. Undefined, with nothing written, when the amount was to be reserved
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
  const [inserted] = await db<OrderRow[]>`
    with r as (
      ${
        options.reserveAmount
          ? // The amount is free when no reservation holds it or the one holding it has run out.
            // A concurrent reservation of it waits on the key and then finds it taken.
            db`insert into transfer_amount_reservations as r (store_id, amount, order_id, reserved_until)
              values (${row.store_id}, ${row.amount}, ${row.id}, 'infinity')
              on conflict (store_id, amount) do update set order_id = excluded.order_id, reserved_until = excluded.reserved_until
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
    )
    select * from o`;
  return inserted;
}

/** Outbox events with no status change (a refund's). */
export async function insertEvents(db: Db, events: NewOutboxRow[]) {
  if (events.length === 0) return;
  await db`insert into outbox ${db(inTrace(events).map((event) => ({ ...event, payload: event.payload as postgres.JSONValue })))}`;
}

/** Status changes' history rows and their outbox events, in one statement however many. */
export async function insertHistoryAndEvents(db: Db, entries: HistoryEntry[], events: NewOutboxRow[]) {
  if (entries.length === 0) return;
  // One set of columns for every row of a multi-row insert.
  const history = entries.map((entry) => ({ ...entry, detail: entry.detail ?? null }));
  if (events.length === 0) {
    await db`insert into order_status_history ${db(history)}`;
    return;
  }
  await db`
    with h as (insert into order_status_history ${db(history)})
    insert into outbox ${db(inTrace(events).map((event) => ({ ...event, payload: event.payload as postgres.JSONValue })))}`;
}

export async function findOrder(db: Db, id: string, options: { storeId?: string; forUpdate?: boolean } = {}) {
  const [row] = await db<OrderRow[]>`
    select * from orders
    where id = ${id} ${options.storeId ? db`and store_id = ${options.storeId}` : db``}
    ${options.forUpdate ? db`for update` : db``}`;
  return row;
}

/**
 * The order, its items and its refunds in one round trip (the order read's hot path):
 * they come as JSON arrays, whose numbers are exact since every amount is far below 2^53.
 */
export async function findOrderWithItems(db: Db, id: string, options: { storeId?: string } = {}) {
  const [found] = await db<(OrderRow & { items: OrderItemRow[]; refunds: (Omit<RefundRow, "created_at"> & { created_at: string })[] })[]>`
    select o.*,
      coalesce((select json_agg(i order by i.position) from order_items i where i.order_id = o.id), '[]') as items,
      coalesce((select json_agg(r order by r.created_at, r.id) from (
        select id, store_id, order_id, amount, reason, reference, status, failure_message, method, created_at
        from refunds where order_id = o.id) r), '[]') as refunds
    from orders o
    where o.id = ${id} ${options.storeId ? db`and o.store_id = ${options.storeId}` : db``}`;
  if (!found) return undefined;
  const { items, refunds, ...row } = found;
  return { row, items, refunds: refunds.map((refund) => ({ ...refund, created_at: new Date(refund.created_at) })) };
}

export async function findOrderByReference(db: Db, reference: string, forUpdate = false, storeId?: string) {
  const [row] = await db<OrderRow[]>`
    select * from orders where payment_reference = ${reference} ${storeId ? db`and store_id = ${storeId}` : db``}
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

export interface OrderFilter {
  status?: OrderStatus;
  /**
   * Orders whose external id is `text`, whose buyer email is `text` in any letter case,
   * or (when given) whose payment reference is `reference`.
   */
  search?: { text: string; reference?: string };
}

/**
 * A pending order past expires_at reads as expired before the sweeper has written it
 * (CONTRACT §5), so no read waits for that work: `due` picks those, or (false) the ones
 * still awaiting payment. statement_timestamp(), unlike clock_timestamp(), is stable, so
 * it can bound an index scan (003_order_search.sql's pending index).
 */
const pendingWhere = (db: Db, due: boolean) => db`status = 'pending' and expires_at ${due ? db`<=` : db`>`} statement_timestamp()`;

/**
 * A page of the store's orders, newest first: by offset, or after `cursor` (keyset: the
 * page costs the same however deep the walk). Each row carries its `cursor_at` (created_at
 * to the microsecond) for the next page's cursor.
 */
export async function listOrders(db: Db, storeId: string, limit: number, offset: number, filter: OrderFilter = {}, cursor?: { at: string; id: string }) {
  const { status, search } = filter;
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
    where store_id = ${storeId} ${where} ${matches} ${after}
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
export async function orderPlace(db: Db, storeId: string, orderId: string): Promise<{ at: string; id: string } | undefined> {
  const [row] = await db<{ at: string; id: string }[]>`
    select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id from orders
    where id = ${orderId} and store_id = ${storeId}`;
  return row;
}

/**
 * How many of the store's orders have `status` (every order when absent). A pending
 * order past expires_at counts as expired whether or not it has been written so yet.
 */
export async function countOrders(db: Db, storeId: string, status?: OrderStatus): Promise<number> {
  // Each arm is one index-only range (pendingWhere).
  const dueSplit = (due: boolean) => db`select count(*) from orders where store_id = ${storeId} and ${pendingWhere(db, due)}`;
  const [row] = await db<{ count: number }[]>`select (${
    status === "pending"
      ? dueSplit(false)
      : status === "expired"
        ? db`(select count(*) from orders where store_id = ${storeId} and status = 'expired') + (${dueSplit(true)})`
        : db`select count(*) from orders where store_id = ${storeId} ${status ? db`and status = ${status}` : db``}`
  }) as count`;
  return row!.count;
}

export interface HistoryRow {
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  cause: string;
  detail: string | null;
  created_at: Date;
}

/** The order's status changes, oldest first (its changes are serialised by the row lock, so id order is change order). */
export async function historyOf(db: Db, orderId: string): Promise<HistoryRow[]> {
  return db<HistoryRow[]>`
    select from_status, to_status, cause, detail, created_at from order_status_history
    where order_id = ${orderId} order by id`;
}

// Transfer amount reservations (004_bank_reconciliation.sql; rows outlive their hold
// since 006_transfer_code_use.sql). Which amount an order holds and until when is
// decided in bank-matching.ts and pricing.ts; these statements carry it out.

/** One amount's reservation row: its last holder keeps it until `reserved_until`, and it is free after. */
export interface TransferAmountUse {
  amount: number;
  /** A pending order's (infinity) reads as 9999-12-31. */
  reserved_until: Date;
}

/**
 * Every reservation row of the store's amounts within [low, high], held or ended (an
 * amount with no row was never used), and the database's clock they are to be read
 * against: the one insertNewOrder's reservation judges by.
 */
export async function transferAmountUse(db: Db, storeId: string, low: number, high: number): Promise<{ now: Date; uses: TransferAmountUse[] }> {
  const rows = await db<{ now: Date; amount: number | null; reserved_until: Date | null }[]>`
    with clock as (select clock_timestamp() as now)
    select clock.now, r.amount, least(r.reserved_until, '9999-12-31T00:00:00Z') as reserved_until
    from clock left join transfer_amount_reservations r
      on r.store_id = ${storeId} and r.amount between ${low} and ${high}`;
  const uses = rows.flatMap((row) => (row.amount === null ? [] : [{ amount: row.amount, reserved_until: row.reserved_until! }]));
  return { now: rows[0]!.now, uses };
}

/**
 * The order's reservation now lasts until `until` (for a paid or refunded order, the
 * time it was: the row stays to say when the amount was last used). Keyed by order: a
 * newer holder of the amount is untouched.
 */
export async function holdTransferAmounts(db: Db, holds: { orderId: string; until: Date }[]) {
  if (holds.length === 0) return;
  await db`
    update transfer_amount_reservations r set reserved_until = h.until
    from unnest(${holds.map((hold) => hold.orderId)}::uuid[], ${holds.map((hold) => hold.until.toISOString())}::timestamptz[]) as h (order_id, until)
    where r.order_id = h.order_id`;
}

/**
 * The store's bank-transfer orders with `amount` that a transfer at `occurredAt` could
 * concern: those created before it that were pending, expired or cancelled within
 * `graceMs` of it, or paid or refunded since `graceMs` before it (payable ones first,
 * then newest first), and the first one created at or after it. Not locked.
 */
export async function transferOrdersFor(db: Db, storeId: string, amount: number, occurredAt: Date, graceMs: number): Promise<OrderRow[]> {
  const since = new Date(occurredAt.getTime() - graceMs);
  return db<OrderRow[]>`
    (select * from orders
      where store_id = ${storeId} and payment_kind = 'bank_transfer' and amount = ${amount} and created_at < ${occurredAt}
        and (status = 'pending'
          or (status = 'expired' and expires_at >= ${since})
          or (status in ('cancelled', 'paid', 'refunded') and updated_at >= ${since}))
      order by status in ('pending', 'expired') desc, created_at desc
      limit 10)
    union all
    (select * from orders
      where store_id = ${storeId} and payment_kind = 'bank_transfer' and amount = ${amount} and created_at >= ${occurredAt}
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
            from changed group by 1, 2 order by 1, 2
            on conflict (store_id, day, slot) do update
              set paid_count = sales_days.paid_count + excluded.paid_count, paid_amount = sales_days.paid_amount + excluded.paid_amount
          )
          select * from changed`
      : await db<OrderRow[]>`${update}`;
  return new Map(rows.map((row) => [row.id, row]));
}

export interface SalesSummaryRow {
  today_count: number;
  today_amount: number;
  month_count: number;
  month_amount: number;
  pending_count: number;
  pending_amount: number;
  /** Paid amount per Jakarta day ("2026-11-24") from `since`; days without sales absent. */
  days: { day: string; amount: number }[];
}

/**
 * The store's sales (CONTRACT §10): orders paid since the starts of today, of this month
 * and of the chart (Jakarta midnights), by Jakarta day from sales_days, and what waits
 * for payment (orders_store_status_recent; one past its expiry no longer waits).
 */
export async function salesSummary(db: Db, storeId: string, starts: { today: Date; month: Date; chart: Date }): Promise<SalesSummaryRow> {
  const day = (start: Date) => db`(${start}::timestamptz at time zone 'Asia/Jakarta')::date`;
  const from = new Date(Math.min(starts.month.getTime(), starts.chart.getTime()));
  const sold = await db<{ day: string; count: number; amount: number }[]>`
    select to_char(day, 'YYYY-MM-DD') as day, sum(paid_count)::int as count, sum(paid_amount)::bigint as amount
    from sales_days where store_id = ${storeId} and day >= ${day(from)}
    group by day order by day`;
  const [pending] = await db<{ pending_count: number; pending_amount: number }[]>`
    select count(*)::int as pending_count, coalesce(sum(amount), 0)::bigint as pending_amount
    from orders where store_id = ${storeId} and ${pendingWhere(db, false)}`;
  const since = (start: Date) => {
    const first = jakartaDate(start);
    return sold.filter((row) => row.day >= first);
  };
  const total = (rows: { count: number; amount: number }[]) => ({ count: rows.reduce((n, row) => n + row.count, 0), amount: rows.reduce((n, row) => n + row.amount, 0) });
  const today = total(since(starts.today));
  const month = total(since(starts.month));
  return {
    today_count: today.count,
    today_amount: today.amount,
    month_count: month.count,
    month_amount: month.amount,
    ...pending!,
    days: since(starts.chart).map((row) => ({ day: row.day, amount: row.amount })),
  };
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

// Refunds (CONTRACT §12). What a refund may be and what it does is decided in refunds.ts.

/** Each order's refunds, oldest first. */
export async function refundsOf(db: Db, orderIds: string[]): Promise<Map<string, RefundRow[]>> {
  const byOrder = new Map<string, RefundRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await db<RefundRow[]>`
    select * from refunds where order_id = any(${orderIds}::uuid[]) order by order_id, created_at, id`;
  for (const row of rows) byOrder.get(row.order_id)!.push(refundRow(row));
  return byOrder;
}

const refundRow = (row: RefundRow): RefundRow => ({ ...row, response: row.response ? new Uint8Array(row.response) : null });

/**
 * Writes a refund; undefined, with nothing written, when the store already has a refund
 * with its Idempotency-Key or the order one with its gateway key.
 */
export async function insertRefund(db: Db, refund: NewRefund): Promise<RefundRow | undefined> {
  const [row] = await db<RefundRow[]>`insert into refunds ${db(refund)} on conflict do nothing returning *`;
  return row && refundRow(row);
}

export async function findRefund(db: Db, id: string, forUpdate = false): Promise<RefundRow | undefined> {
  const [row] = await db<RefundRow[]>`select * from refunds where id = ${id} ${forUpdate ? db`for update` : db``}`;
  return row && refundRow(row);
}

export async function findRefundByIdempotencyKey(db: Db, storeId: string, key: string): Promise<RefundRow | undefined> {
  const [row] = await db<RefundRow[]>`select * from refunds where store_id = ${storeId} and idempotency_key = ${key}`;
  return row && refundRow(row);
}

/**
 * A refund's outcome, from `pending` (or the statuses given: a refund we recorded as
 * failed that the gateway reports made); undefined when it was in none of them, so an
 * outcome is written once. `gateway_key` keeps the gateway's own id of the refund, so a
 * later report of it is known; it is left out if another refund of the order holds it.
 */
export async function settleRefund(
  db: Db,
  id: string,
  outcome: { status: "succeeded" | "failed"; failure_message?: string; gateway_key?: string },
  from: RefundStatus[] = ["pending"],
): Promise<RefundRow | undefined> {
  const key = outcome.gateway_key ?? null;
  const [row] = await db<RefundRow[]>`
    update refunds r set status = ${outcome.status}, failure_message = ${outcome.failure_message ?? null},
      next_attempt_at = null, updated_at = clock_timestamp(),
      gateway_key = case
        when ${key}::text is null or exists (select 1 from refunds o where o.order_id = r.order_id and o.gateway_key = ${key}::text) then r.gateway_key
        else ${key}::text end
    where id = ${id} and status = any(${from}::text[]) returning *`;
  return row && refundRow(row);
}

/** A pending refund the gateway could not be reached for: counted, and tried again at `at`. */
export async function retryRefundAt(db: Db, id: string, at: Date) {
  await db`
    update refunds set attempts = attempts + 1, next_attempt_at = ${at}, updated_at = clock_timestamp()
    where id = ${id} and status = 'pending'`;
}

/** Keeps the first answer for Idempotency-Key replays. */
export async function keepRefundResponse(db: Db, id: string, response: Uint8Array) {
  await db`update refunds set response = ${Buffer.from(response)} where id = ${id} and response is null`;
}

/** Up to `limit` pending gateway refunds due another attempt, each now leased for `leaseMs`. */
export async function claimDueRefunds(db: Db, limit: number, leaseMs: number): Promise<RefundRow[]> {
  const rows = await db<RefundRow[]>`
    update refunds set next_attempt_at = clock_timestamp() + make_interval(secs => ${leaseMs / 1000})
    where id in (
      select id from refunds
      where status = 'pending' and next_attempt_at <= statement_timestamp()
      order by next_attempt_at
      limit ${limit}
      for update skip locked)
    returning *`;
  return rows.map(refundRow);
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

// Bank mutations (CONTRACT §11). What a mutation's result is, is decided in
// bank-matching.ts and reconciliation.ts.

export type MutationType = "credit" | "debit";
export type MutationStatus = "matched" | "unmatched" | "ignored" | "assigned" | "dismissed";

export interface NewBankMutation {
  store_id: string;
  mutation_id: string;
  amount: number;
  type: MutationType;
  occurred_at: Date;
  description: string;
  status: MutationStatus;
  /** When the call carrying it arrived. */
  received_at: Date;
  /** Its index in that call. */
  request_position: number;
}

export interface BankMutationRow extends NewBankMutation {
  reason: string;
  order_id: string | null;
  /** The payment reference of order_id, for people. */
  payment_reference: string | null;
  reviewed_at: Date | null;
}

/**
 * Records a mutation unless the store has one with its id: true when this call wrote
 * it. A concurrent call writing the same id waits for this one to finish first.
 */
export async function insertMutation(db: Db, mutation: NewBankMutation): Promise<boolean> {
  const rows = await db`insert into bank_mutations ${db(mutation)} on conflict (store_id, mutation_id) do nothing returning 1`;
  return rows.length === 1;
}

const mutationColumns = (db: Db) => db`m.*, o.payment_reference`;

export async function findMutation(db: Db, storeId: string, mutationId: string, forUpdate = false): Promise<BankMutationRow | undefined> {
  const [row] = await db<BankMutationRow[]>`
    select ${mutationColumns(db)} from bank_mutations m left join orders o on o.id = m.order_id
    where m.store_id = ${storeId} and m.mutation_id = ${mutationId}
    ${forUpdate ? db`for update of m` : db``}`;
  return row;
}

/** The mutation's result; with `reviewed`, stamped as a person's decision. */
export async function settleMutation(
  db: Db,
  storeId: string,
  mutationId: string,
  outcome: { status: MutationStatus; reason?: string; order_id?: string | null; reviewed?: boolean },
): Promise<BankMutationRow> {
  const [row] = await db<BankMutationRow[]>`
    with m as (
      update bank_mutations set status = ${outcome.status}, reason = ${outcome.reason ?? ""}, order_id = ${outcome.order_id ?? null}
        ${outcome.reviewed ? db`, reviewed_at = clock_timestamp()` : db``}
      where store_id = ${storeId} and mutation_id = ${mutationId}
      returning *
    )
    select ${mutationColumns(db)} from m left join orders o on o.id = m.order_id`;
  return row!;
}

/** The store's mutations, newest first (later in a call is newer); `review`: only unmatched ones. */
export async function listMutations(db: Db, storeId: string, options: { review: boolean; limit: number }): Promise<BankMutationRow[]> {
  return db<BankMutationRow[]>`
    select ${mutationColumns(db)} from bank_mutations m left join orders o on o.id = m.order_id
    where m.store_id = ${storeId} ${options.review ? db`and m.status = 'unmatched'` : db``}
    order by m.received_at desc, m.request_position desc
    limit ${options.limit}`;
}

export async function countUnreviewedMutations(db: Db, storeId: string): Promise<number> {
  const [row] = await db<{ count: number }[]>`
    select count(*) as count from bank_mutations where store_id = ${storeId} and status = 'unmatched'`;
  return row!.count;
}

// Payment sessions.

export async function findSessionByToken(db: Db, token: string) {
  const [row] = await db<SessionRow[]>`select * from payment_sessions where token = ${token}`;
  return row;
}

/** The newest session of each order that has not expired. */
export async function liveSessionsOf(db: Db, orderIds: string[]): Promise<Map<string, SessionRow>> {
  const byOrder = new Map<string, SessionRow>();
  if (orderIds.length === 0) return byOrder;
  const rows = await db<SessionRow[]>`
    select distinct on (order_id) * from payment_sessions
    where order_id = any(${orderIds}::uuid[]) and expires_at > clock_timestamp()
    order by order_id, created_at desc`;
  for (const row of rows) byOrder.set(row.order_id, row);
  return byOrder;
}

export async function insertSession(db: Db, session: Omit<SessionRow, "id" | "created_at">): Promise<SessionRow> {
  const [row] = await db<SessionRow[]>`insert into payment_sessions ${db(session)} returning *`;
  return row!;
}

// Idempotency records. What they mean and when they may be taken over is decided in
// idempotency.ts; these statements only carry it out.

export interface IdempotencyRecord {
  request_hash: string;
  response: Uint8Array | null;
  order_id: string | null;
  /** Older than the `staleSeconds` given when it was read. */
  stale: boolean;
}

export interface TakeoverRule {
  /** A record older than this is gone, whatever it holds. */
  keepSeconds: number;
  /** A record with no order and no response older than this belongs to a dead request. */
  staleSeconds: number;
}

/**
 * Inserts the record for `key`, or takes over one the rule says is gone; true when
 * this request now holds the key.
 */
export async function tryClaimIdempotencyKey(
  db: Db,
  storeId: string,
  key: string,
  requestHash: string,
  rule: TakeoverRule,
): Promise<boolean> {
  const claimed = await db`
    insert into idempotency_keys as k (store_id, key, request_hash)
    values (${storeId}, ${key}, ${requestHash})
    on conflict (store_id, key) do update
      set request_hash = excluded.request_hash, order_id = null, response = null, created_at = clock_timestamp()
      where k.created_at < clock_timestamp() - make_interval(secs => ${rule.keepSeconds})
         or (k.response is null and k.order_id is null and k.created_at < clock_timestamp() - make_interval(secs => ${rule.staleSeconds}))
    returning 1`;
  return claimed.length > 0;
}

export async function findIdempotencyRecord(
  db: Db,
  storeId: string,
  key: string,
  staleSeconds: number,
): Promise<IdempotencyRecord | undefined> {
  const [row] = await db<{ request_hash: string; response: Buffer | null; order_id: string | null; stale: boolean }[]>`
    select request_hash, response, order_id, created_at < clock_timestamp() - make_interval(secs => ${staleSeconds}) as stale
    from idempotency_keys where store_id = ${storeId} and key = ${key}`;
  return row && { ...row, response: row.response ? new Uint8Array(row.response) : null };
}

/**
 * Ties the key to its order if no order holds it yet; false when another request
 * took the key over meanwhile and attached its own.
 */
export async function attachIdempotencyOrder(db: Db, storeId: string, key: string, orderId: string): Promise<boolean> {
  const rows = await db`
    update idempotency_keys set order_id = ${orderId}
    where store_id = ${storeId} and key = ${key} and order_id is null
    returning 1`;
  return rows.length === 1;
}

export async function completeIdempotencyKey(db: Db, storeId: string, key: string, orderId: string, response: Uint8Array) {
  await db`
    update idempotency_keys set order_id = ${orderId}, response = ${Buffer.from(response)}
    where store_id = ${storeId} and key = ${key}`;
}

/** Deletes the key only while it holds neither an order nor a response. */
export async function releaseIdempotencyKey(db: Db, storeId: string, key: string) {
  await db`delete from idempotency_keys where store_id = ${storeId} and key = ${key} and response is null and order_id is null`;
}

export async function purgeIdempotencyKeys(db: Db, keepSeconds: number) {
  await db`delete from idempotency_keys where created_at < clock_timestamp() - make_interval(secs => ${keepSeconds})`;
}

// The outbox, read by outbox-relay.ts.

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

// The order service's part of the store's audit log (007_audit_log.sql): the same table
// in every service's schema, so one set of statements serves them all.
export { insertAudit, listAudit, type AuditRow, type NewAuditEntry } from "../../../platform/audit-log.js";
