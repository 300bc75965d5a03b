// The order statuses of docs/orders.md#statuses, in the order the API documents them.

export const ORDER_STATUSES = ["pending", "paid", "failed", "expired", "cancelled", "refunded"] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * The events an order announces (docs/orders.md#events, docs/refunds.md#events for its refunds), as webhooks,
 * the dashboard's checkboxes and the OpenAPI document name them.
 */
export const ORDER_EVENT_TYPES = [
  "order.created",
  "orderUpdated",
  "order.paid",
  "order.failed",
  "order.expired",
  "order.cancelled",
  "order.refunded",
  "refund.succeeded",
  "refund.failed",
] as const;

export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

/**
 * The event "Send test event" delivers (docs/webhooks.md#test-events): signed like the
 * others, but no endpoint subscribes to it and the event log does not keep it.
 */
export const TEST_EVENT_TYPE = "webhook.test";

/** The events whose body carries `data.previous_status`: an order made or changing status. */
export type OrderStatusEventType = Exclude<OrderEventType, `refund.${string}`>;
/** The events whose body carries `data.refund` (docs/refunds.md#events). */
export type RefundEventType = Extract<OrderEventType, `refund.${string}`>;

const isRefundEvent = (type: OrderEventType): type is RefundEventType => type.startsWith("refund.");
export const ORDER_STATUS_EVENT_TYPES = ORDER_EVENT_TYPES.filter((type): type is OrderStatusEventType => !isRefundEvent(type));
export const REFUND_EVENT_TYPES = ORDER_EVENT_TYPES.filter(isRefundEvent);
