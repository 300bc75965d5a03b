// Members' dashboard sign-in and sessions (docs/dashboard.md#sign-in). Every failure — a malformed
// or unknown email, a member without a password, a wrong password, a locked email, a
// member of no store, an unknown or expired session — is the same UNAUTHENTICATED, and
// an unknown email costs the same scrypt as a wrong password, so neither the answer nor
// its timing tells whether an email has an account. A sign-in whose stored hash has
// older scrypt parameters stores a new one of the same password (passwords.ts).
import { auditTarget } from "../../../common/audit.js";
import { transaction, type Db, type Sql } from "../../../platform/db.js";
import type { Logger } from "../../../platform/logger.js";
import { insertAuditEntries } from "../db/audit.js";
import * as members from "../db/members.js";
import type { MemberRow, MemberStoreRow } from "../db/members.js";
import { pruneAccounts } from "../db/prune-accounts.js";
import * as sessions from "../db/sessions.js";
import type { SessionLimits } from "../db/sessions.js";
import { claimSignInAttempt, clearSignInAttempts, type ThrottlePolicy } from "../db/sign-in-throttle.js";
import {
  authenticationFailed,
  SESSION_IDLE_SECONDS,
  SESSION_MAX_AGE_SECONDS,
  PASSWORD_RESET_WINDOW_SECONDS,
  SESSION_TOUCH_SECONDS,
  sessionExpiresAt,
  SIGN_IN_FAILURE_WINDOW_SECONDS,
  SIGN_IN_LOCK_SECONDS,
  SIGN_IN_MAX_FAILURES,
  SPENT_LINK_KEEP_SECONDS,
} from "./account-policy.js";
import { normalizeEmail } from "./member-email.js";
import { hashPassword, isPlausiblePassword, needsRehash, SCRYPT_PARAMS, spendVerification, verifyPassword, type ScryptParams } from "./passwords.js";
import { generateToken, hashToken, isWellFormedToken } from "./tokens.js";

const LIMITS: SessionLimits = { idleSeconds: SESSION_IDLE_SECONDS, maxAgeSeconds: SESSION_MAX_AGE_SECONDS };
const THROTTLE: ThrottlePolicy = {
  maxFailures: SIGN_IN_MAX_FAILURES,
  windowSeconds: SIGN_IN_FAILURE_WINDOW_SECONDS,
  lockSeconds: SIGN_IN_LOCK_SECONDS,
};
/** Dead sessions, spent links and throttle rows are swept this often at most, on a sign-in. */
const PRUNE_EVERY_MS = 10 * 60_000;

export interface SignedIn {
  member: MemberRow;
  session: { token: string; expiresAt: Date };
}

export interface ResolvedSession {
  member: MemberRow;
  stores: MemberStoreRow[];
  sessionId: string;
}

export function createMemberSessions({
  sql,
  scryptParams = SCRYPT_PARAMS,
  logger,
}: {
  sql: Sql;
  /** What an older hash is upgraded to on sign-in. Default SCRYPT_PARAMS; see CatalogDomainDeps. */
  scryptParams?: ScryptParams;
  logger: Logger;
}) {
  let prunedAt = 0;

  /** Sweeping is housekeeping: its failure must not fail a sign-in. */
  async function pruneNow(): Promise<void> {
    if (Date.now() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = Date.now();
    try {
      await pruneAccounts(sql, {
        ...LIMITS,
        windowSeconds: SIGN_IN_FAILURE_WINDOW_SECONDS,
        resetWindowSeconds: PASSWORD_RESET_WINDOW_SECONDS,
        keepSpentSeconds: SPENT_LINK_KEEP_SECONDS,
      });
    } catch (error) {
      logger.warn({ err: { code: (error as { code?: unknown }).code } }, "pruning accounts failed");
    }
  }

  /**
   * Within `tx`: a new session for the member and `member.signed_in` in the log of each
   * store they belong to. Undefined, writing nothing, when they belong to none.
   */
  async function start(tx: Db, member: MemberRow): Promise<SignedIn | undefined> {
    const stores = await members.memberStores(tx, member.id);
    if (stores.length === 0) return undefined;
    const token = generateToken();
    const session = await sessions.insertSession(tx, member.id, hashToken(token));
    await insertAuditEntries(
      tx,
      stores.map((s) => ({ store_id: s.id, actor: member.email, action: "member.signed_in", target: auditTarget("member", member.email), target_label: "", changes: [] })),
    );
    return { member, session: { token, expiresAt: sessionExpiresAt(session.created_at, session.last_seen_at) } };
  }

  return {
    start,

    async signIn(emailInput: string, password: string): Promise<SignedIn> {
      await pruneNow();
      const email = normalizeEmail(emailInput);
      // No account can have a malformed email, so refusing it at once tells nothing.
      if (email === undefined) throw authenticationFailed();
      if (!(await claimSignInAttempt(sql, email, THROTTLE))) {
        logger.info({ reason: "locked" }, "sign-in refused");
        throw authenticationFailed();
      }
      const member = await members.findMemberCredentials(sql, email);
      let matches = false;
      if (member?.password_hash && isPlausiblePassword(password)) {
        matches = await verifyPassword(password, member.password_hash);
      } else {
        await spendVerification(password, scryptParams);
      }
      if (!member || !matches) {
        logger.info({ memberId: member?.id, reason: member ? "wrong or no password" : "unknown email" }, "sign-in refused");
        throw authenticationFailed();
      }
      const { password_hash: storedHash, ...row } = member;
      // Hashed before the transaction, which must not wait on scrypt.
      const strongerHash = needsRehash(storedHash!, scryptParams) ? await hashPassword(password, scryptParams) : undefined;
      let rehashed = false;
      const signedIn = await transaction(sql, async (tx) => {
        const started = await start(tx, row);
        if (started) {
          await clearSignInAttempts(tx, email);
          if (strongerHash) rehashed = await members.rehashPassword(tx, member.id, storedHash!, strongerHash);
        }
        return started;
      });
      if (!signedIn) {
        logger.info({ memberId: member.id, reason: "no store" }, "sign-in refused");
        throw authenticationFailed();
      }
      logger.info(rehashed ? { memberId: member.id, passwordRehashed: true } : { memberId: member.id }, "member signed in");
      return signedIn;
    },

    /** The live session's member and stores; refreshes last_seen_at at most once a minute. */
    async resolve(token: string): Promise<ResolvedSession> {
      if (!isWellFormedToken(token)) throw authenticationFailed();
      const live = await sessions.findLiveSession(sql, hashToken(token), LIMITS, SESSION_TOUCH_SECONDS);
      if (!live) throw authenticationFailed();
      const stores = await members.memberStores(sql, live.member.id);
      if (stores.length === 0) throw authenticationFailed();
      if (live.stale) await sessions.touchSession(sql, live.session.id, SESSION_TOUCH_SECONDS);
      return { member: live.member, stores, sessionId: live.session.id };
    },

    /** Ends the session; an unknown or malformed token is already ended. */
    async end(token: string): Promise<void> {
      if (isWellFormedToken(token)) await sessions.deleteSession(sql, hashToken(token));
    },
  };
}

export type MemberSessions = ReturnType<typeof createMemberSessions>;
