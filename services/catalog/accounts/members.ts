// Members of stores (CONTRACT §8 `user invite|list|remove`, §10 Accounts): invited by
// email with a one-time link, active once they set a password. One account per email:
// an invitation to a second store adds that store to the same account.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "../../lib/logger.js";
import type { Stores } from "../merchant-stores.js";
import { authenticationFailed, INVITATION_TTL_SECONDS } from "./account-policy.js";
import type { MemberRow, Pool } from "./account-store.js";
import type * as sqlStore from "./account-store.js";
import type { MemberSessions, SignedIn } from "./member-sessions.js";
import { hashPassword, SCRYPT_PARAMS, type ScryptParams } from "./passwords.js";
import { generateToken, hashToken, isWellFormedToken } from "./tokens.js";

export interface Invitation {
  member: MemberRow;
  /** Shown once; only its hash is stored. */
  token: string;
  expiresAt: Date;
}

export type MembersStore = Pick<
  typeof sqlStore,
  | "transaction"
  | "upsertMember"
  | "addMembership"
  | "replaceInvitation"
  | "findOpenInvitation"
  | "useInvitation"
  | "setPasswordHash"
  | "deleteSessionsOfMember"
  | "clearSignInAttempts"
  | "listMembers"
  | "removeMembership"
  | "dropInvitations"
  | "clearPasswordIfStoreless"
>;

export function createMembers({
  sql,
  store,
  stores,
  sessions,
  scryptParams = SCRYPT_PARAMS,
  logger,
}: {
  sql: Pool;
  store: MembersStore;
  stores: Pick<Stores, "get">;
  sessions: Pick<MemberSessions, "start">;
  /** Default SCRYPT_PARAMS; see CatalogDomainDeps. */
  scryptParams?: ScryptParams;
  logger: Logger;
}) {
  return {
    /**
     * Invites a (normalized) email to the store: the member and membership when they
     * are new, and a fresh invitation that replaces any unused earlier one for this store.
     */
    async invite(storeId: string, email: string): Promise<Invitation> {
      const owner = await stores.get(storeId);
      const token = generateToken();
      const { member, expires_at } = await store.transaction(sql, async (tx) => {
        const member = await store.upsertMember(tx, email);
        await store.addMembership(tx, member.id, owner.id);
        const { expires_at } = await store.replaceInvitation(tx, { member_id: member.id, store_id: owner.id, token_hash: hashToken(token) }, INVITATION_TTL_SECONDS);
        return { member, expires_at };
      });
      logger.info({ storeId: owner.id, memberId: member.id }, "member invited");
      return { member, token, expiresAt: expires_at };
    },

    /**
     * Uses the invitation: sets the member's password and signs them in. The password
     * must already have passed requirePassword. A member who already had a password
     * (invited into another store) gets the new one: the operator sent the link to the
     * owner of the email, and a password change ends every older session.
     */
    async accept(token: string, password: string): Promise<SignedIn> {
      if (!isWellFormedToken(token)) throw authenticationFailed();
      const tokenHash = hashToken(token);
      // A cheap look first, so a made-up token never costs a scrypt; the claim below decides.
      if (!(await store.findOpenInvitation(sql, tokenHash))) throw authenticationFailed();
      const passwordHash = await hashPassword(password, scryptParams);
      const signedIn = await store.transaction(sql, async (tx) => {
        const invitation = await store.useInvitation(tx, tokenHash);
        if (!invitation) return undefined;
        await store.deleteSessionsOfMember(tx, invitation.member_id);
        const member = await store.setPasswordHash(tx, invitation.member_id, passwordHash);
        // Failures counted against the old password say nothing about the new one.
        await store.clearSignInAttempts(tx, member.email);
        const started = await sessions.start(tx, member);
        return started && { ...started, storeId: invitation.store_id };
      });
      if (!signedIn) throw authenticationFailed();
      logger.info({ storeId: signedIn.storeId, memberId: signedIn.member.id }, "invitation accepted");
      return { member: signedIn.member, session: signedIn.session };
    },

    /** The store's members, by email; NOT_FOUND for an unknown store. */
    async list(storeId: string): Promise<MemberRow[]> {
      const owner = await stores.get(storeId);
      return store.listMembers(sql, owner.id);
    },

    /**
     * Removes the member from the store and ends all their sessions at once (a session
     * is not tied to one store). NOT_FOUND for an unknown store or a member of another.
     */
    async remove(storeId: string, memberId: string): Promise<MemberRow> {
      const owner = await stores.get(storeId);
      const member = await store.transaction(sql, async (tx) => {
        const removed = await store.removeMembership(tx, owner.id, memberId);
        if (!removed) return undefined;
        await store.deleteSessionsOfMember(tx, memberId);
        await store.dropInvitations(tx, memberId, owner.id);
        await store.clearPasswordIfStoreless(tx, memberId);
        return removed;
      });
      if (!member) throw new ConnectError(`member ${memberId} not found in store ${owner.id}`, Code.NotFound);
      logger.info({ storeId: owner.id, memberId }, "member removed");
      return member;
    },
  };
}

export type Members = ReturnType<typeof createMembers>;
