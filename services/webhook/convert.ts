import type { MessageInitShape } from "@bufbuild/protobuf";
import type { DeliverySchema, EndpointSchema } from "../../gen/webhook/v1/webhook_pb.js";
import type { AttemptRow, DeliveryRow, EndpointRow } from "./store.js";

// Rows → protobuf messages: the one place the two vocabularies meet.

export function endpointMessage(row: EndpointRow): MessageInitShape<typeof EndpointSchema> {
  return { id: row.id, storeId: row.store_id, url: row.url, enabled: row.enabled, createdAt: row.created_at.toISOString() };
}

export function deliveryMessage(delivery: DeliveryRow, attempts: AttemptRow[]): MessageInitShape<typeof DeliverySchema> {
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
