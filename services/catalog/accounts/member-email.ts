// A member's email as it is stored and compared (docs/dashboard.md#accounts): members, invitations,
// and the sign-in throttle all go through normalizeEmail, so one mailbox
// is one account however it is typed.
import { fieldError } from "../validation.js";

export const EMAIL_MAX_LENGTH = 254;
// Deliberately plain: a local part without spaces, quotes or separators, and a domain of
// at least two labels (letters of any script, digits, inner hyphens). Deliverability is
// proved by the invitation reaching its owner, not by this pattern.
const EMAIL = /^[^\s@"<>()[\]\\,;:]{1,64}@(?=[^@]{1,253}$)(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/**
 * The address trimmed, in Unicode NFC and lower-cased, or undefined when it is no sane
 * email. NFC first: "é" typed as one character or as "e" and a combining accent is the
 * same mailbox, and must not become two members.
 */
export function normalizeEmail(value: string): string | undefined {
  const email = value.trim().normalize("NFC").toLowerCase();
  return email.length <= EMAIL_MAX_LENGTH && EMAIL.test(email) ? email : undefined;
}

/** The normalized email; INVALID_ARGUMENT naming `field` otherwise. */
export function requireEmail(value: string, field: string): string {
  const email = normalizeEmail(value);
  if (email === undefined) throw fieldError(field, `must be an email address of at most ${EMAIL_MAX_LENGTH} characters`);
  return email;
}
