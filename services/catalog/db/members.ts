// The members and memberships tables: one account per (normalized) email, and its role
// in each store it belongs to (docs/team.md). The tables sit in the catalog schema beside
// stores, whose rows their foreign keys point at, so a statement here may join stores.
// Times are compared against the database's clock, never the process's.
import type { Role } from "../../../common/roles.js";
import type { Db } from "../../../platform/db.js";

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

/** A member's columns as MemberRow has them, from `members m`; sessions.ts reads them with a session. */
export const memberColumns = (db: Db) => db`m.id, m.email, m.created_at, m.last_signed_in_at, (m.password_hash is not null) as has_password`;

/** The member with this (normalized) email, created when there is none; safe when two invitations race. */
export async function upsertMember(db: Db, email: string): Promise<MemberRow> {
  const [row] = await db<MemberRow[]>`
    insert into members as m (email) values (${email})
    on conflict (email) do update set email = excluded.email
    returning ${memberColumns(db)}`;
  return row!;
}

export async function findMemberCredentials(db: Db, email: string): Promise<MemberCredentials | undefined> {
  const [row] = await db<MemberCredentials[]>`
    select ${memberColumns(db)}, m.password_hash from members m where m.email = ${email}`;
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

/**
 * Forgets the password of a member who belongs to no store any more, so a later
 * invitation starts over instead of reviving the old password.
 */
export async function clearPasswordIfStoreless(db: Db, memberId: string): Promise<void> {
  await db`
    update members set password_hash = null
    where id = ${memberId} and not exists (select 1 from memberships where member_id = ${memberId})`;
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

/** The stores the member belongs to, by name. */
export async function memberStores(db: Db, memberId: string): Promise<MemberStoreRow[]> {
  return db<MemberStoreRow[]>`
    select s.id, s.name, ms.role from stores s join memberships ms on ms.store_id = s.id
    where ms.member_id = ${memberId}
    order by s.name, s.id`;
}
