// When the gateway is silent (docs/refunds.md#when-the-gateway-is-silent). A notification can be lost; then the
// gateway's Status API is asked instead: a pending gateway order with no word for
// PAYMENT_STATUS_CHECK_AFTER is checked, again at growing intervals, and once more just
// before it would expire; the answer goes through the notification's own path (the
// same asking confirms a notification that would move money, notifications.ts). An
// order that expires anyway (or is cancelled) is expired at the gateway too, so the
// buyer cannot pay it after.
//
// Every order-service instance sweeps; a claim moves the order's due time on by a lease
// before the gateway is called, so each order has at most one check in flight and is
// checked once per interval whatever the number of instances. A gateway that is away
// only moves the next try on.
import type { Logger } from "../../platform/logger.js";
import type { GatewayWord, Notifications } from "./notifications.js";
import type { PaymentGateway } from "./payment-gateways/types.js";
import type { Sql } from "../../platform/db.js";
import { asksGateway } from "./test-mode.js";
import { claimDueGatewayExpiries, claimDueStatusChecks, type OrderRow, scheduleStatusCheck, setGatewayExpireAt } from "./db/orders.js";

/** How long a claimed check or expiry is left to its claimer before another instance may take it. */
export const CHECK_LEASE_MS = 60_000;
/** After a gateway that was away, the next try. */
export const AWAY_RETRY_MS = 30_000;
/** The intervals between checks double up to this. */
export const MAX_CHECK_INTERVAL_MS = 6 * 3_600_000;
/** The last check comes this long before expiry (or half the interval, if that is shorter). */
export const FINAL_CHECK_LEAD_MS = 60_000;
/** Checks and expiries one instance makes per sweep, and at once: the gateway is asked at a steady pace. */
export const CHECKS_PER_SWEEP = 20;
export const CHECKS_AT_ONCE = 4;

/** When the last check before expiry is due. */
export function finalCheckAt(expiresAt: Date, afterMs: number): Date {
  return new Date(expiresAt.getTime() - Math.min(FINAL_CHECK_LEAD_MS, Math.floor(afterMs / 2)));
}

/**
 * The first check of a new gateway order: after `afterMs` of silence, plus up to a tenth
 * of that (at most a minute) so orders made in one burst are not checked in one burst;
 * never after the final check.
 */
export function firstStatusCheckAt(createdAt: Date, expiresAt: Date, afterMs: number, random = Math.random): Date {
  const spread = Math.floor(random() * Math.min(afterMs / 10, 60_000));
  const at = createdAt.getTime() + afterMs + spread;
  return new Date(Math.max(createdAt.getTime(), Math.min(at, finalCheckAt(expiresAt, afterMs).getTime())));
}

/**
 * The check after one made at `now` (the `checksDone`-th, counting from 0): the
 * interval doubles each time up to MAX_CHECK_INTERVAL_MS, the final one is just before
 * expiry, and after that there is none (null): expiry takes over.
 */
export function nextStatusCheckAt(now: Date, expiresAt: Date, afterMs: number, checksDone: number): Date | null {
  const final = finalCheckAt(expiresAt, afterMs).getTime();
  if (now.getTime() >= final) return null;
  const interval = Math.min(afterMs * 2 ** Math.min(checksDone + 1, 30), MAX_CHECK_INTERVAL_MS);
  return new Date(Math.min(now.getTime() + interval, final));
}

