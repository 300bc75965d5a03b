import type { Delivery, Endpoint, Event } from "../gen/webhook/v1/webhook_pb.js";

// How the operator CLI prints webhook messages: snake_case JSON, null for "none".

export function endpointJson(e: Endpoint) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    // "all", or the chosen event types.
    events: e.eventTypes.length === 0 ? "all" : e.eventTypes,
    enabled: e.enabled,
    disabled_reason: e.disabledReason || null,
    // When every attempt since has failed; and, once disabled for it, from when to resend.
    failing_since: e.failingSince || null,
    failed_from: e.failedFrom || null,
    header_names: e.headerNames,
    max_per_second: e.maxPerSecond || null,
    livemode: e.livemode,
    created_at: e.createdAt,
    updated_at: e.updatedAt || null,
  };
}

export function deliveryJson(d: Delivery) {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    kind: d.kind || "event",
    event_id: d.eventId,
    event_type: d.eventType,
    order_id: d.orderId || null,
    // The order as a person names it (SO-…), from the event's body.
    order_reference: d.orderReference || null,
    status: d.status,
    attempts_made: d.attemptsMade,
    next_attempt_at: d.nextAttemptAt || null,
    last_error: d.lastError || null,
    created_at: d.createdAt,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      started_at: a.startedAt,
      status_code: a.statusCode || null,
      latency_ms: a.latencyMs,
      result: a.result,
      error: a.error || null,
      response_excerpt: a.responseExcerpt || null,
      // The headers exactly as sent, in order; a custom header's value is never kept (null, masked).
      request_headers: a.requestHeaders.map((h) => ({ name: h.name, value: h.masked ? null : h.value, masked: h.masked })),
    })),
  };
}

export function eventJson(e: Event) {
  return {
    id: e.id,
    type: e.type,
    order_id: e.orderId || null,
    order_reference: e.orderReference || null,
    livemode: e.livemode,
    created_at: e.createdAt,
    deliveries: e.deliveries.map((d) => ({ id: d.id, endpoint_id: d.endpointId, kind: d.kind || "event", status: d.status })),
  };
}
