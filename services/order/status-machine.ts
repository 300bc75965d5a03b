// The order status machine of docs/orders.md#status-machine, in one place.

import type { OrderStatus, OrderStatusEventType } from "../../common/order-status.js";

export { ORDER_STATUSES, type OrderStatus } from "../../common/order-status.js";

const allowed: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ["paid", "failed", "expired", "cancelled"],
  expired: ["paid"], // a late payment still counts
  failed: ["paid"], // the buyer retried and it went through
  paid: ["refunded"],
  cancelled: [],
  refunded: [],
};

export type TransitionCheck = { kind: "change" } | { kind: "repeat" } | { kind: "refused" };

/** Whether `from → to` is a change, a harmless repeat (no-op), or refused. */
export function checkTransition(from: OrderStatus, to: OrderStatus): TransitionCheck {
  if (from === to) return { kind: "repeat" };
  return allowed[from].includes(to) ? { kind: "change" } : { kind: "refused" };
}

/** Every status change announces itself twice: `orderUpdated` and the status event. */
export function eventsForChange(to: OrderStatus): OrderStatusEventType[] {
  if (to === "pending") return ["orderUpdated"];
  return ["orderUpdated", `order.${to}`];
}
