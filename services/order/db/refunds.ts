// Refunds (docs/refunds.md). What a refund may be and what it does is decided in
// refunds.ts; these statements carry it out.
import type { Db } from "../../../platform/db.js";

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
  /** Its order's mode: an Idempotency-Key is a key of its mode (013_test_mode.sql). */
  livemode: boolean;
  /** Asked to put the order's sold units back once it succeeds (docs/refunds.md#restock). */
  restock: boolean;
}

export type NewRefund = Pick<
  RefundRow,
  "id" | "store_id" | "order_id" | "amount" | "reason" | "reference" | "status" | "method" | "gateway_key" | "idempotency_key" | "request_hash" | "next_attempt_at" | "livemode" | "restock"
>;

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

export async function findRefundByIdempotencyKey(db: Db, storeId: string, key: string, livemode = true): Promise<RefundRow | undefined> {
  // A key is a key of its mode (013_test_mode.sql).
  const [row] = await db<RefundRow[]>`select * from refunds where store_id = ${storeId} and livemode = ${livemode} and idempotency_key = ${key}`;
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
