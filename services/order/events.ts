// The one builder of order event payloads (docs/orders.md#events, docs/webhooks.md#body). Each event is an outbox
// row whose payload becomes the webhook body byte for byte, so the key order here is
// the key order receivers see: {"type","timestamp","data":{"store_id","order","previous_status"}}.
import { randomUUID } from "node:crypto";
import type { Order, Refund } from "../../gen/order/v1/order_pb.js";
import type { OrderEventPayload, RefundEventPayload } from "../../common/api-shapes.js";
import type { OrderStatusEventType, RefundEventType } from "../../common/order-status.js";
import { orderJson, refundJson, type OrderJson } from "../../common/public-json.js";
import { eventsForChange, type OrderStatus } from "./status-machine.js";
import type { OrderRow } from "./db/orders.js";
import type { NewOutboxRow } from "./db/outbox.js";
import type { RefundRow } from "./db/refunds.js";

// The bodies' shapes, and the OpenAPI document's schemas of them, are api-shapes.ts's.
export type { OrderEventPayload, RefundEventPayload, RefundEventType };

export interface OrderEvent extends NewOutboxRow {
  event_type: OrderStatusEventType;
  payload: OrderEventPayload;
}

/** One event's body. */
export function orderEventPayload(
  type: OrderStatusEventType,
  at: Date,
  storeId: string,
  order: OrderJson,
  previousStatus: OrderStatus | null,
): OrderEventPayload {
  // `livemode` last, beside the order's own: the webhook service routes the event by it
  // (test events go to test endpoints only: docs/keys.md#test-mode).
  return { type, timestamp: at.toISOString(), data: { store_id: storeId, order, previous_status: previousStatus, livemode: order.livemode } };
}

/** Outbox rows for `types`, all carrying the same rendering of the order. */
export function orderEvents(
  types: OrderStatusEventType[],
  subject: { orderId: string; storeId: string; at: Date; order: Order; previousStatus: OrderStatus | null },
  newId: () => string = randomUUID,
): OrderEvent[] {
  const order = orderJson(subject.order);
  return types.map((type) => ({
    id: newId(),
    store_id: subject.storeId,
    order_id: subject.orderId,
    event_type: type,
    payload: orderEventPayload(type, subject.at, subject.storeId, order, subject.previousStatus),
  }));
}

/** `order.created`, stamped with the order's creation time. */
export function createdEvents(row: Pick<OrderRow, "id" | "store_id" | "created_at">, order: Order, newId?: () => string): OrderEvent[] {
  return orderEvents(["order.created"], { orderId: row.id, storeId: row.store_id, at: row.created_at, order, previousStatus: null }, newId);
}

/** `orderUpdated` and the status event, stamped with the change's time. */
export function statusChangeEvents(
  updated: Pick<OrderRow, "id" | "store_id" | "status" | "updated_at">,
  order: Order,
  previousStatus: OrderStatus,
  newId?: () => string,
): OrderEvent[] {
  return orderEvents(
    eventsForChange(updated.status),
    { orderId: updated.id, storeId: updated.store_id, at: updated.updated_at, order, previousStatus },
    newId,
  );
}

/**
 * A metadata change (docs/orders.md#metadata): `orderUpdated` alone, its previous_status the
 * status the order still has, stamped with the change's time.
 */
export function metadataChangeEvents(updated: Pick<OrderRow, "id" | "store_id" | "status" | "updated_at">, order: Order, newId?: () => string): OrderEvent[] {
  return orderEvents(["orderUpdated"], { orderId: updated.id, storeId: updated.store_id, at: updated.updated_at, order, previousStatus: updated.status }, newId);
}

/** `refund.succeeded` or `refund.failed` (docs/refunds.md#events), carrying the order as it is after the refund. */
export function refundEvent(
  refund: Pick<RefundRow, "store_id" | "order_id" | "status" | "updated_at">,
  order: Order,
  rendered: Refund,
  newId: () => string = randomUUID,
): NewOutboxRow & { event_type: RefundEventType; payload: RefundEventPayload } {
  const type: RefundEventType = refund.status === "succeeded" ? "refund.succeeded" : "refund.failed";
  return {
    id: newId(),
    store_id: refund.store_id,
    order_id: refund.order_id,
    event_type: type,
    payload: {
      type,
      timestamp: refund.updated_at.toISOString(),
      data: { store_id: refund.store_id, order: orderJson(order), refund: refundJson(rendered), livemode: order.livemode },
    },
  };
}
