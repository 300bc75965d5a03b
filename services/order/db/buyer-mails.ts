// Buyer mail rows (016_buyer_mails.sql): written by the outbox trigger, claimed and
// settled by buyer-mail.ts.
import type { Db } from "../../../platform/db.js";
import type { BuyerMailKind } from "../buyer-mail-templates.js";

export interface BuyerMailRow {
  id: string;
  order_id: string;
  store_id: string;
  kind: BuyerMailKind;
  refund_id: string | null;
  due_at: Date;
  attempts: number;
}

/**
 * The next waiting mail that is due, locked for this transaction (other workers skip
 * it). A reminder is due `reminderBeforeMs` before its due_at (the order's expires_at);
 * after a failed attempt, not before its next_attempt_at.
 */
export async function lockDueBuyerMail(tx: Db, reminderBeforeMs: number): Promise<BuyerMailRow | undefined> {
  const before = `${reminderBeforeMs} milliseconds`;
  // Ranges on the two indexes of 016_buyer_mails.sql, so mail waiting out a retry
  // (many rows, during a long mail-server outage) is never scanned until it is due.
  const [row] = await tx<BuyerMailRow[]>`
    select id, order_id, store_id, kind, refund_id, due_at, attempts from buyer_mails
    where state = 'waiting'
      and ((next_attempt_at is null and kind <> 'reminder' and due_at <= clock_timestamp())
        or (next_attempt_at is null and kind = 'reminder' and due_at <= clock_timestamp() + ${before}::interval)
        or next_attempt_at <= clock_timestamp())
    order by due_at, id
    limit 1
    for update skip locked`;
  return row;
}

export async function markBuyerMailSent(db: Db, id: string) {
  await db`
    update buyer_mails set state = 'sent', sent_at = clock_timestamp(), attempts = attempts + 1, next_attempt_at = null
    where id = ${id}`;
}

/** Not sent and never will be: `reason` says why (mail off, order no longer pending…). */
export async function markBuyerMailSkipped(db: Db, id: string, reason: string) {
  await db`update buyer_mails set state = 'skipped', last_error = ${reason}, next_attempt_at = null where id = ${id}`;
}

/** A failed attempt: tried again at `retryAt`, or (null) given up. */
export async function markBuyerMailFailed(db: Db, id: string, error: string, retryAt: Date | null) {
  await db`
    update buyer_mails set attempts = attempts + 1, last_error = ${error},
      state = ${retryAt ? "waiting" : "failed"}, next_attempt_at = ${retryAt}
    where id = ${id}`;
}
