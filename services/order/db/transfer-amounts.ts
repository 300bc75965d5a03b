// Transfer amount reservations (004_bank_reconciliation.sql; rows outlive their hold
// since 006_transfer_code_use.sql). Which amount an order holds and until when is
// decided in bank-matching.ts and pricing.ts; these statements carry it out.
import type { Db } from "../../../platform/db.js";

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
export async function transferAmountUse(db: Db, storeId: string, low: number, high: number, livemode = true): Promise<{ now: Date; uses: TransferAmountUse[] }> {
  // Each mode has its own codes (013_test_mode.sql).
  const rows = await db<{ now: Date; amount: number | null; reserved_until: Date | null }[]>`
    with clock as (select clock_timestamp() as now)
    select clock.now, r.amount, least(r.reserved_until, '9999-12-31T00:00:00Z') as reserved_until
    from clock left join transfer_amount_reservations r
      on r.store_id = ${storeId} and r.livemode = ${livemode} and r.amount between ${low} and ${high}`;
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
