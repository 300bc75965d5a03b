// Members of stores (docs/cli.md, docs/dashboard.md#accounts, docs/team.md#invitations): invited by
// email with a one-time link, a member of the store once they accept it. One account per
// email: an invitation to a second store adds that store to the same account, and only
// when it is accepted. Until then the inviting store sees a pending invitation that
// looks the same whether or not the address already has an account (docs/team.md#invitations).
import { Code, ConnectError } from "@connectrpc/connect";
import type { Actor } from "../../../common/actor.js";
import { auditTarget, MEMBER_API_KEYS_FIELD } from "../../../common/audit.js";
import { LAST_OWNER_TEXT, type Role } from "../../../common/roles.js";
import { auditEntry, fieldChanges } from "../../../platform/audit-log.js";
import { transaction, type Db, type Sql } from "../../../platform/db.js";
import type { Logger } from "../../../platform/logger.js";
import { keyLabel } from "../api-keys.js";
import * as keys from "../db/api-keys.js";
import { insertAuditEntries } from "../db/audit.js";
import * as invitations from "../db/invitations.js";
import type { InvitationRow, LinkState } from "../db/invitations.js";
import * as members from "../db/members.js";
import type { StoreMemberRow } from "../db/members.js";
import { deleteSessionsOfMember } from "../db/sessions.js";
import { clearSignInAttempts } from "../db/sign-in-throttle.js";
import type { Stores } from "../merchant-stores.js";
import { authenticationFailed, INVITATION_TTL_SECONDS } from "./account-policy.js";
import type { AccountMail } from "./account-mail.js";
import type { MemberSessions, SignedIn } from "./member-sessions.js";
import { hashPassword, SCRYPT_PARAMS, type ScryptParams } from "./passwords.js";
import { generateToken, hashToken, isWellFormedToken } from "./tokens.js";

export interface Invitation {
  /**
   * Whom the invitation is for, as the inviting store may see them: a member of the
   * store as the Team page lists them; anyone else as a pending invitee, never with their
   * status, creation or sign-in elsewhere.
   */
  member: StoreMemberRow;
  /** Shown once; only its hash is stored. */
  token: string;
  expiresAt: Date;
}

/** FAILED_PRECONDITION: a store always keeps at least one owner (docs/team.md#roles). */
export function lastOwner(): ConnectError {
  return new ConnectError(LAST_OWNER_TEXT, Code.FailedPrecondition);
}

