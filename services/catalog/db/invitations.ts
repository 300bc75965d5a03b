// The invitations table: a one-time link, kept as a hash, that makes its member a member
// of the store with its role once accepted (docs/team.md), and what such a link is now.
import type { Role } from "../../../common/roles.js";
import type { Db } from "../../../platform/db.js";

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

/** The member's unused invitations to this store stop working. */
export async function dropInvitations(db: Db, memberId: string, storeId: string): Promise<void> {
  await db`delete from invitations where member_id = ${memberId} and store_id = ${storeId} and used_at is null`;
}

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
