// An in-memory stand-in for services/catalog/store.ts: the same functions with the
// same answers (store scoping, unique slugs, key and token hashes, paging, expiry and
// the sign-in throttle against the fake clock), no database. The `db` argument is
// ignored; `transaction` rolls its changes back when `work` throws.
import { randomUUID } from "node:crypto";
import type { CatalogStore } from "../../services/catalog/domain.js";
import type { ApiKeyRow, AuditRow, ItemRow, MemberRow, Pool, SessionRow, StoreRow } from "../../services/catalog/store.js";

interface KeyRecord extends ApiKeyRow {
  key_hash: Buffer;
}

interface MemberRecord {
  id: string;
  email: string;
  password_hash: string | null;
  created_at: Date;
}

interface InvitationRecord {
  token_hash: Buffer;
  member_id: string;
  store_id: string;
  expires_at: Date;
  used_at: Date | null;
}

interface SessionRecord extends SessionRow {
  token_hash: Buffer;
}

interface State {
  stores: Map<string, StoreRow>;
  keys: Map<string, KeyRecord>;
  items: Map<string, Omit<ItemRow, "product_ids">>;
  bundles: Map<string, string[]>;
  members: Map<string, MemberRecord>;
  /** Keyed `${store_id}/${member_id}`. */
  memberships: Map<string, { store_id: string; member_id: string; created_at: Date }>;
  invitations: InvitationRecord[];
  sessions: Map<string, SessionRecord>;
  throttle: Map<string, { recent_attempts: Date[]; locked_until: Date | null }>;
  audit: (AuditRow & { seq: number })[];
}

/** A unique-constraint failure, shaped like PostgreSQL's. */
class UniqueViolation extends Error {
  code = "23505";
}