export function createMembers({
  sql,
  stores,
  sessions,
  mail,
  scryptParams = SCRYPT_PARAMS,
  logger,
}: {
  sql: Sql;
  stores: Pick<Stores, "get">;
  sessions: Pick<MemberSessions, "start">;
  /** Mails each invitation's link once the invitation is stored. */
  mail: Pick<AccountMail, "invitation">;
  /** Default SCRYPT_PARAMS; see CatalogDomainDeps. */
  scryptParams?: ScryptParams;
  logger: Logger;
}) {
  /** FAILED_PRECONDITION unless the store has an owner besides the one about to go; under lockTeam. */
  async function keepAnOwner(tx: Db, storeId: string): Promise<void> {
    if ((await members.countOwners(tx, storeId)) <= 1) throw lastOwner();
  }

  return {
    /**
     * Invites a (normalized) email to the store: the account when the email has none, and
     * a fresh invitation giving `role` that replaces any unused earlier one for this store.
     * No membership until it is accepted; a member already in the store keeps their role.
     * Audited as `actor`; the link is mailed after the commit (a mail server that is away
     * delays it).
     */
    async invite(storeId: string, email: string, role: Role, actor: Actor): Promise<Invitation> {
      const owner = await stores.get(storeId);
      const token = generateToken();
      const { member, expires_at } = await transaction(sql, async (tx) => {
        const account = await members.upsertMember(tx, email);
        const current = await members.findMembership(tx, owner.id, account.id);
        const gives = current?.role ?? role;
        const invitation = await invitations.replaceInvitation(tx, { member_id: account.id, store_id: owner.id, token_hash: hashToken(token), role: gives }, INVITATION_TTL_SECONDS);
        await insertAuditEntries(tx, [auditEntry(owner.id, actor, "member.invited", auditTarget("member", account.email))]);
        // Whether the email had an account, when it was made and when it last signed in
        // belong to the stores it is a member of, not to this one.
        const invitee: StoreMemberRow = { id: account.id, email: account.email, has_password: false, created_at: invitation.created_at, last_signed_in_at: null, role: gives };
        return { member: current ?? invitee, expires_at: invitation.expires_at };
      });
      logger.info({ storeId: owner.id, memberId: member.id }, "member invited");
      mail.invitation({ email: member.email, storeName: owner.name, role: member.role, token, expiresAt: expires_at });
      return { member, token, expiresAt: expires_at };
    },

    /**
     * Uses the invitation: makes the membership with the invitation's role (a member
     * already in the store keeps theirs), sets the password and signs them in. The
     * password must already have passed requirePassword. Someone who already had a
     * password (a member of another store) gets the new one: the link reached the owner
     * of the mailbox, as a reset link does, and a password change ends every older session.
     */
    async accept(token: string, password: string): Promise<SignedIn> {
      if (!isWellFormedToken(token)) throw authenticationFailed();
      const tokenHash = hashToken(token);
      // A cheap look first, so a made-up token never costs a scrypt; the claim below decides.
      if (!(await invitations.findOpenInvitation(sql, tokenHash))) throw authenticationFailed();
      const passwordHash = await hashPassword(password, scryptParams);
      const signedIn = await transaction(sql, async (tx) => {
        const invitation = await invitations.useInvitation(tx, tokenHash);
        if (!invitation) return undefined;
        await members.addMembership(tx, invitation.member_id, invitation.store_id, invitation.role);
        await deleteSessionsOfMember(tx, invitation.member_id);
        const member = await members.setPasswordHash(tx, invitation.member_id, passwordHash);
        // Failures counted against the old password say nothing about the new one.
        await clearSignInAttempts(tx, member.email);
        const started = await sessions.start(tx, member);
        return started && { ...started, storeId: invitation.store_id };
      });
      if (!signedIn) throw authenticationFailed();
      logger.info({ storeId: signedIn.storeId, memberId: signedIn.member.id }, "invitation accepted");
      return { member: signedIn.member, session: signedIn.session };
    },

    /** The store's invitations that can still be used, newest first; NOT_FOUND for an unknown store. */
    async invitations(storeId: string): Promise<InvitationRow[]> {
      const owner = await stores.get(storeId);
      return invitations.listOpenInvitations(sql, owner.id);
    },

    /**
     * The pending invitation's link stops working, audited with the change; no membership
     * and no session changes, here or in any other store. NOT_FOUND for an unknown store,
     * or an invitation of another store or no longer pending.
     */
    async revokeInvitation(storeId: string, invitationId: string, actor: Actor): Promise<InvitationRow> {
      const owner = await stores.get(storeId);
      const revoked = await transaction(sql, async (tx) => {
        const row = await invitations.revokeInvitation(tx, owner.id, invitationId);
        if (row) await insertAuditEntries(tx, [auditEntry(owner.id, actor, "invitation.revoked", auditTarget("member", row.email))]);
        return row;
      });
      if (!revoked) throw new ConnectError(`invitation ${invitationId} not found in store ${owner.id}`, Code.NotFound);
      logger.info({ storeId: owner.id, invitationId }, "invitation revoked");
      return revoked;
    },

    /** What an invitation link is now; a malformed token is "unknown" without a lookup. */
    async linkState(token: string): Promise<{ state: LinkState; email: string }> {
      if (!isWellFormedToken(token)) return { state: "unknown", email: "" };
      return invitations.invitationLinkState(sql, hashToken(token));
    },

    /** The store's members, by email; NOT_FOUND for an unknown store. */
    async list(storeId: string): Promise<StoreMemberRow[]> {
      const owner = await stores.get(storeId);
      return members.listMembers(sql, owner.id);
    },

    /**
     * Removes the member from the store and ends all their sessions at once (a session
     * is not tied to one store). The API keys they made in the store are revoked with
     * them, unless `keepApiKeys`: a key must not outlive the person who may answer for
     * it by accident. The audit entry names the keys either way. NOT_FOUND for an
     * unknown store or a member of another.
     */
    async remove(storeId: string, memberId: string, actor: Actor, { keepApiKeys = false } = {}): Promise<{ member: StoreMemberRow; apiKeys: string[] }> {
      const owner = await stores.get(storeId);
      const result = await transaction(sql, async (tx) => {
        await members.lockTeam(tx, owner.id);
        const current = await members.findMembership(tx, owner.id, memberId);
        if (!current) return undefined;
        if (current.role === "owner") await keepAnOwner(tx, owner.id);
        const removed = await members.removeMembership(tx, owner.id, memberId);
        if (!removed) return undefined;
        const touched = keepApiKeys ? await keys.liveKeysOfMember(tx, owner.id, memberId) : await keys.revokeKeysOfMember(tx, owner.id, memberId);
        const apiKeys = touched.map(keyLabel);
        const changes = apiKeys.length > 0 ? [{ field: MEMBER_API_KEYS_FIELD, before: apiKeys.join(", "), after: keepApiKeys ? "kept" : "revoked" }] : [];
        await insertAuditEntries(tx, [auditEntry(owner.id, actor, "member.removed", auditTarget("member", removed.email), { changes })]);
        await deleteSessionsOfMember(tx, memberId);
        await invitations.dropInvitations(tx, memberId, owner.id);
        await members.clearPasswordIfStoreless(tx, memberId);
        return { member: removed, apiKeys };
      });
      if (!result) throw new ConnectError(`member ${memberId} not found in store ${owner.id}`, Code.NotFound);
      logger.info({ storeId: owner.id, memberId, apiKeys: result.apiKeys.length, keptApiKeys: keepApiKeys }, "member removed");
      return result;
    },

    /**
     * Gives the member `role` in the store, audited when it changes anything. NOT_FOUND
     * for an unknown store or a member of another; FAILED_PRECONDITION for the last owner.
     */
    async setRole(storeId: string, memberId: string, role: Role, actor: Actor): Promise<StoreMemberRow> {
      const owner = await stores.get(storeId);
      const member = await transaction(sql, async (tx) => {
        await members.lockTeam(tx, owner.id);
        const current = await members.findMembership(tx, owner.id, memberId);
        if (!current || current.role === role) return current;
        if (current.role === "owner") await keepAnOwner(tx, owner.id);
        const changed = await members.setMembershipRole(tx, owner.id, memberId, role);
        const changes = fieldChanges({ role: current.role }, { role });
        await insertAuditEntries(tx, [auditEntry(owner.id, actor, "member.role_changed", auditTarget("member", current.email), { changes })]);
        return changed;
      });
      if (!member) throw new ConnectError(`member ${memberId} not found in store ${owner.id}`, Code.NotFound);
      logger.info({ storeId: owner.id, memberId, role }, "member role set");
      return member;
    },
  };
}

export type Members = ReturnType<typeof createMembers>;