/** Runs `work` on each item, at most `limit` at once. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export function createGatewayChecks(deps: {
  sql: Sql;
  gateway: Pick<PaymentGateway, "status" | "expire">;
  notifications: Pick<Notifications, "askGateway">;
  logger: Logger;
  /** PAYMENT_STATUS_CHECK_AFTER. */
  checkAfterMs: number;
}) {
  const { sql, gateway, notifications, logger } = deps;

  /** Asks the gateway about the order and applies its answer; false when the gateway was away. */
  async function ask(row: OrderRow): Promise<boolean> {
    let word: GatewayWord;
    try {
      word = await notifications.askGateway(row, "status check");
    } catch (error) {
      // Our side (the database) failed applying a verified answer: a check not made, it comes again.
      logger.warn({ orderId: row.id, err: (error as Error).message }, "gateway status answer could not be applied; will retry");
      return false;
    }
    switch (word.kind) {
      case "away":
        logger.warn({ orderId: row.id, err: word.reason }, "gateway status check failed: the payment gateway could not be reached; will retry");
        return false;
      case "no_transaction":
        logger.info({ orderId: row.id }, "gateway status checked: no transaction at the gateway (the buyer has not started paying)");
        return true;
      case "rejected":
        // A forged or mismatched answer changes nothing; it is not worth asking again soon.
        logger.error({ orderId: row.id, err: word.reason }, "gateway status answer not applied");
        return true;
      case "applied":
        logger.info({ orderId: row.id, transactionStatus: word.transactionStatus, status: word.outcome.status, changed: word.outcome.changed }, "gateway status checked");
        return true;
    }
  }

  async function checkOne(row: OrderRow) {
    // A test order is never asked about: its gateway is the sandbox (test-mode.ts). None
    // is scheduled; one that is anyway is taken off the schedule.
    if (!asksGateway(row, gateway)) return scheduleStatusCheck(sql, row.id, null, false);
    const answered = await ask(row);
    const next = answered ? nextStatusCheckAt(new Date(), row.expires_at, deps.checkAfterMs, row.status_checks) : new Date(Date.now() + AWAY_RETRY_MS);
    await scheduleStatusCheck(sql, row.id, next, answered);
  }

  /** Checks up to CHECKS_PER_SWEEP due orders; returns how many were claimed. */
  async function checkDue(): Promise<number> {
    if (!gateway.status) return 0;
    const due = await claimDueStatusChecks(sql, CHECKS_PER_SWEEP, CHECK_LEASE_MS);
    await eachLimited(due, CHECKS_AT_ONCE, checkOne);
    return due.length;
  }

  async function expireOne(row: OrderRow) {
    if (!row.livemode) return setGatewayExpireAt(sql, row.id, null);
    let done = false;
    try {
      const answer = await gateway.expire!(row.payment_reference);
      if (answer.kind === "refused") {
        // Past expiring at the gateway: most likely the buyer paid meanwhile. Its word decides.
        logger.warn({ orderId: row.id, message: answer.message }, "the gateway refused to expire the transaction; asking its status");
        done = await ask(row);
      } else {
        logger.info({ orderId: row.id, answer: answer.kind }, "transaction expired at the gateway");
        done = true;
      }
    } catch (error) {
      logger.warn({ orderId: row.id, err: (error as Error).message }, "expiring at the gateway failed: the payment gateway could not be reached; will retry");
    }
    await setGatewayExpireAt(sql, row.id, done ? null : new Date(Date.now() + AWAY_RETRY_MS));
  }

  /** Expires up to CHECKS_PER_SWEEP orders at the gateway; returns how many were claimed. */
  async function expireDue(): Promise<number> {
    if (!gateway.expire) return 0;
    const due = await claimDueGatewayExpiries(sql, CHECKS_PER_SWEEP, CHECK_LEASE_MS);
    await eachLimited(due, CHECKS_AT_ONCE, expireOne);
    return due.length;
  }

  /** The gateway spoke about a pending order (a notification): its silence counts from now. */
  async function heard(row: OrderRow) {
    if (!gateway.status || row.next_status_check_at === null) return;
    await scheduleStatusCheck(sql, row.id, firstStatusCheckAt(new Date(), row.expires_at, deps.checkAfterMs), false);
  }

  /**
   * A notification that would move money came while the gateway could not confirm it: a
   * pending order is asked again within AWAY_RETRY_MS rather than at its next interval
   * (hours off, later on), should Midtrans stop re-sending it first.
   */
  async function askSoon(row: OrderRow) {
    const at = new Date(Date.now() + AWAY_RETRY_MS);
    if (!gateway.status || row.status !== "pending" || row.next_status_check_at === null || row.next_status_check_at <= at) return;
    await scheduleStatusCheck(sql, row.id, at, false);
  }

  return { checkDue, expireDue, heard, askSoon };
}

export type GatewayChecks = ReturnType<typeof createGatewayChecks>;

/**
 * Every `everyMs`: pending refunds retried, due status checks, due expiries at the
 * gateway. One sweep at a time per instance; any number of instances may run it.
 */
export function startGatewaySweeper(deps: {
  checks: Pick<GatewayChecks, "checkDue" | "expireDue">;
  refunds: { retryDue: () => Promise<number> };
  logger: Logger;
  everyMs: number;
}) {
  let running: Promise<void> | undefined;
  const step = async (name: string, work: () => Promise<number>) => {
    try {
      await work();
    } catch (error) {
      deps.logger.warn({ err: (error as Error).message, step: name }, "gateway sweep step failed; will retry");
    }
  };
  const sweep = async () => {
    await step("refunds", deps.refunds.retryDue);
    await step("status checks", deps.checks.checkDue);
    await step("gateway expiry", deps.checks.expireDue);
  };
  const timer = setInterval(() => {
    running ??= sweep().finally(() => (running = undefined));
  }, deps.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** The sweep interval: every 5 s, or a quarter of the check interval when that is shorter. */
export function gatewaySweepEvery(checkAfterMs: number): number {
  return Math.max(100, Math.min(5_000, Math.floor(checkAfterMs / 4)));
}
