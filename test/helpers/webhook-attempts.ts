// An attempt and its outcome as the webhook worker records them, from the receiver's
// status alone: a 2xx succeeded, anything else failed with HTTP <status> and stays pending.
import type { AttemptOutcome, NewAttempt } from "../../services/webhook/db/deliveries.js";

export function attemptOf(deliveryId: string, startedAt: Date, statusCode: number): NewAttempt {
  return {
    delivery_id: deliveryId,
    started_at: startedAt,
    status_code: statusCode,
    latency_ms: 5,
    result: statusCode < 300 ? "succeeded" : "http_error",
    error: statusCode < 300 ? null : `HTTP ${statusCode}`,
    response_excerpt: null,
  };
}

export function outcomeOf(statusCode: number): AttemptOutcome {
  return statusCode < 300 ? { status: "succeeded" } : { status: "pending", error: `HTTP ${statusCode}` };
}
