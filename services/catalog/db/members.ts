// The SQL of dashboard accounts (CONTRACT §10): members, memberships, invitations,
// sessions, the sign-in throttle and each store's audit log, and only here. The tables
// sit in the catalog schema beside stores (their foreign keys point at stores), so a
// helper may join stores; like ../store.ts, every helper takes `db: Db`, a pool or a
// transaction, and times are compared against the database's clock.
import type { Role } from "../../../common/roles.js";
import { transaction, type Db, type Sql } from "../../../platform/db.js";

/** The pool: the one thing that can open a transaction. */
export type Pool = Sql;

export { transaction, type Db };

// Members, invitations, sessions, the sign-in throttle.

export interface MemberRow {
  id: string;
  email: string;
  /** False until the member accepts an invitation, true after ("active"). */
  has_password: boolean;
  created_at: Date;
  /** The latest new session (sign-in, invitation or reset); null if never. */
  last_signed_in_at: Date | null;
}

/** A member with the stored password hash, for sign-in only. */
export interface MemberCredentials extends MemberRow {
  password_hash: string | null;
}

/** A member as one store sees them: with their role there. */
export interface StoreMemberRow extends MemberRow {
  role: Role;
}

export interface MemberStoreRow {
  id: string;
  name: string;
  role: Role;
}

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

export interface ThrottlePolicy {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

/** A pending invitation as the Team page lists it, with the role it gives once accepted. */
export interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  created_at: Date;
  expires_at: Date;
}

/** What a one-time link is now (CheckLink). */
export type LinkState = "pending" | "used" | "expired" | "unknown";

export interface NewInvitation {
  member_id: string;
  store_id: string;
  token_hash: Buffer;
  /** The role accepting it gives; a member already in the store keeps theirs. */
  role: Role;
}

/** An invitation that was open and has just been used: whom it adds to which store, as what. */
export interface UsedInvitation {
  member_id: string;
  store_id: string;
  role: Role;
}

const memberColumns = (db: Db) => db`m.id, m.email, m.created_at, m.last_signed_in_at, (m.password_hash is not null) as has_password`;

/** The member with this (normalized) email, created when there is none; safe when two invitations race. */
export async function upsertMember(db: Db, email: string): Promise<MemberRow> {
  const [row] = await db<MemberRow[]>`
    insert into members as m (email) values (${email})
    on conflict (email) do update set email = excluded.email
    returning ${memberColumns(db)}`;
  return row!;
}

/** Makes the member a member of the store with `role`; one who already is keeps their role. The role they hold. */
export async function addMembership(db: Db, memberId: string, storeId: string, role: Role): Promise<Role> {
  const [row] = await db<{ role: Role }[]>`
    with added as (
      insert into memberships (store_id, member_id, role) values (${storeId}, ${memberId}, ${role})
      on conflict do nothing returning role
    )
    select role from added
    union all
    select role from memberships where store_id = ${storeId} and member_id = ${memberId} and not exists (select 1 from added)`;
  // A concurrent invitation may have added them after this statement's snapshot: theirs is the role.
  return row?.role ?? role;
}

/**
 * Serializes the changes of a store's team (roles, removals) until the transaction
 * ends, so "at least one owner" is checked against what the other change left. NO KEY
 * UPDATE: inserts that merely point at the store are not held up.
 */
export async function lockTeam(db: Db, storeId: string): Promise<void> {
  await db`select 1 from stores where id = ${storeId} for no key update`;
}

/** The member's role in the store; undefined when they are not a member of it. */
export async function findMembership(db: Db, storeId: string, memberId: string): Promise<StoreMemberRow | undefined> {
  const [row] = await db<StoreMemberRow[]>`
    select ${memberColumns(db)}, ms.role from members m
    join memberships ms on ms.member_id = m.id
    where ms.store_id = ${storeId} and ms.member_id = ${memberId}`;
  return row;
}

export async function countOwners(db: Db, storeId: string): Promise<number> {
  const [row] = await db<{ owners: number }[]>`
    select count(*)::int as owners from memberships where store_id = ${storeId} and role = 'owner'`;
  return row!.owners;
}

