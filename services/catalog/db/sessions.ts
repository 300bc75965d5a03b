// The sessions table: a member's dashboard sessions, kept as a hash of the token, ended
// by idling or age against the database's clock (docs/team.md).
import type { Db } from "../../../platform/db.js";
import { memberColumns, type MemberRow } from "./members.js";

export interface SessionRow {
  id: string;
  member_id: string;
  created_at: Date;
  last_seen_at: Date;
}

export interface LiveSession {
  session: SessionRow;
  member: MemberRow;
  /** last_seen_at is older than the touch resolution asked for. */
  stale: boolean;
}

export interface SessionLimits {
  idleSeconds: number;
  maxAgeSeconds: number;
}

/** A new session; the member's last sign-in is now. */
export async function insertSession(db: Db, memberId: string, tokenHash: Buffer): Promise<SessionRow> {
  const [row] = await db<SessionRow[]>`
    with signed_in as (update members set last_signed_in_at = clock_timestamp() where id = ${memberId})
    insert into sessions (member_id, token_hash) values (${memberId}, ${tokenHash})
    returning id, member_id, created_at, last_seen_at`;
  return row!;
}

/** The session with this hash unless it has been idle or alive too long, with its member. */
export async function findLiveSession(db: Db, tokenHash: Buffer, limits: SessionLimits, touchSeconds: number): Promise<LiveSession | undefined> {
  const [row] = await db<(MemberRow & { session_id: string; session_created_at: Date; last_seen_at: Date; stale: boolean })[]>`
    select ${memberColumns(db)}, s.id as session_id, s.created_at as session_created_at, s.last_seen_at,
           s.last_seen_at < now() - ${touchSeconds} * interval '1 second' as stale
    from sessions s join members m on m.id = s.member_id
    where s.token_hash = ${tokenHash}
      and s.last_seen_at > now() - ${limits.idleSeconds} * interval '1 second'
      and s.created_at > now() - ${limits.maxAgeSeconds} * interval '1 second'`;
  if (!row) return undefined;
  const { session_id, session_created_at, last_seen_at, stale, ...member } = row;
  return { session: { id: session_id, member_id: member.id, created_at: session_created_at, last_seen_at }, member, stale };
}

/** Marks the session seen now, unless a concurrent request already did within `touchSeconds`. */
export async function touchSession(db: Db, sessionId: string, touchSeconds: number): Promise<void> {
  await db`
    update sessions set last_seen_at = now()
    where id = ${sessionId} and last_seen_at < now() - ${touchSeconds} * interval '1 second'`;
}

export async function deleteSession(db: Db, tokenHash: Buffer): Promise<void> {
  await db`delete from sessions where token_hash = ${tokenHash}`;
}

export async function deleteSessionsOfMember(db: Db, memberId: string): Promise<void> {
  await db`delete from sessions where member_id = ${memberId}`;
}
