// The password_resets and password_reset_throttle tables: one-time reset links, kept as
// a hash, and the requests counted per email and per client address (docs/team.md).
import type { Db } from "../../../platform/db.js";
import type { LinkState } from "./invitations.js";

/** A new reset link for the member, valid `ttlSeconds`; their unused earlier ones stop working. */
export async function replacePasswordReset(db: Db, memberId: string, tokenHash: Buffer, ttlSeconds: number): Promise<{ expires_at: Date }> {
  const [row] = await db<{ expires_at: Date }[]>`
    with dropped as (delete from password_resets where member_id = ${memberId} and used_at is null)
    insert into password_resets (token_hash, member_id, expires_at)
    values (${tokenHash}, ${memberId}, clock_timestamp() + ${ttlSeconds} * interval '1 second')
    returning expires_at`;
  return row!;
}

/** A reset link's state and whom it is for. */
export async function passwordResetLinkState(db: Db, tokenHash: Buffer): Promise<{ state: LinkState; email: string }> {
  const [row] = await db<{ state: LinkState; email: string }[]>`
    select case when r.used_at is not null then 'used' when r.expires_at <= now() then 'expired' else 'pending' end as state, m.email
    from password_resets r join members m on m.id = r.member_id
    where r.token_hash = ${tokenHash}`;
  return row ?? { state: "unknown", email: "" };
}

/**
 * Marks an open reset link used and answers whose it was; undefined when it is not
 * open. The row lock makes a second, concurrent use wait and then find it used.
 */
export async function usePasswordReset(db: Db, tokenHash: Buffer): Promise<{ member_id: string } | undefined> {
  const [row] = await db<{ member_id: string }[]>`
    update password_resets set used_at = clock_timestamp()
    where token_hash = ${tokenHash} and used_at is null and expires_at > now()
    returning member_id`;
  return row;
}

/** The member's other unused reset links stop working (one was just used). */
export async function dropPasswordResets(db: Db, memberId: string): Promise<void> {
  await db`delete from password_resets where member_id = ${memberId} and used_at is null`;
}

/**
 * Counts a reset request against `key` ("email:…" or "address:…"); false, counting
 * nothing, when `max` requests were counted within the window already. One statement
 * on one row: concurrent requests are counted one after another.
 */
export async function claimPasswordResetRequest(db: Db, key: string, max: number, windowSeconds: number): Promise<boolean> {
  const recent = (t: Db) => t`array(select a from unnest(t.recent_requests) a where a > now() - ${windowSeconds} * interval '1 second' order by a)`;
  const rows = await db`
    insert into password_reset_throttle as t (key, recent_requests) values (${key}, array[now()])
    on conflict (key) do update set recent_requests = array_append(${recent(db)}, now())
    where cardinality(${recent(db)}) < ${max}::int
    returning 1`;
  return rows.length === 1;
}
