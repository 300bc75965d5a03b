// Argument checks shared by the catalog's routes and domain modules: each throws
// INVALID_ARGUMENT naming the field (platform/field-errors.ts), with the message
// clients have always seen ("store_id must be a UUID").
import { fieldChecks } from "../../platform/field-errors.js";

export const { fieldError, requireUuid, requireStoreId } = fieldChecks("field description");

/** The text trimmed, 1 to `max` characters. */
export function requireText(value: string, field: string, max: number): string {
  const text = value.trim();
  if (text.length < 1 || text.length > max) throw fieldError(field, `must be 1 to ${max} characters`);
  return text;
}

/** An absolute http(s) URL, or null for an empty string. */
export function optionalUrl(value: string, field: string): string | null {
  if (value === "") return null;
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {}
  throw fieldError(field, "must be an absolute http(s) URL");
}

/** A page of a listing: `limit` 1–50, `offset` 0 or more. */
export function requirePage(request: { limit: number; offset: number }): { limit: number; offset: number } {
  if (request.limit < 1 || request.limit > 50) throw fieldError("limit", "must be from 1 to 50");
  if (request.offset < 0) throw fieldError("offset", "must be 0 or more");
  return { limit: request.limit, offset: request.offset };
}
