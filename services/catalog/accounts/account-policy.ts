// The numbers behind dashboard accounts (docs/dashboard.md#accounts), in one place so the documented
// limits can be checked against a single page. Times are seconds because the SQL in
// ../db/ compares them with the database's clock, never the process's.
import { Code, ConnectError } from "@connectrpc/connect";

/** An invitation link works this long after it is issued. */
export const INVITATION_TTL_SECONDS = 72 * 3600;

/** A session ends after this long without a request… */
export const SESSION_IDLE_SECONDS = 12 * 3600;
/** …and this long after sign-in, however busy. */
export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 3600;
/**
 * last_seen_at is written at most this often, so resolving a session on every page is
 * a read; the idle timeout may therefore end a session up to this much early.
 */
export const SESSION_TOUCH_SECONDS = 60;

/** This many failed sign-ins for one email within the window… */
export const SIGN_IN_MAX_FAILURES = 10;
export const SIGN_IN_FAILURE_WINDOW_SECONDS = 15 * 60;
/** …lock that email for this long, even against the right password. */
export const SIGN_IN_LOCK_SECONDS = 15 * 60;

export const PASSWORD_MIN_LENGTH = 12;
/** Long enough for any passphrase, short enough that nobody feeds scrypt megabytes. */
export const PASSWORD_MAX_LENGTH = 1024;

/** The one answer to every failed authentication: it must not say which check failed. */
export const AUTHENTICATION_FAILED = "invalid credentials";

export function authenticationFailed(): ConnectError {
  return new ConnectError(AUTHENTICATION_FAILED, Code.Unauthenticated);
}

/** When a session ends if nobody uses it again: the earlier of the idle and the absolute limit. */
export function sessionExpiresAt(createdAt: Date, lastSeenAt: Date): Date {
  return new Date(Math.min(lastSeenAt.getTime() + SESSION_IDLE_SECONDS * 1000, createdAt.getTime() + SESSION_MAX_AGE_SECONDS * 1000));
}

/** A password reset link works this long after it is mailed. */
export const PASSWORD_RESET_TTL_SECONDS = 3600;
/** Reset requests counted per email and per client address within this window… */
export const PASSWORD_RESET_WINDOW_SECONDS = 3600;
/** …at most this many mail a link for one email… */
export const PASSWORD_RESETS_PER_EMAIL = 3;
/** …and this many are accepted from one address, whatever the emails. */
export const PASSWORD_RESETS_PER_ADDRESS = 10;
/**
 * Used and expired one-time links are kept this long, so their page can say "used" or
 * "expired" rather than "not valid"; then they are pruned.
 */
export const SPENT_LINK_KEEP_SECONDS = 30 * 24 * 3600;