/** Sets the member's role in the store; undefined when they are not a member of it. */
export async function setMembershipRole(db: Db, storeId: string, memberId: string, role: Role): Promise<StoreMemberRow | undefined> {
  const [row] = await db<StoreMemberRow[]>`
    with changed as (
      update memberships set role = ${role} where store_id = ${storeId} and member_id = ${memberId} returning member_id, role
    )
    select ${memberColumns(db)}, c.role from members m join changed c on c.member_id = m.id`;
  return row;
}

/**
 * A new invitation of the member to the store, valid `ttlSeconds`; unused earlier ones
 * for the same member and store stop working, so only the latest link (and its role) is live.
 */
export async function replaceInvitation(db: Db, invitation: NewInvitation, ttlSeconds: number): Promise<{ created_at: Date; expires_at: Date }> {
  const [row] = await db<{ created_at: Date; expires_at: Date }[]>`
    with dropped as (
      delete from invitations
      where member_id = ${invitation.member_id} and store_id = ${invitation.store_id} and used_at is null
    )
    insert into invitations (token_hash, member_id, store_id, role, expires_at)
    values (${invitation.token_hash}, ${invitation.member_id}, ${invitation.store_id}, ${invitation.role}, clock_timestamp() + ${ttlSeconds} * interval '1 second')
    returning created_at, expires_at`;
  return row!;
}

/** An unused, unexpired invitation. */
export async function findOpenInvitation(db: Db, tokenHash: Buffer): Promise<{ member_id: string; store_id: string } | undefined> {
  const [row] = await db<{ member_id: string; store_id: string }[]>`
    select i.member_id, i.store_id from invitations i
    where i.token_hash = ${tokenHash} and i.used_at is null and i.expires_at > now()`;
  return row;
}

/**
 * Marks an open invitation used and answers whom it adds to which store, as what;
 * undefined when it is not open. The row lock makes a second, concurrent use wait and
 * then find it used.
 */
export async function useInvitation(db: Db, tokenHash: Buffer): Promise<UsedInvitation | undefined> {
  const [row] = await db<UsedInvitation[]>`
    update invitations i set used_at = clock_timestamp()
    where i.token_hash = ${tokenHash} and i.used_at is null and i.expires_at > now()
    returning i.member_id, i.store_id, i.role`;
  return row;
}

export async function setPasswordHash(db: Db, memberId: string, passwordHash: string): Promise<MemberRow> {
  const [row] = await db<MemberRow[]>`
    update members m set password_hash = ${passwordHash} where m.id = ${memberId}
    returning ${memberColumns(db)}`;
  return row!;
}

/**
 * Replaces the member's password hash with a stronger one of the same password, but
 * only while the stored hash is still `current`: a password set meanwhile (an accepted
 * invitation) is never overwritten by the old one. False when it was not replaced.
 */
export async function rehashPassword(db: Db, memberId: string, current: string, stronger: string): Promise<boolean> {
  const rows = await db`update members set password_hash = ${stronger} where id = ${memberId} and password_hash = ${current} returning 1`;
  return rows.length === 1;
}

export async function findMemberCredentials(db: Db, email: string): Promise<MemberCredentials | undefined> {
  const [row] = await db<MemberCredentials[]>`
    select ${memberColumns(db)}, m.password_hash from members m where m.email = ${email}`;
  return row;
}

/** The store's members, by email. */
export async function listMembers(db: Db, storeId: string): Promise<StoreMemberRow[]> {
  return db<StoreMemberRow[]>`
    select ${memberColumns(db)}, ms.role from members m
    join memberships ms on ms.member_id = m.id
    where ms.store_id = ${storeId}
    order by m.email`;
}

/** Ends the membership; undefined when the member is not one of this store's. */
export async function removeMembership(db: Db, storeId: string, memberId: string): Promise<StoreMemberRow | undefined> {
  const [row] = await db<StoreMemberRow[]>`
    with removed as (
      delete from memberships where store_id = ${storeId} and member_id = ${memberId} returning member_id, role
    )
    select ${memberColumns(db)}, r.role from members m join removed r on r.member_id = m.id`;
  return row;
}

