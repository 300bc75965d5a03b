// Expiry (docs/orders.md#expiry): a pending order past `expires_at` turns `expired` within 60 s,
// and reads never show `pending` for it. The sweeper writes the change, a batch of
// orders in a few statements; lists and counts show a due order as expired meanwhile
// (db/order-lists.ts computes it on read), and a read of one order writes its own expiry first.
import type { Logger } from "../../platform/logger.js";
import type { StatusChanges } from "./status-changes.js";
import { type Db, type Sql, transaction } from "../../platform/db.js";
import { lockDueOrders, type OrderRow } from "./db/orders.js";

/**
 * Orders expired per transaction: few enough that a batch's statements stay small
 * (its events are one multi-row insert), many enough that 50,000 orders due at once
 * take a hundred transactions, not 50,000.
 */
export const EXPIRY_BATCH = 500;

/** Whether a pending order's payment window has closed. */
export function isDue(row: Pick<OrderRow, "status" | "expires_at">, now = Date.now()): boolean {
  return row.status === "pending" && row.expires_at.getTime() <= now;
}

export function createExpiry(deps: {
  sql: Sql;
  statusChanges: StatusChanges;
  /** Called after a transaction that wrote outbox rows commits (wakes the relay). */
  onEventsCommitted?: () => void;
}) {
  const { sql, statusChanges } = deps;

  /** The row as it must be seen now: a due pending order is expired first (caller's transaction, row locked). */
  async function expireIfDue(tx: Db, row: OrderRow): Promise<OrderRow> {
    if (!isDue(row)) return row;
    return (await statusChanges.apply(tx, row, "expired", "expiry")).row;
  }

  /** Expires up to `limit` due orders; returns how many. */
  async function expireDue(limit = EXPIRY_BATCH): Promise<number> {
    const expired = await transaction(sql, async (tx) => {
      const due = await lockDueOrders(tx, limit);
      await statusChanges.applyMany(tx, due, "expired", "expiry");
      return due.length;
    });
    if (expired > 0) deps.onEventsCommitted?.();
    return expired;
  }

  return { isDue, expireIfDue, expireDue };
}

export type Expiry = ReturnType<typeof createExpiry>;

/**
 * Turns pending orders past `expires_at` into `expired` every `everyMs`, and drops
 * idempotency records past their life once an hour. Rows are taken with SKIP LOCKED,
 * so any number of order-service instances can run it.
 */
export function startExpirySweeper(deps: {
  expiry: Pick<Expiry, "expireDue">;
  idempotency: { purgeExpired(): Promise<void> };
  logger: Logger;
  everyMs?: number;
}) {
  const everyMs = deps.everyMs ?? 5_000;
  let running: Promise<void> | undefined;
  let lastPurge = 0;
  const sweep = async () => {
    try {
      let expired = 0;
      for (let batch = EXPIRY_BATCH; batch === EXPIRY_BATCH; expired += batch) batch = await deps.expiry.expireDue(EXPIRY_BATCH);
      if (expired > 0) deps.logger.info({ expired }, "expired orders");
      if (Date.now() - lastPurge > 3_600_000) {
        await deps.idempotency.purgeExpired();
        lastPurge = Date.now();
      }
    } catch (error) {
      deps.logger.warn({ err: (error as Error).message }, "expiry sweep failed; will retry");
    }
  };
  const timer = setInterval(() => {
    running ??= sweep().finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