export function createFakeCatalogStore() {
  let state: State = {
    stores: new Map(),
    keys: new Map(),
    items: new Map(),
    bundles: new Map(),
    members: new Map(),
    memberships: new Map(),
    invitations: [],
    sessions: new Map(),
    throttle: new Map(),
    audit: [],
  };
  let tick = Date.parse("2025-01-01T00:00:00Z");
  // Strictly increasing times, so "oldest first" is well defined.
  const now = () => new Date(tick++);
  const secondsAgo = (seconds: number) => new Date(tick - seconds * 1000);
  const calls = { touchApiKey: 0, touchSession: 0 };
  let seq = 0;

  const copy = (from: State): State => ({
    stores: new Map([...from.stores].map(([id, row]) => [id, { ...row }])),
    keys: new Map([...from.keys].map(([id, row]) => [id, { ...row }])),
    items: new Map([...from.items].map(([id, row]) => [id, { ...row }])),
    bundles: new Map([...from.bundles].map(([id, ids]) => [id, [...ids]])),
    members: new Map([...from.members].map(([id, row]) => [id, { ...row }])),
    memberships: new Map([...from.memberships].map(([id, row]) => [id, { ...row }])),
    invitations: from.invitations.map((row) => ({ ...row })),
    sessions: new Map([...from.sessions].map(([id, row]) => [id, { ...row }])),
    throttle: new Map([...from.throttle].map(([email, row]) => [email, { ...row, recent_attempts: [...row.recent_attempts] }])),
    audit: from.audit.map((row) => ({ ...row })),
  });
  const memberRow = ({ password_hash, ...row }: MemberRecord): MemberRow => ({ ...row, has_password: password_hash !== null });
  const isMember = (storeId: string, memberId: string) => state.memberships.has(`${storeId}/${memberId}`);
  const openInvitation = (tokenHash: Buffer) =>
    state.invitations.find(
      (i) => i.token_hash.equals(tokenHash) && i.used_at === null && i.expires_at.getTime() > tick && isMember(i.store_id, i.member_id),
    );
  const sessionRow = ({ token_hash: _hash, ...row }: SessionRecord): SessionRow => ({ ...row });
  const auditRow = ({ seq: _seq, ...row }: AuditRow & { seq: number }): AuditRow => ({ ...row });
  const keyRow = ({ key_hash: _hash, ...row }: KeyRecord): ApiKeyRow => ({ ...row });
  const itemRow = (row: Omit<ItemRow, "product_ids">): ItemRow => ({ ...row, product_ids: [...(state.bundles.get(row.id) ?? [])] });

  const store: CatalogStore = {
    async transaction(_pool, work) {
      const before = copy(state);
      try {
        return await work(_pool);
      } catch (error) {
        state = before;
        throw error;
      }
    },
    async ping() {},

    async insertStore(_db, input) {
      const row: StoreRow = {
        id: randomUUID(),
        name: input.name,
        plan: input.plan,
        bank_name: input.bank?.bank_name ?? null,
        bank_code: input.bank?.bank_code ?? null,
        account_number: input.bank?.account_number ?? null,
        account_holder: input.bank?.account_holder ?? null,
        ...input.redirects,
        created_at: now(),
      };
      state.stores.set(row.id, row);
      return { ...row };
    },
    async findStore(_db, id) {
      const row = state.stores.get(id);
      return row && { ...row };
    },
    async updateStorePlan(_db, id, plan) {
      const row = state.stores.get(id);
      if (!row) return undefined;
      row.plan = plan;
      return { ...row };
    },
    async updateStoreSettings(_db, id, settings) {
      const row = state.stores.get(id);
      if (!row) return undefined;
      Object.assign(row, {
        bank_name: settings.bank?.bank_name ?? null,
        bank_code: settings.bank?.bank_code ?? null,
        account_number: settings.bank?.account_number ?? null,
        account_holder: settings.bank?.account_holder ?? null,
        ...settings.redirects,
      });
      return { ...row };
    },

    async insertApiKey(_db, key) {
      if ([...state.keys.values()].some((k) => k.key_hash.equals(key.key_hash))) throw new UniqueViolation("key_hash");
      const row: KeyRecord = { id: randomUUID(), ...key, created_at: now(), revoked_at: null, last_used_at: null };
      state.keys.set(row.id, row);
      return keyRow(row);
    },
    async revokeApiKey(_db, storeId, keyId) {
      const row = state.keys.get(keyId);
      if (!row || row.store_id !== storeId) return undefined;
      row.revoked_at ??= now();
      return keyRow(row);
    },
    async listApiKeys(_db, storeId) {
      return [...state.keys.values()]
        .filter((k) => k.store_id === storeId)
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1))
        .map(keyRow);
    },
    async findLiveKey(_db, keyHash, staleAfterSeconds) {
      const row = [...state.keys.values()].find((k) => k.key_hash.equals(keyHash) && k.revoked_at === null);
      if (!row) return undefined;
      const stale = row.last_used_at === null || row.last_used_at.getTime() < Date.now() - staleAfterSeconds * 1000;
      return { key_id: row.id, store_id: row.store_id, plan: state.stores.get(row.store_id)!.plan, stale };
    },
    async touchApiKey(_db, keyId) {
      calls.touchApiKey++;
      const row = state.keys.get(keyId);
      if (row) row.last_used_at = new Date();
    },

    async slugTaken(_db, storeId, slug) {
      return [...state.items.values()].some((item) => item.store_id === storeId && item.slug === slug);
    },
    async insertItem(_db, item) {
      if ([...state.items.values()].some((i) => i.store_id === item.store_id && i.slug === item.slug)) throw new UniqueViolation("slug");
      const id = randomUUID();
      state.items.set(id, { id, ...item, created_at: now() });
      return id;
    },
    async insertBundleProducts(_db, bundleId, productIds) {
      if (productIds.length === 0) return;
      for (const id of productIds) if (!state.items.has(id)) throw new Error(`foreign key: no item ${id}`);
      state.bundles.set(bundleId, [...productIds]);
    },
    async updateItem(_db, storeId, itemId, change) {
      const row = state.items.get(itemId);
      if (!row || row.store_id !== storeId) return false;
      if (change.price !== undefined) row.price = change.price;
      if (change.status !== undefined) row.status = change.status;
      return true;
    },
    async getItems(_db, storeId, ids) {
      return ids.flatMap((id) => {
        const row = state.items.get(id);
        return row && row.store_id === storeId ? [itemRow(row)] : [];
      });
    },
    async findStoreWithItems(db, storeId, ids) {
      const row = await store.findStore(db, storeId);
      return row && { store: row, items: await store.getItems(db, storeId, ids) };
    },
    async listPublished(_db, storeId, limit, offset) {
      const rows = [...state.items.values()]
        .filter((item) => item.store_id === storeId && item.status === "published")
        .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id))
        .slice(offset, offset + limit + 1)
        .map(itemRow);
      return { items: rows.slice(0, limit), hasMore: rows.length > limit };
    },

    async upsertMember(_db, email) {
      let row = [...state.members.values()].find((m) => m.email === email);
      if (!row) {
        row = { id: randomUUID(), email, password_hash: null, created_at: now() };
        state.members.set(row.id, row);
      }
      return memberRow(row);
    },
    async addMembership(_db, memberId, storeId) {
      if (!state.stores.has(storeId) || !state.members.has(memberId)) throw new Error("foreign key: no such store or member");
      const key = `${storeId}/${memberId}`;
      if (!state.memberships.has(key)) state.memberships.set(key, { store_id: storeId, member_id: memberId, created_at: now() });
    },
    async replaceInvitation(_db, invitation, ttlSeconds) {
      if (state.invitations.some((i) => i.token_hash.equals(invitation.token_hash))) throw new UniqueViolation("token_hash");
      state.invitations = state.invitations.filter((i) => !(i.member_id === invitation.member_id && i.store_id === invitation.store_id && i.used_at === null));
      const expires_at = new Date(now().getTime() + ttlSeconds * 1000);
      state.invitations.push({ ...invitation, expires_at, used_at: null });
      return { expires_at };
    },
    async findOpenInvitation(_db, tokenHash) {
      const row = openInvitation(tokenHash);
      return row && { member_id: row.member_id, store_id: row.store_id };
    },
    async useInvitation(_db, tokenHash) {
      const row = openInvitation(tokenHash);
      if (!row) return undefined;
      row.used_at = now();
      return { member_id: row.member_id, store_id: row.store_id };
    },
    async setPasswordHash(_db, memberId, passwordHash) {
      const row = state.members.get(memberId)!;
      row.password_hash = passwordHash;
      return memberRow(row);
    },
    async findMemberCredentials(_db, email) {
      const row = [...state.members.values()].find((m) => m.email === email);
      return row && { ...memberRow(row), password_hash: row.password_hash };
    },
    async listMembers(_db, storeId) {
      return [...state.members.values()]
        .filter((m) => isMember(storeId, m.id))
        .sort((a, b) => (a.email < b.email ? -1 : 1))
        .map(memberRow);
    },
    async removeMembership(_db, storeId, memberId) {
      if (!state.memberships.delete(`${storeId}/${memberId}`)) return undefined;
      return memberRow(state.members.get(memberId)!);
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
        .map((m) => state.stores.get(m.store_id)!)
        .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
        .map((s) => ({ id: s.id, name: s.name }));
    },
    async insertSession(_db, memberId, tokenHash) {
      if ([...state.sessions.values()].some((s) => s.token_hash.equals(tokenHash))) throw new UniqueViolation("token_hash");
      const at = now();
      const row: SessionRecord = { id: randomUUID(), member_id: memberId, token_hash: tokenHash, created_at: at, last_seen_at: at };
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
      state.invitations = state.invitations.filter((i) => i.expires_at.getTime() > tick);
      for (const [email, row] of state.throttle) {
        const last = row.recent_attempts.at(-1)!;
        if ((!row.locked_until || row.locked_until.getTime() <= tick) && last <= secondsAgo(limits.windowSeconds)) state.throttle.delete(email);
      }
    },

    async insertAuditEntries(_db, entries) {
      return entries.map((entry) => {
        if (!state.stores.has(entry.store_id)) throw new Error(`foreign key: no store ${entry.store_id}`);
        const row = { id: randomUUID(), seq: ++seq, created_at: now(), ...entry };
        state.audit.push(row);
        return auditRow(row);
      });
    },
    async listAudit(_db, storeId, limit) {
      return state.audit
        .filter((row) => row.store_id === storeId)
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || b.seq - a.seq)
        .slice(0, limit)
        .map(auditRow);
    },
  };

  return {
    store,
    /** Stands for the pool: the fake store never looks at it. */
    sql: {} as Pool,
    calls,
    /** The stored hash of a key, to check nothing but the hash is kept. */
    keyHashOf: (keyId: string) => state.keys.get(keyId)?.key_hash,
    /** Moves the store's clock on, for invitation, session and lock expiry. */
    advance(seconds: number) {
      tick += seconds * 1000;
    },
    /** What is stored for a member: the password hash, never the password. */
    passwordHashOf: (email: string) => [...state.members.values()].find((m) => m.email === email)?.password_hash,
    /** Every token hash stored, to check no token is kept as given. */
    storedTokenHashes: () => [...state.invitations.map((i) => i.token_hash), ...[...state.sessions.values()].map((s) => s.token_hash)],
  };
}