/** The member's unused invitations to this store stop working. */
export async function dropInvitations(db: Db, memberId: string, storeId: string): Promise<void> {
  await db`delete from invitations where member_id = ${memberId} and store_id = ${storeId} and used_at is null`;
}

/**
 * Forgets the password of a member who belongs to no store any more, so a later
 * invitation starts over instead of reviving the old password.
 */
export async function clearPasswordIfStoreless(db: Db, memberId: string): Promise<void> {
  await db`
    update members set password_hash = null
    where id = ${memberId} and not exists (select 1 from memberships where member_id = ${memberId})`;
}

/** The stores the member belongs to, by name. */
export async function memberStores(db: Db, memberId: string): Promise<MemberStoreRow[]> {
  return db<MemberStoreRow[]>`
    select s.id, s.name, ms.role from stores s join memberships ms on ms.store_id = s.id
    where ms.member_id = ${memberId}
    order by s.name, s.id`;
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

// Pending invitations (the Team page) and the state of one-time links.

/** The store's invitations that can still be used, newest first, with the role they give. */
export async function listOpenInvitations(db: Db, storeId: string): Promise<InvitationRow[]> {
  return db<InvitationRow[]>`
    select i.id, m.email, i.role, i.created_at, i.expires_at from invitations i
    join members m on m.id = i.member_id
    where i.store_id = ${storeId} and i.used_at is null and i.expires_at > now()
    order by i.created_at desc, i.id`;
}

/**
 * Deletes a pending invitation of the store; undefined when there is none with this id.
 * Nothing else changes: a pending invitation gave no membership to take back.
 */
export async function revokeInvitation(db: Db, storeId: string, invitationId: string): Promise<InvitationRow | undefined> {
  const [row] = await db<InvitationRow[]>`
    with revoked as (
      delete from invitations
      where id = ${invitationId} and store_id = ${storeId} and used_at is null and expires_at > now()
      returning id, member_id, role, created_at, expires_at
    )
    select r.id, m.email, r.role, r.created_at, r.expires_at from revoked r join members m on m.id = r.member_id`;
  return row;
}

/** An invitation link's state; a used one is "unknown" once its member has left the store. */
export async function invitationLinkState(db: Db, tokenHash: Buffer): Promise<{ state: LinkState; email: string }> {
  const [row] = await db<{ state: LinkState; email: string }[]>`
    select case when i.used_at is not null then 'used' when i.expires_at <= now() then 'expired' else 'pending' end as state, m.email
    from invitations i
    join members m on m.id = i.member_id
    where i.token_hash = ${tokenHash}
      and (i.used_at is null or exists (select 1 from memberships ms where ms.member_id = i.member_id and ms.store_id = i.store_id))`;
  return row ?? { state: "unknown", email: "" };
}

// Password resets and their limits.

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

// The catalog's part of the store's audit log: the same table and statements as every
// service's (platform/audit-log.ts), plus an insert that answers with the rows.
export { listAudit, type AuditRow, type NewAuditEntry } from "../../../platform/audit-log.js";
import type { AuditRow, NewAuditEntry } from "../../../platform/audit-log.js";

export async function insertAuditEntries(db: Db, entries: NewAuditEntry[]): Promise<AuditRow[]> {
  if (entries.length === 0) return [];
  return db<AuditRow[]>`
    insert into audit_log ${db(entries.map((entry) => ({ ...entry, changes: db.json(entry.changes as never) })))}
    returning id, store_id, created_at, (extract(epoch from created_at) * 1000000)::bigint::text as micros, seq::text as seq,
      actor, action, target, target_label, changes`;
}

/**
 * How the catalog's other modules (stores, plans, items, keys, settings) write the
 * entry of a change into the log, inside the change's own transaction.
 */
export interface AuditWriter {
  insertAuditEntries: typeof insertAuditEntries;
}
