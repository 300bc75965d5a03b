// Housekeeping of the accounts' tables, which sign-ins run now and then
// (accounts/member-sessions.ts): one sweep over sessions, one-time links and both
// throttles, each statement on its own.
import type { Db } from "../../../platform/db.js";
import type { SessionLimits } from "./sessions.js";

/**
 * Deletes sessions, one-time links and throttle rows that can no longer matter. Spent
 * links stay `keepSpentSeconds` past their expiry, so their page can still say so.
 */
export async function pruneAccounts(
  db: Db,
  limits: SessionLimits & { windowSeconds: number; resetWindowSeconds: number; keepSpentSeconds: number },
): Promise<void> {
  await db`
    delete from sessions
    where last_seen_at <= now() - ${limits.idleSeconds} * interval '1 second'
       or created_at <= now() - ${limits.maxAgeSeconds} * interval '1 second'`;
  await db`delete from invitations where expires_at <= now() - ${limits.keepSpentSeconds} * interval '1 second'`;
  await db`delete from password_resets where expires_at <= now() - ${limits.keepSpentSeconds} * interval '1 second'`;
  await db`
    delete from password_reset_throttle
    where recent_requests[cardinality(recent_requests)] <= now() - ${limits.resetWindowSeconds} * interval '1 second'`;
  await db`
    delete from sign_in_throttle
    where (locked_until is null or locked_until <= now())
      and recent_attempts[cardinality(recent_attempts)] <= now() - ${limits.windowSeconds} * interval '1 second'`;
}
