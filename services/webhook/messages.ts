import type { MessageInitShape } from "@bufbuild/protobuf";
import { actorMay, type Actor } from "../../common/actor.js";
import { parseAuditTarget } from "../../common/audit-text.js";
import { urlOrigin } from "../../common/url-origin.js";
import type { AuditEntry } from "../../gen/audit/v1/audit_pb.js";
import type { DeliverySchema, EndpointSchema, EventSchema } from "../../gen/webhook/v1/webhook_pb.js";
import { auditEntryMessage, type AuditRow } from "../../platform/audit-log.js";
import type { AttemptRow, DeliveryRow } from "./db/deliveries.js";
import type { EndpointRow } from "./db/endpoints.js";
import type { EventRow } from "./db/events.js";

// Rows → protobuf messages: the one place the two vocabularies meet, and so where an
// endpoint's URL is cut to what the reader may see.

/**
 * An endpoint's URL as `reader` may see it: whole for whoever may manage webhooks (the
 * operator and the system too), its origin only for everyone else, a call that states
 * no actor included. A receiver's path or query often carries its token, which is as
 * good as a credential to whoever can post to it.
 */
export function endpointUrlFor(reader: Actor | undefined, url: string): string {
  return reader && actorMay(reader, "developer_settings") ? url : urlOrigin(url);
}

export function endpointMessage(row: EndpointRow, reader: Actor | undefined): MessageInitShape<typeof EndpointSchema> {
  return {
    id: row.id,
    storeId: row.store_id,
    url: endpointUrlFor(reader, row.url),
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
    livemode: row.livemode,
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
    orderReference: delivery.order_reference ?? "",
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
      requestHeaders: (a.request_headers ?? []).map((header) => ("masked" in header ? { name: header.name, masked: true } : header)),
    })),
  };
}

export function eventMessage(event: EventRow, deliveries: DeliveryRow[]): MessageInitShape<typeof EventSchema> {
  return {
    id: event.id,
    storeId: event.store_id,
    type: event.type,
    orderId: event.order_id ?? "",
    orderReference: event.order_reference ?? "",
    createdAt: event.created_at.toISOString(),
    body: event.body,
    livemode: event.livemode,
    deliveries: deliveries.map((delivery) => deliveryMessage(delivery, [])),
  };
}

/**
 * An entry of this service's part of the audit log as `reader` may see it: an entry about
 * an endpoint is labelled with its URL, and a change of the URL lists the old and the new
 * one, so both are cut as endpointUrlFor says.
 */
export function auditMessage(row: AuditRow, reader: Actor | undefined): AuditEntry {
  const url = (text: string) => endpointUrlFor(reader, text);
  return auditEntryMessage({
    ...row,
    target_label: parseAuditTarget(row.target).kind === "endpoint" ? url(row.target_label) : row.target_label,
    changes: row.changes.map((change) => (change.field === "url" ? { ...change, before: url(change.before), after: url(change.after) } : change)),
  });
}
