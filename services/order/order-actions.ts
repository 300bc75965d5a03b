// What a person may do to an order (docs/payments.md#mark-as-paid, docs/refunds.md): the one rule the order service
// enforces and the dashboard and CLI only render (GetOrder's allowed_actions). Money
// moves only on evidence, so a person may mark paid only a bank transfer (whose
// evidence is the merchant's own statement); a gateway order is paid by the gateway's
// word. Pure: the caller reads the order and its refunds.
import { Code, ConnectError } from "@connectrpc/connect";
import type { OrderRow } from "./db/orders.js";
import type { RefundMethod, RefundRow } from "./db/refunds.js";
import { fieldError } from "../../platform/field-errors.js";

export const ORDER_ACTIONS = ["mark_paid", "cancel", "refund"] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

type ActionOrder = Pick<OrderRow, "status" | "payment_kind" | "amount" | "refunded_amount">;
type CountedRefund = Pick<RefundRow, "status" | "amount">;

/** How a refund of an order of this kind is made; undefined when there is nothing to refund through. */
export function refundMethodOf(kind: OrderRow["payment_kind"]): RefundMethod | undefined {
  if (kind === "gateway") return "gateway";
  if (kind === "bank_transfer") return "manual";
  return undefined;
}

/** What is left to refund: the amount less what succeeded and what is pending. */
export function refundableLeft(order: Pick<OrderRow, "amount" | "refunded_amount">, refunds: CountedRefund[]): number {
  const pending = refunds.filter((refund) => refund.status === "pending").reduce((sum, refund) => sum + refund.amount, 0);
  return Math.max(0, order.amount - order.refunded_amount - pending);
}

/**
 * Why the order cannot take the action now (FAILED_PRECONDITION, the API's CONFLICT),
 * or undefined when it can. A refund of a paid order with nothing left is not refused
 * here: that is the amount's problem (refundAmount).
 */
export function refusal(action: OrderAction, order: ActionOrder): string | undefined {
  switch (action) {
    case "mark_paid":
      if (order.payment_kind !== "bank_transfer") {
        return "only a bank-transfer order can be marked as paid by a person; a gateway order is paid by the gateway's own word";
      }
      return order.status === "pending" || order.status === "expired" ? undefined : `a ${order.status} order cannot be marked as paid`;
    case "cancel":
      return order.status === "pending" ? undefined : `only a pending order can be cancelled; this one is ${order.status}`;
    case "refund":
      if (refundMethodOf(order.payment_kind) === undefined) return "a free order has nothing to refund";
      return order.status === "paid" ? undefined : `only a paid order can be refunded; this one is ${order.status}`;
  }
}

/** The actions a person may take now, in the order views show them. */
export function allowedActions(order: ActionOrder, refunds: CountedRefund[]): OrderAction[] {
  return ORDER_ACTIONS.filter((action) => refusal(action, order) === undefined && (action !== "refund" || refundableLeft(order, refunds) > 0));
}

/** Throws FAILED_PRECONDITION when the order cannot take the action now. */
export function requireAllowed(action: OrderAction, order: ActionOrder & { id: string }): void {
  const why = refusal(action, order);
  if (why) throw new ConnectError(`order ${order.id}: ${why}`, Code.FailedPrecondition);
}

/** The amount of a new refund: what was asked, or all that is left; INVALID_ARGUMENT naming `amount` otherwise. */
export function refundAmount(requested: number | undefined, left: number): number {
  if (requested !== undefined && (!Number.isSafeInteger(requested) || requested < 1)) throw fieldError("amount", "must be a positive integer");
  if (left <= 0) throw fieldError("amount", "nothing is left to refund on this order (pending refunds count)");
  if (requested === undefined) return left;
  if (requested > left) throw fieldError("amount", `is more than is left to refund (${left})`);
  return requested;
}
