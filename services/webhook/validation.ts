// Argument rules of the webhook service's API, each failing as INVALID_ARGUMENT with
// the field in a BadRequest (platform/field-errors.ts) and a message that starts with
// the field's name, so the CLI prints a readable line and the gateway can point at it.
import { ORDER_EVENT_TYPES } from "../../common/order-status.js";
import { parseRfc3339 as parseRfc3339Instant } from "../../common/rfc3339.js";
import { fieldChecks } from "../../platform/field-errors.js";
import type { DeliveryStatus } from "./db/deliveries.js";

// "url must be an absolute URL": the dashboard's endpoint forms match on these words.
export const { fieldError, requireUuid, optionalUuid, requireStoreId } = fieldChecks("field description");

/** An RFC 3339 date-time with its offset (common/rfc3339.ts); INVALID_ARGUMENT naming `field` otherwise. */
export function parseRfc3339(value: string, field: string): Date {
  const parsed = parseRfc3339Instant(value);
  if (!parsed) throw fieldError(field, "must be an RFC 3339 date-time with an offset, e.g. 2024-05-01T00:00:00Z");
  return parsed;
}

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ["pending", "succeeded", "failed", "refused"];

/** A delivery status filter; undefined when empty. */
export function optionalDeliveryStatus(value: string): DeliveryStatus | undefined {
  if (value === "") return undefined;
  if (!(DELIVERY_STATUSES as readonly string[]).includes(value)) throw fieldError("status", `must be one of ${DELIVERY_STATUSES.join(", ")}`);
  return value as DeliveryStatus;
}

/** An order event type filter; undefined when empty. */
export function optionalEventType(value: string, field: string): string | undefined {
  if (value === "") return undefined;
  if (!(ORDER_EVENT_TYPES as readonly string[]).includes(value)) throw fieldError(field, `must be one of ${ORDER_EVENT_TYPES.join(", ")}`);
  return value;
}
