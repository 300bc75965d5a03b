// Which order a bank mutation pays (docs/reconciliation.md#matching), and how long an order keeps its
// transfer amount. Pure: the caller reads the orders and the clock.
import type { OrderStatus } from "./status-machine.js";
import type { OrderRow } from "./db/orders.js";

export { UNMATCHED_REASONS } from "../../common/bank-mutations.js";
import { UNMATCHED_REASONS } from "../../common/bank-mutations.js";

export type UnmatchedReason = (typeof UNMATCHED_REASONS)[keyof typeof UNMATCHED_REASONS];

export type MatchDecision = { result: "matched"; orderId: string } | { result: "unmatched"; reason: UnmatchedReason };

export type CandidateOrder = Pick<OrderRow, "id" | "status" | "payment_kind" | "amount" | "created_at" | "expires_at" | "updated_at">;

export interface CreditMutation {
  amount: number;
  occurredAt: Date;
}

/**
 * Whether a transfer at `occurredAt` could still pay the order: pending, or expired at
 * most `graceMs` before it. A pending order past its expiry counts as expired then,
 * as every read treats it.
 */
function payable(order: CandidateOrder, occurredAt: Date, graceMs: number): boolean {
  return (order.status === "pending" || order.status === "expired") && order.expires_at.getTime() + graceMs >= occurredAt.getTime();
}

/** What a terminal order within the grace says about a transfer that cannot pay it. */
function reasonOf(status: OrderStatus): UnmatchedReason | undefined {
  if (status === "cancelled") return UNMATCHED_REASONS.cancelled;
  if (status === "paid" || status === "refunded") return UNMATCHED_REASONS.paid;
  return undefined;
}

/**
 * The result of a credit among the store's bank-transfer orders (db/orders.ts
 * transferOrdersFor gives those that can matter). It pays the one order with its amount
 * that was created before the transfer and could still be paid then, unless another
 * order with that amount was paid or refunded within the grace before the transfer
 * (its code was freed and handed on: this may be that order's money again, so it waits
 * for review as `ambiguous`); with none, the newest order it concerns says why
 * (cancelled, or paid already: a double payment to refund), else an order made only
 * after the transfer, else nothing.
 */
export function decideMatch(mutation: CreditMutation, orders: CandidateOrder[], graceMs: number): MatchDecision {
  const occurred = mutation.occurredAt.getTime();
  const sameAmount = orders.filter((order) => order.payment_kind === "bank_transfer" && order.amount === mutation.amount);
  const before = sameAmount.filter((order) => order.created_at.getTime() < occurred);
  const open = before.filter((order) => payable(order, mutation.occurredAt, graceMs));
  const closedWithinGrace = before
    .filter((order) => reasonOf(order.status) !== undefined && order.updated_at.getTime() + graceMs >= occurred)
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime());
  if (open.length === 1) {
    const paidWithinGrace = closedWithinGrace.some((order) => reasonOf(order.status) === UNMATCHED_REASONS.paid);
    return paidWithinGrace ? { result: "unmatched", reason: UNMATCHED_REASONS.ambiguous } : { result: "matched", orderId: open[0]!.id };
  }
  if (open.length > 1) return { result: "unmatched", reason: UNMATCHED_REASONS.several };
  if (closedWithinGrace.length > 0) return { result: "unmatched", reason: reasonOf(closedWithinGrace[0]!.status)! };
  if (sameAmount.length > before.length) return { result: "unmatched", reason: UNMATCHED_REASONS.early };
  return { result: "unmatched", reason: UNMATCHED_REASONS.none };
}

/**
 * What a bank-transfer order's status change does to its amount's reservation, given
 * the order as changed: `undefined` leaves it; otherwise the reservation now ends then.
 * Paid or refunded: at once (nothing more may pay it), and the row stays to say when
 * the code was last used, so codes are handed out least recently used first (pricing.ts
 * pickUniqueCode). Expired or cancelled: after the grace, since a late transfer may
 * still come and must not pay a newer order. Expiry counts from `expires_at`, as
 * matching does.
 */
export function reservationAfter(
  order: Pick<OrderRow, "payment_kind" | "expires_at" | "updated_at">,
  to: OrderStatus,
  graceMs: number,
): Date | undefined {
  if (order.payment_kind !== "bank_transfer") return undefined;
  switch (to) {
    case "paid":
    case "refunded":
      return order.updated_at;
    case "expired":
      return new Date(order.expires_at.getTime() + graceMs);
    case "cancelled":
    case "failed":
      return new Date(order.updated_at.getTime() + graceMs);
    case "pending":
      return undefined;
  }
}
