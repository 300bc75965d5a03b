// An in-memory stand-in for services/catalog/store.ts: the same functions with the
// same answers (store scoping, unique slugs, key hashes, paging), no database. The `db`
// argument is ignored; `transaction` rolls its changes back when `work` throws. The
// accounts' SQL has its own stand-in, fake-account-store.ts, over this one's stores.
import { randomUUID } from "node:crypto";
import type { CatalogStore } from "../../services/catalog/domain.js";
import type { ApiKeyRow, ItemRow, Pool, StoreRow } from "../../services/catalog/db/items.js";

interface KeyRecord extends ApiKeyRow {
  key_hash: Buffer;
  created_by_member: string | null;
}

interface State {
  stores: Map<string, StoreRow>;
  keys: Map<string, KeyRecord>;
  items: Map<string, Omit<ItemRow, "product_ids">>;
  bundles: Map<string, string[]>;
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
  };
  let tick = Date.parse("2025-01-01T00:00:00Z");
  // Strictly increasing times, so "oldest first" is well defined.
  const now = () => new Date(tick++);
  const calls = { touchApiKey: 0 };

  const copy = (from: State): State => ({
    stores: new Map([...from.stores].map(([id, row]) => [id, { ...row }])),
    keys: new Map([...from.keys].map(([id, row]) => [id, { ...row }])),
    items: new Map([...from.items].map(([id, row]) => [id, { ...row }])),
    bundles: new Map([...from.bundles].map(([id, ids]) => [id, [...ids]])),
  });
  const keyRow = ({ key_hash: _hash, created_by_member: _member, ...row }: KeyRecord): ApiKeyRow => ({ ...row, scopes: [...row.scopes] });
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
      const row: KeyRecord = { id: randomUUID(), ...key, scopes: [...key.scopes], created_at: now(), revoked_at: null, last_used_at: null };
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
      return { key_id: row.id, store_id: row.store_id, plan: state.stores.get(row.store_id)!.plan, scopes: [...row.scopes], stale };
    },
    async revokeKeysOfMember(_db, storeId, memberId) {
      const mine = [...state.keys.values()].filter((k) => k.store_id === storeId && k.created_by_member === memberId && k.revoked_at === null);
      for (const row of mine) row.revoked_at = now();
      return mine.map(keyRow);
    },
    async liveKeysOfMember(_db, storeId, memberId) {
      return [...state.keys.values()].filter((k) => k.store_id === storeId && k.created_by_member === memberId && k.revoked_at === null).map(keyRow);
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
  };

  return {
    store,
    /** Stands for the pool: the fake store never looks at it. */
    sql: {} as Pool,
    calls,
    /** The stored hash of a key, to check nothing but the hash is kept. */
    keyHashOf: (keyId: string) => state.keys.get(keyId)?.key_hash,
    /** A store as stored, for fake-account-store.ts (memberships and the audit log point at stores). */
    storeOf: (id: string): StoreRow | undefined => state.stores.get(id),
    /** How many stores and items are stored (committed or inside the running transaction). */
    counts: () => ({ stores: state.stores.size, items: state.items.size }),
  };
}
