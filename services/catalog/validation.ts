// Argument checks shared by the catalog's routes and domain modules: each throws
// INVALID_ARGUMENT naming the field, with the message clients have always seen.
import { Code, ConnectError } from "@connectrpc/connect";
import { isUuid } from "../../common/ids.js";

export function invalid(message: string): ConnectError {
  return new ConnectError(message, Code.InvalidArgument);
}

/** The id, lower-cased; INVALID_ARGUMENT naming `field` when it is not a UUID. */
export function requireUuid(value: string, field: string): string {
  if (!isUuid(value)) throw invalid(`${field} must be a UUID`);
  return value.toLowerCase();
}

/** The text trimmed, 1 to `max` characters. */
export function requireText(value: string, field: string, max: number): string {
  const text = value.trim();
  if (text.length < 1 || text.length > max) throw invalid(`${field} must be 1 to ${max} characters`);
  return text;
}

/** An absolute http(s) URL, or null for an empty string. */
export function optionalUrl(value: string, field: string): string | null {
  if (value === "") return null;
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {}
  throw invalid(`${field} must be an absolute http(s) URL`);
}

/** A page of a listing: `limit` 1–50, `offset` 0 or more. */
export function requirePage(request: { limit: number; offset: number }): { limit: number; offset: number } {
  if (request.limit < 1 || request.limit > 50) throw invalid("limit must be from 1 to 50");
  if (request.offset < 0) throw invalid("offset must be 0 or more");
  return { limit: request.limit, offset: request.offset };
}

export const EMAIL_MAX_LENGTH = 254;
// Deliberately plain: a local part without spaces, quotes or separators, and a domain of
// at least two labels (letters of any script, digits, inner hyphens). Deliverability is
// proved by the invitation reaching its owner, not by this pattern.
const EMAIL = /^[^\s@"<>()[\]\\,;:]{1,64}@(?=[^@]{1,253}$)(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/** The address trimmed and lower-cased (one account per mailbox, however it is typed), or undefined when it is no sane email. */
export function normalizeEmail(value: string): string | undefined {
  const email = value.trim().toLowerCase();
  return email.length <= EMAIL_MAX_LENGTH && EMAIL.test(email) ? email : undefined;
}

/** The normalized email; INVALID_ARGUMENT naming `field` otherwise. */
export function requireEmail(value: string, field: string): string {
  const email = normalizeEmail(value);
  if (email === undefined) throw invalid(`${field} must be an email address of at most ${EMAIL_MAX_LENGTH} characters`);
  return email;
}
