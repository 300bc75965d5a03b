import type { MessageInitShape } from "@bufbuild/protobuf";
import type { DeliverySchema, EndpointSchema, EventSchema } from "../../gen/webhook/v1/webhook_pb.js";
import type { AttemptRow, DeliveryRow, EndpointRow, EventRow } from "./store.js";

// Rows → protobuf messages: the one place the two vocabularies meet.

export function endpointMessage(row: EndpointRow): MessageInitShape<typeof EndpointSchema> {
  return {
    id: row.id,
    storeId: row.store_id,
    url: row.url,
    enabled: row.enabled,
    createdAt: row.created_at.toISOString(),
    description: row.description,
    eventTypes: row.event_types ?? [],
    disabledReason: row.enabled ? "" : (row.disabled_reason ?? ""),
    updatedAt: row.updated_at.toISOString(),
    failingSince: row.failing_since?.toISOString() ?? "",
    failedFrom: row.failed_from?.toISOString() ?? "",
    headerNames: row.header_names ?? [],
    maxPerSecond: row.max_per_second ?? 0,
  };
}

/** A delivery; its request body only when asked (GetDelivery), its attempts as given. */
export function deliveryMessage(
  delivery: DeliveryRow,
  attempts: AttemptRow[],
  options: { body?: boolean } = {},
): MessageInitShape<typeof DeliverySchema> {
  return {
    id: delivery.id,
    endpointId: delivery.endpoint_id,
    eventId: delivery.event_id,
    eventType: delivery.event_type,
    orderId: delivery.order_id ?? "",
    status: delivery.status,
    attemptsMade: delivery.attempts,
    nextAttemptAt: delivery.status === "pending" ? delivery.next_attempt_at.toISOString() : "",
    createdAt: delivery.created_at.toISOString(),
    kind: delivery.kind,
    body: options.body ? delivery.body : "",
    lastError: delivery.last_error ?? "",
    updatedAt: delivery.updated_at.toISOString(),
    attempts: attempts.map((a) => ({
      number: a.number,
      startedAt: a.started_at.toISOString(),
      statusCode: a.status_code ?? 0,
      latencyMs: a.latency_ms,
      result: a.result,
      error: a.error ?? "",
      responseExcerpt: a.response_excerpt ?? "",
    })),
  };
}

export function eventMessage(event: EventRow, deliveries: DeliveryRow[]): MessageInitShape<typeof EventSchema> {
  return {
    id: event.id,
    storeId: event.store_id,
    type: event.type,
    orderId: event.order_id ?? "",
    createdAt: event.created_at.toISOString(),
    body: event.body,
    deliveries: deliveries.map((delivery) => deliveryMessage(delivery, [])),
  };
}
