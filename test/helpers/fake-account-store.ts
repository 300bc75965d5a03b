// An in-memory stand-in for services/catalog/accounts/account-store.ts: the same
// functions with the same answers (token hashes, expiry and the sign-in throttle
// against the fake clock), no database. Memberships, invitations and the audit log
// point at the stores of a fake-catalog-store.ts, as the tables' foreign keys do. The
// `db` argument is ignored; `transaction` rolls its changes back when `work` throws.
import { randomUUID } from "node:crypto";
import type { Role } from "../../common/roles.js";
import type { AuditRow, MemberRow, Pool, SessionRow, StoreMemberRow } from "../../services/catalog/db/members.js";
import type { AccountStore } from "../../services/catalog/domain.js";
import { fakeAuditRow, fakeListAudit } from "./fake-audit-log.js";

interface MemberRecord {
  id: string;
  email: string;
  password_hash: string | null;
  created_at: Date;
  last_signed_in_at: Date | null;
}

interface InvitationRecord {
  id: string;
  created_at: Date;
  token_hash: Buffer;
  member_id: string;
  store_id: string;
  role: Role;
  expires_at: Date;
  used_at: Date | null;
}

interface ResetRecord {
  token_hash: Buffer;
  member_id: string;
  expires_at: Date;
  used_at: Date | null;
}

interface SessionRecord extends SessionRow {
  token_hash: Buffer;
}

interface State {
  members: Map<string, MemberRecord>;
  /** Keyed `${store_id}/${member_id}`. */
  memberships: Map<string, { store_id: string; member_id: string; role: Role; created_at: Date }>;
  invitations: InvitationRecord[];
  sessions: Map<string, SessionRecord>;
  throttle: Map<string, { recent_attempts: Date[]; locked_until: Date | null }>;
  resets: ResetRecord[];
  resetThrottle: Map<string, Date[]>;
  audit: AuditRow[];
}

/** A unique-constraint failure, shaped like PostgreSQL's. */
class UniqueViolation extends Error {
  code = "23505";
}

