// "Forgot password?" (docs/team.md#forgot-password): a one-time link valid 1 h, mailed to a member who
// has a password. Asking always answers the same, known email or not, and is limited
// per email and per client address; a limit reached is silent too. Using the link sets
// the new password, ends every session of the member and signs this browser in.
import { auditTarget } from "../../../common/audit.js";
import { transaction, type Sql } from "../../../platform/db.js";
import type { Logger } from "../../../platform/logger.js";
import { insertAuditEntries } from "../db/audit.js";
import type { LinkState } from "../db/invitations.js";
import * as members from "../db/members.js";
import * as resets from "../db/password-resets.js";
import { deleteSessionsOfMember } from "../db/sessions.js";
import { clearSignInAttempts } from "../db/sign-in-throttle.js";
import type { AccountMail } from "./account-mail.js";
import {
  authenticationFailed,
  PASSWORD_RESET_TTL_SECONDS,
  PASSWORD_RESET_WINDOW_SECONDS,
  PASSWORD_RESETS_PER_ADDRESS,
  PASSWORD_RESETS_PER_EMAIL,
} from "./account-policy.js";
import { normalizeEmail } from "./member-email.js";
import type { MemberSessions, SignedIn } from "./member-sessions.js";
import { hashPassword, SCRYPT_PARAMS, type ScryptParams } from "./passwords.js";
import { generateToken, hashToken, isWellFormedToken } from "./tokens.js";

export function createPasswordResets({
  sql,
  sessions,
  mail,
  scryptParams = SCRYPT_PARAMS,
  logger,
}: {
  sql: Sql;
  sessions: Pick<MemberSessions, "start">;
  mail: Pick<AccountMail, "passwordReset">;
  scryptParams?: ScryptParams;
  logger: Logger;
}) {
  return {
    /**
     * Mails a reset link when the email is a member with a password in some store and
     * neither the email nor `address` is over its limit. Resolves the same way in every
     * case; only the log says which it was.
     */
    async request(emailInput: string, address: string): Promise<void> {
      // The address is counted first and for every request, so one client cannot walk
      // through a list of emails.
      if (!(await resets.claimPasswordResetRequest(sql, `address:${address}`, PASSWORD_RESETS_PER_ADDRESS, PASSWORD_RESET_WINDOW_SECONDS))) {
        logger.warn({ reason: "address limit" }, "password reset not sent");
        return;
      }
      const email = normalizeEmail(emailInput);
      if (email === undefined) {
        logger.info({ reason: "not an email" }, "password reset not sent");
        return;
      }
      if (!(await resets.claimPasswordResetRequest(sql, `email:${email}`, PASSWORD_RESETS_PER_EMAIL, PASSWORD_RESET_WINDOW_SECONDS))) {
        logger.warn({ reason: "email limit" }, "password reset not sent");
        return;
      }
      const member = await members.findMemberCredentials(sql, email);
      // An invited member without a password yet uses their invitation; a member of no
      // store cannot sign in anyway.
      if (!member?.password_hash || (await members.memberStores(sql, member.id)).length === 0) {
        logger.info({ memberId: member?.id, reason: member ? "no password or no store" : "unknown email" }, "password reset not sent");
        return;
      }
      const token = generateToken();
      const { expires_at } = await resets.replacePasswordReset(sql, member.id, hashToken(token), PASSWORD_RESET_TTL_SECONDS);
      logger.info({ memberId: member.id }, "password reset link issued");
      mail.passwordReset({ email: member.email, token, expiresAt: expires_at });
    },

    /** What a reset link is now; a malformed token is "unknown" without a lookup. */
    async linkState(token: string): Promise<{ state: LinkState; email: string }> {
      if (!isWellFormedToken(token)) return { state: "unknown", email: "" };
      return resets.passwordResetLinkState(sql, hashToken(token));
    },

    /**
     * Uses the link: the new password (already through requirePassword), every session
     * of the member ended, and a new one for this browser. A used, expired or unknown
     * link is UNAUTHENTICATED, like every failed authentication.
     */
    async reset(token: string, password: string): Promise<SignedIn> {
      if (!isWellFormedToken(token)) throw authenticationFailed();
      const tokenHash = hashToken(token);
      // A cheap look first, so a made-up token never costs a scrypt; the claim below decides.
      if ((await resets.passwordResetLinkState(sql, tokenHash)).state !== "pending") throw authenticationFailed();
      const passwordHash = await hashPassword(password, scryptParams);
      const signedIn = await transaction(sql, async (tx) => {
        // Thrown, not returned: nothing of a failed reset may commit.
        const used = await resets.usePasswordReset(tx, tokenHash);
        if (!used) throw authenticationFailed();
        await resets.dropPasswordResets(tx, used.member_id);
        await deleteSessionsOfMember(tx, used.member_id);
        const member = await members.setPasswordHash(tx, used.member_id, passwordHash);
        await clearSignInAttempts(tx, member.email);
        const started = await sessions.start(tx, member);
        if (!started) throw authenticationFailed();
        const stores = await members.memberStores(tx, member.id);
        await insertAuditEntries(
          tx,
          stores.map((s) => ({ store_id: s.id, actor: member.email, action: "member.password_reset", target: auditTarget("member", member.email), target_label: "", changes: [] })),
        );
        return started;
      });
      logger.info({ memberId: signedIn.member.id }, "password reset; other sessions ended");
      return signedIn;
    },
  };
}

export type PasswordResets = ReturnType<typeof createPasswordResets>;
