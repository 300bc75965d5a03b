// Argument rules of the webhook service's API, each failing as INVALID_ARGUMENT whose
// message starts with the field's name and whose details carry it, so the CLI prints a
// readable line and the gateway can point at the field.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { FieldViolationSchema } from "../../gen/order/v1/order_pb.js";
import { isUuid } from "../../common/ids.js";
import { ORDER_EVENT_TYPES } from "../../common/order-status.js";
import { parseRfc3339 as parseRfc3339Instant } from "../../common/rfc3339.js";
import type { DeliveryStatus } from "./db/deliveries.js";

/** INVALID_ARGUMENT "`field` `description`", with the field in its details. */
export function invalidField(field: string, description: string): ConnectError {
  return new ConnectError(`${field} ${description}`, Code.InvalidArgument, undefined, [
    { desc: FieldViolationSchema, value: create(FieldViolationSchema, { field, description }) },
  ]);
}

/** The id, lower-cased; INVALID_ARGUMENT naming `field` when it is not a UUID. */
export function requireUuid(value: string, field: string): string {
  if (!isUuid(value)) throw invalidField(field, "must be a UUID");
  return value.toLowerCase();
}

/** The id lower-cased, or undefined when empty (an optional filter). */
export function optionalUuid(value: string, field: string): string | undefined {
  return value === "" ? undefined : requireUuid(value, field);
}

/** An RFC 3339 date-time with its offset (common/rfc3339.ts); INVALID_ARGUMENT naming `field` otherwise. */
export function parseRfc3339(value: string, field: string): Date {
  const parsed = parseRfc3339Instant(value);
  if (!parsed) throw invalidField(field, "must be an RFC 3339 date-time with an offset, e.g. 2024-05-01T00:00:00Z");
  return parsed;
}

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ["pending", "succeeded", "failed", "refused"];

/** A delivery status filter; undefined when empty. */
export function optionalDeliveryStatus(value: string): DeliveryStatus | undefined {
  if (value === "") return undefined;
  if (!(DELIVERY_STATUSES as readonly string[]).includes(value)) throw invalidField("status", `must be one of ${DELIVERY_STATUSES.join(", ")}`);
  return value as DeliveryStatus;
}

/** An order event type filter; undefined when empty. */
export function optionalEventType(value: string, field: string): string | undefined {
  if (value === "") return undefined;
  if (!(ORDER_EVENT_TYPES as readonly string[]).includes(value)) throw invalidField(field, `must be one of ${ORDER_EVENT_TYPES.join(", ")}`);
  return value;
}
