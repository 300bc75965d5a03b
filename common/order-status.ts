// The order statuses of CONTRACT §5, in the order the API documents them.

export const ORDER_STATUSES = ["pending", "paid", "failed", "expired", "cancelled", "refunded"] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

export function isOrderStatus(value: string): value is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(value);
}
