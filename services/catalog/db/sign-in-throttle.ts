// The sign_in_throttle table: recent failed sign-ins per email and the lock they start
// (docs/security.md).
import type { Db } from "../../../platform/db.js";

export interface ThrottlePolicy {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

/**
 * Counts a sign-in attempt for the email before its password is checked (a success
 * takes it back with clearSignInAttempts). False, counting nothing, while the email is
 * locked; the attempt that makes `maxFailures` within the window starts the lock. One
 * statement on one row: concurrent attempts are counted one after another.
 */
export async function claimSignInAttempt(db: Db, email: string, policy: ThrottlePolicy): Promise<boolean> {
  const windowStart = () => db`now() - ${policy.windowSeconds} * interval '1 second'`;
  const rows = await db`
    insert into sign_in_throttle as t (email, recent_attempts, locked_until)
    values (${email}, array[now()], case when 1 >= ${policy.maxFailures}::int then now() + ${policy.lockSeconds} * interval '1 second' end)
    on conflict (email) do update set
      recent_attempts = array_append(array(select a from unnest(t.recent_attempts) a where a > ${windowStart()} order by a), now()),
      locked_until = case
        when cardinality(array(select a from unnest(t.recent_attempts) a where a > ${windowStart()})) + 1 >= ${policy.maxFailures}::int
        then now() + ${policy.lockSeconds} * interval '1 second'
      end
    where t.locked_until is null or t.locked_until <= now()
    returning 1`;
  return rows.length === 1;
}

export async function clearSignInAttempts(db: Db, email: string): Promise<void> {
  await db`delete from sign_in_throttle where email = ${email}`;
}