/** `stores`: the catalog fake whose stores the accounts belong to. */
export function createFakeAccountStore(stores: { storeOf(id: string): { id: string; name: string } | undefined }) {
  let state: State = {
    members: new Map(),
    memberships: new Map(),
    invitations: [],
    sessions: new Map(),
    throttle: new Map(),
    resets: [],
    resetThrottle: new Map(),
    audit: [],
  };
  let tick = Date.parse("2025-01-01T00:00:00Z");
  // Strictly increasing times, so "oldest first" is well defined.
  const now = () => new Date(tick++);
  const secondsAgo = (seconds: number) => new Date(tick - seconds * 1000);
  const calls = { touchSession: 0 };

  const copy = (from: State): State => ({
    members: new Map([...from.members].map(([id, row]) => [id, { ...row }])),
    memberships: new Map([...from.memberships].map(([id, row]) => [id, { ...row }])),
    invitations: from.invitations.map((row) => ({ ...row })),
    sessions: new Map([...from.sessions].map(([id, row]) => [id, { ...row }])),
    throttle: new Map([...from.throttle].map(([email, row]) => [email, { ...row, recent_attempts: [...row.recent_attempts] }])),
    resets: from.resets.map((row) => ({ ...row })),
    resetThrottle: new Map([...from.resetThrottle].map(([key, times]) => [key, [...times]])),
    audit: from.audit.map((row) => ({ ...row })),
  });
  const memberRow = ({ password_hash, ...row }: MemberRecord): MemberRow => ({ ...row, has_password: password_hash !== null });
  const storeMemberRow = (storeId: string, memberId: string): StoreMemberRow | undefined => {
    const membership = state.memberships.get(`${storeId}/${memberId}`);
    return membership && { ...memberRow(state.members.get(memberId)!), role: membership.role };
  };
  const isMember = (storeId: string, memberId: string) => state.memberships.has(`${storeId}/${memberId}`);
  const isOpen = (i: InvitationRecord) => i.used_at === null && i.expires_at.getTime() > tick;
  const openInvitation = (tokenHash: Buffer) => state.invitations.find((i) => i.token_hash.equals(tokenHash) && isOpen(i));
  const sessionRow = ({ token_hash: _hash, ...row }: SessionRecord): SessionRow => ({ ...row });
  const invitationRow = (i: InvitationRecord) => ({
    id: i.id,
    email: state.members.get(i.member_id)!.email,
    role: i.role,
    created_at: i.created_at,
    expires_at: i.expires_at,
  });
  const linkState = (row: { used_at: Date | null; expires_at: Date } | undefined) =>
    !row ? ("unknown" as const) : row.used_at ? ("used" as const) : row.expires_at.getTime() <= tick ? ("expired" as const) : ("pending" as const);
  const openReset = (tokenHash: Buffer) => state.resets.find((r) => r.token_hash.equals(tokenHash) && r.used_at === null && r.expires_at.getTime() > tick);

  const store: AccountStore = {
    async transaction(_pool, work) {
      const before = copy(state);
      try {
        return await work(_pool);
      } catch (error) {
        state = before;
        throw error;
      }
    },

    async upsertMember(_db, email) {
      let row = [...state.members.values()].find((m) => m.email === email);
      if (!row) {
        row = { id: randomUUID(), email, password_hash: null, created_at: now(), last_signed_in_at: null };
        state.members.set(row.id, row);
      }
      return memberRow(row);
    },
    async addMembership(_db, memberId, storeId, role) {
      if (!stores.storeOf(storeId) || !state.members.has(memberId)) throw new Error("foreign key: no such store or member");
      const key = `${storeId}/${memberId}`;
      if (!state.memberships.has(key)) state.memberships.set(key, { store_id: storeId, member_id: memberId, role, created_at: now() });
      return state.memberships.get(key)!.role;
    },
    // One process, no interleaving inside a transaction's work: nothing to lock.
    async lockTeam() {},
    async findMembership(_db, storeId, memberId) {
      return storeMemberRow(storeId, memberId);
    },
    async countOwners(_db, storeId) {
      return [...state.memberships.values()].filter((m) => m.store_id === storeId && m.role === "owner").length;
    },
    async setMembershipRole(_db, storeId, memberId, role) {
      const membership = state.memberships.get(`${storeId}/${memberId}`);
      if (!membership) return undefined;
      membership.role = role;
      return storeMemberRow(storeId, memberId);
    },
    async replaceInvitation(_db, invitation, ttlSeconds) {
      if (state.invitations.some((i) => i.token_hash.equals(invitation.token_hash))) throw new UniqueViolation("token_hash");
      state.invitations = state.invitations.filter((i) => !(i.member_id === invitation.member_id && i.store_id === invitation.store_id && i.used_at === null));
      const created_at = now();
      const expires_at = new Date(created_at.getTime() + ttlSeconds * 1000);
      state.invitations.push({ ...invitation, id: randomUUID(), created_at, expires_at, used_at: null });
      return { created_at, expires_at };
    },
    async findOpenInvitation(_db, tokenHash) {
      const row = openInvitation(tokenHash);
      return row && { member_id: row.member_id, store_id: row.store_id };
    },
    async useInvitation(_db, tokenHash) {
      const row = openInvitation(tokenHash);
      if (!row) return undefined;
      row.used_at = now();
      return { member_id: row.member_id, store_id: row.store_id, role: row.role };
    },
    async setPasswordHash(_db, memberId, passwordHash) {
      const row = state.members.get(memberId)!;
      row.password_hash = passwordHash;
      return memberRow(row);
    },
    async rehashPassword(_db, memberId, current, stronger) {
      const row = state.members.get(memberId);
      if (row?.password_hash !== current) return false;
      row.password_hash = stronger;
      return true;
    },
    async findMemberCredentials(_db, email) {
      const row = [...state.members.values()].find((m) => m.email === email);
      return row && { ...memberRow(row), password_hash: row.password_hash };
    },
    async listMembers(_db, storeId) {
      return [...state.members.values()]
        .filter((m) => isMember(storeId, m.id))
        .sort((a, b) => (a.email < b.email ? -1 : 1))
        .map((m) => storeMemberRow(storeId, m.id)!);
    },
    async removeMembership(_db, storeId, memberId) {
      const row = storeMemberRow(storeId, memberId);
      if (!row) return undefined;
      state.memberships.delete(`${storeId}/${memberId}`);
      return row;
    },
    async dropInvitations(_db, memberId, storeId) {
      state.invitations = state.invitations.filter((i) => !(i.member_id === memberId && i.store_id === storeId && i.used_at === null));
    },
    async clearPasswordIfStoreless(_db, memberId) {
      const row = state.members.get(memberId);
      if (row && ![...state.memberships.values()].some((m) => m.member_id === memberId)) row.password_hash = null;
    },
    async memberStores(_db, memberId) {
      return [...state.memberships.values()]
        .filter((m) => m.member_id === memberId)
        .map((m) => ({ ...stores.storeOf(m.store_id)!, role: m.role }))
        .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
        .map((s) => ({ id: s.id, name: s.name, role: s.role }));
    },
    async insertSession(_db, memberId, tokenHash) {
      if ([...state.sessions.values()].some((s) => s.token_hash.equals(tokenHash))) throw new UniqueViolation("token_hash");
      const at = now();
      const row: SessionRecord = { id: randomUUID(), member_id: memberId, token_hash: tokenHash, created_at: at, last_seen_at: at };
      state.members.get(memberId)!.last_signed_in_at = at;
      state.sessions.set(row.id, row);
      return sessionRow(row);
    },
    async findLiveSession(_db, tokenHash, limits, touchSeconds) {
      const row = [...state.sessions.values()].find((s) => s.token_hash.equals(tokenHash));
      if (!row || row.last_seen_at <= secondsAgo(limits.idleSeconds) || row.created_at <= secondsAgo(limits.maxAgeSeconds)) return undefined;
      return { session: sessionRow(row), member: memberRow(state.members.get(row.member_id)!), stale: row.last_seen_at < secondsAgo(touchSeconds) };
    },
    async touchSession(_db, sessionId, touchSeconds) {
      calls.touchSession++;
      const row = state.sessions.get(sessionId);
      if (row && row.last_seen_at < secondsAgo(touchSeconds)) row.last_seen_at = now();
    },
    async deleteSession(_db, tokenHash) {
      for (const [id, row] of state.sessions) if (row.token_hash.equals(tokenHash)) state.sessions.delete(id);
    },
    async deleteSessionsOfMember(_db, memberId) {
      for (const [id, row] of state.sessions) if (row.member_id === memberId) state.sessions.delete(id);
    },
    async claimSignInAttempt(_db, email, policy) {
      const at = now();
      const row = state.throttle.get(email);
      if (row?.locked_until && row.locked_until > at) return false;
      const windowStart = at.getTime() - policy.windowSeconds * 1000;
      const recent = [...(row?.recent_attempts ?? []).filter((a) => a.getTime() > windowStart), at];
      const locked_until = recent.length >= policy.maxFailures ? new Date(at.getTime() + policy.lockSeconds * 1000) : null;
      state.throttle.set(email, { recent_attempts: recent, locked_until });
      return true;
    },
    async clearSignInAttempts(_db, email) {
      state.throttle.delete(email);
    },
    async pruneAccounts(_db, limits) {
      for (const [id, row] of state.sessions) {
        if (row.last_seen_at <= secondsAgo(limits.idleSeconds) || row.created_at <= secondsAgo(limits.maxAgeSeconds)) state.sessions.delete(id);
      }
      state.invitations = state.invitations.filter((i) => i.expires_at.getTime() > tick - limits.keepSpentSeconds * 1000);
      state.resets = state.resets.filter((r) => r.expires_at.getTime() > tick - limits.keepSpentSeconds * 1000);
      for (const [key, times] of state.resetThrottle) if (times.at(-1)! <= secondsAgo(limits.resetWindowSeconds)) state.resetThrottle.delete(key);
      for (const [email, row] of state.throttle) {
        const last = row.recent_attempts.at(-1)!;
        if ((!row.locked_until || row.locked_until.getTime() <= tick) && last <= secondsAgo(limits.windowSeconds)) state.throttle.delete(email);
      }
    },

    async listOpenInvitations(_db, storeId) {
      return state.invitations
        .filter((i) => i.store_id === storeId && isOpen(i))
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())
        .map(invitationRow);
    },
    async revokeInvitation(_db, storeId, invitationId) {
      const row = state.invitations.find((i) => i.id === invitationId && i.store_id === storeId && isOpen(i));
      if (!row) return undefined;
      state.invitations = state.invitations.filter((i) => i !== row);
      return invitationRow(row);
    },
    async invitationLinkState(_db, tokenHash) {
      const row = state.invitations.find((i) => i.token_hash.equals(tokenHash) && (i.used_at === null || isMember(i.store_id, i.member_id)));
      return { state: linkState(row), email: row ? state.members.get(row.member_id)!.email : "" };
    },
    async replacePasswordReset(_db, memberId, tokenHash, ttlSeconds) {
      state.resets = state.resets.filter((r) => !(r.member_id === memberId && r.used_at === null));
      const expires_at = new Date(now().getTime() + ttlSeconds * 1000);
      state.resets.push({ token_hash: tokenHash, member_id: memberId, expires_at, used_at: null });
      return { expires_at };
    },
    async passwordResetLinkState(_db, tokenHash) {
      const row = state.resets.find((r) => r.token_hash.equals(tokenHash));
      return { state: linkState(row), email: row ? state.members.get(row.member_id)!.email : "" };
    },
    async usePasswordReset(_db, tokenHash) {
      const row = openReset(tokenHash);
      if (!row) return undefined;
      row.used_at = now();
      return { member_id: row.member_id };
    },
    async dropPasswordResets(_db, memberId) {
      state.resets = state.resets.filter((r) => !(r.member_id === memberId && r.used_at === null));
    },
    async claimPasswordResetRequest(_db, key, max, windowSeconds) {
      const at = now();
      const recent = (state.resetThrottle.get(key) ?? []).filter((a) => a.getTime() > at.getTime() - windowSeconds * 1000);
      if (recent.length >= max) return false;
      state.resetThrottle.set(key, [...recent, at]);
      return true;
    },

    async insertAuditEntries(_db, entries) {
      // One statement's entries share their time (fake-audit-log.ts).
      const at = now();
      return entries.map((entry) => {
        if (!stores.storeOf(entry.store_id)) throw new Error(`foreign key: no store ${entry.store_id}`);
        const row = fakeAuditRow(entry, at);
        state.audit.push(row);
        return { ...row };
      });
    },
    async listAudit(_db, storeId, query) {
      return fakeListAudit(state.audit, storeId, query);
    },
  };

  return {
    store,
    /** Stands for the pool: the fake store never looks at it. */
    sql: {} as Pool,
    calls,
    /** Moves the store's clock on, for invitation, session and lock expiry. */
    advance(seconds: number) {
      tick += seconds * 1000;
    },
    /** What is stored for a member: the password hash, never the password. */
    passwordHashOf: (email: string) => [...state.members.values()].find((m) => m.email === email)?.password_hash,
    /** Sets a member's stored hash, as an older version of the service would have written it. */
    setPasswordHashOf(email: string, passwordHash: string) {
      const row = [...state.members.values()].find((m) => m.email === email);
      if (!row) throw new Error(`no member ${email}`);
      row.password_hash = passwordHash;
    },
    /** How many members there are, to check one email is one member. */
    memberCount: () => state.members.size,
    /** Every token hash stored, to check no token is kept as given. */
    storedTokenHashes: () => [
      ...state.invitations.map((i) => i.token_hash),
      ...state.resets.map((r) => r.token_hash),
      ...[...state.sessions.values()].map((s) => s.token_hash),
    ],
    /** How many sessions a member has right now. */
    sessionCountOf: (memberId: string) => [...state.sessions.values()].filter((s) => s.member_id === memberId).length,
  };
}
