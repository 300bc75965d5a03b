// The catalog service's SQL for stores, API keys and items. Every helper takes `db: Db`,
// a pool or a transaction (postgres.js `ISql`), so a caller decides what runs in one
// transaction; `transaction` opens one on the pool. The accounts' SQL (members,
// sessions, the sign-in throttle, the audit log) is accounts/account-store.ts; no other
// module of services/catalog runs SQL.
import { ping, transaction, type Db, type Sql } from "../../../platform/db.js";
import type { PlanName } from "../../../common/plans.js";
import type { Scope } from "../../../common/scopes.js";

export type { PlanName };

/** The pool: the one thing that can open a transaction. */
export type Pool = Sql;

export { ping, transaction, type Db };

export type ItemStatusName = "draft" | "published" | "archived";
export type ItemTypeName = "product" | "bundle";

export interface BankAccountRow {
  bank_name: string;
  bank_code: string;
  account_number: string;
  account_holder: string;
}

export interface StoreRow {
  id: string;
  name: string;
  plan: PlanName;
  bank_name: string | null;
  bank_code: string | null;
  account_number: string | null;
  account_holder: string | null;
  success_url: string | null;
  return_url: string | null;
  error_url: string | null;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  store_id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface ItemRow {
  id: string;
  store_id: string;
  type: ItemTypeName;
  title: string;
  slug: string;
  price: number;
  status: ItemStatusName;
  product_ids: string[];
  created_at: Date;
}

export interface RedirectsRow {
  success_url: string | null;
  return_url: string | null;
  error_url: string | null;
}

/** What UpdateStoreSettings replaces. */
export interface StoreSettings {
  bank: BankAccountRow | null;
  redirects: RedirectsRow;
}

export interface NewStore extends StoreSettings {
  name: string;
  plan: PlanName;
}

export interface NewApiKey {
  store_id: string;
  name: string;
  prefix: string;
  key_hash: Buffer;
  scopes: Scope[];
  created_by_member: string | null;
  created_by: string;
}

/** A live key found by its hash, with its store's plan. */
export interface LiveKey {
  key_id: string;
  store_id: string;
  plan: PlanName;
  scopes: Scope[];
  /** last_used_at is unset or older than the resolution asked for. */
  stale: boolean;
}

export interface NewItem {
  store_id: string;
  type: ItemTypeName;
  title: string;
  slug: string;
  price: number;
  status: ItemStatusName;
}

// Stores.

export async function insertStore(db: Db, store: NewStore): Promise<StoreRow> {
  const [row] = await db<StoreRow[]>`
    insert into stores ${db({
      name: store.name,
      plan: store.plan,
      bank_name: store.bank?.bank_name ?? null,
      bank_code: store.bank?.bank_code ?? null,
      account_number: store.bank?.account_number ?? null,
      account_holder: store.bank?.account_holder ?? null,
      ...store.redirects,
    })}
    returning *`;
  return row!;
}

/** `forUpdate`: locked until the caller's transaction ends, so a change can record what it replaced. */
export async function findStore(db: Db, id: string, { forUpdate = false } = {}): Promise<StoreRow | undefined> {
  const [row] = await db<StoreRow[]>`select * from stores where id = ${id} ${forUpdate ? db`for update` : db``}`;
  return row;
}

export async function updateStorePlan(db: Db, id: string, plan: PlanName): Promise<StoreRow | undefined> {
  const [row] = await db<StoreRow[]>`
    update stores set plan = ${plan}, updated_at = clock_timestamp() where id = ${id} returning *`;
  return row;
}

/** Replaces the bank account (null: none) and the redirect defaults; undefined when there is no such store. */
export async function updateStoreSettings(db: Db, id: string, settings: StoreSettings): Promise<StoreRow | undefined> {
  const [row] = await db<StoreRow[]>`
    update stores set ${db({
      bank_name: settings.bank?.bank_name ?? null,
      bank_code: settings.bank?.bank_code ?? null,
      account_number: settings.bank?.account_number ?? null,
      account_holder: settings.bank?.account_holder ?? null,
      ...settings.redirects,
    })}, updated_at = clock_timestamp()
    where id = ${id} returning *`;
  return row;
}

// API keys.

const apiKeyColumns = (db: Db) => db`id, store_id, name, prefix, scopes, created_by, created_at, revoked_at, last_used_at`;

export async function insertApiKey(db: Db, key: NewApiKey): Promise<ApiKeyRow> {
  const [row] = await db<ApiKeyRow[]>`
    insert into api_keys ${db({ ...key })}
    returning ${apiKeyColumns(db)}`;
  return row!;
}

/** Every key of the store, newest first (the hash stays here). */
export async function listApiKeys(db: Db, storeId: string): Promise<ApiKeyRow[]> {
  return db<ApiKeyRow[]>`
    select ${apiKeyColumns(db)} from api_keys
    where store_id = ${storeId}
    order by created_at desc, id desc`;
}

/** Revokes a key of this store (a second revoke keeps the first time); undefined when the store has no such key. */
export async function revokeApiKey(db: Db, storeId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db<ApiKeyRow[]>`
    update api_keys set revoked_at = coalesce(revoked_at, clock_timestamp())
    where id = ${keyId} and store_id = ${storeId}
    returning ${apiKeyColumns(db)}`;
  return row;
}

/**
 * The unrevoked key with this hash and its store's plan. `stale` compares last_used_at
 * with the database's clock, `staleAfterSeconds` ago.
 */
export async function findLiveKey(db: Db, keyHash: Buffer, staleAfterSeconds: number): Promise<LiveKey | undefined> {
  const [row] = await db<LiveKey[]>`
    select k.id as key_id, k.store_id, s.plan, k.scopes,
           (k.last_used_at is null or k.last_used_at < now() - ${staleAfterSeconds} * interval '1 second') as stale
    from api_keys k join stores s on s.id = k.store_id
    where k.key_hash = ${keyHash} and k.revoked_at is null`;
  return row;
}

/**
 * Revokes the live keys of this store that the member made, returning them; for a
 * member leaving the store.
 */
export async function revokeKeysOfMember(db: Db, storeId: string, memberId: string): Promise<ApiKeyRow[]> {
  return db<ApiKeyRow[]>`
    update api_keys set revoked_at = clock_timestamp()
    where store_id = ${storeId} and created_by_member = ${memberId} and revoked_at is null
    returning ${apiKeyColumns(db)}`;
}

/** The live keys of this store that the member made. */
export async function liveKeysOfMember(db: Db, storeId: string, memberId: string): Promise<ApiKeyRow[]> {
  return db<ApiKeyRow[]>`
    select ${apiKeyColumns(db)} from api_keys
    where store_id = ${storeId} and created_by_member = ${memberId} and revoked_at is null
    order by created_at, id`;
}

/**
 * Marks the key used now, unless another request already did within `staleAfterSeconds`:
 * a burst of requests that all found the key stale writes the row once.
 */
export async function touchApiKey(db: Db, keyId: string, staleAfterSeconds: number): Promise<void> {
  await db`
    update api_keys set last_used_at = now()
    where id = ${keyId} and (last_used_at is null or last_used_at < now() - ${staleAfterSeconds} * interval '1 second')`;
}

// Products and bundles.

const itemColumns = (db: Db) => db`
  i.id, i.store_id, i.type, i.title, i.slug, i.price, i.status, i.created_at,
  coalesce(
    (select array_agg(b.product_id::text order by b.position) from bundle_products b where b.bundle_id = i.id),
    '{}'
  ) as product_ids`;

export async function slugTaken(db: Db, storeId: string, slug: string): Promise<boolean> {
  const [row] = await db`select 1 from items where store_id = ${storeId} and slug = ${slug}`;
  return row !== undefined;
}

/** Inserts the item and returns its id. */
export async function insertItem(db: Db, item: NewItem): Promise<string> {
  const [row] = await db<{ id: string }[]>`insert into items ${db({ ...item })} returning id`;
  return row!.id;
}

/** A bundle's products, in this order. */
export async function insertBundleProducts(db: Db, bundleId: string, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  await db`
    insert into bundle_products ${db(productIds.map((productId, position) => ({ bundle_id: bundleId, product_id: productId, position })))}`;
}

/** Changes an item of this store; false when the store has no such item. */
export async function updateItem(
  db: Db,
  storeId: string,
  itemId: string,
  change: { price?: number; status?: ItemStatusName },
): Promise<boolean> {
  const [row] = await db`
    update items set ${db({ ...change })}, updated_at = clock_timestamp()
    where id = ${itemId} and store_id = ${storeId} returning id`;
  return row !== undefined;
}

/**
 * The store's items among `ids` (lower-case UUIDs), in no particular order. `forUpdate`:
 * locked until the caller's transaction ends, so a change can record what it replaced.
 */
export async function getItems(db: Db, storeId: string, ids: string[], { forUpdate = false } = {}): Promise<ItemRow[]> {
  if (ids.length === 0) return [];
  return db<ItemRow[]>`
    select ${itemColumns(db)} from items i
    where i.store_id = ${storeId} and i.id = any(${ids}::uuid[])
    ${forUpdate ? db`for update of i` : db``}`;
}

/**
 * The store and its items among `ids` (undefined when there is no such store). One
 * statement, so every order takes one pooled connection rather than two for findStore
 * and getItems side by side, and is never slower (measured for issue #14). The items
 * travel as JSON, so their times are turned back into Dates here.
 */
export async function findStoreWithItems(db: Db, storeId: string, ids: string[]): Promise<{ store: StoreRow; items: ItemRow[] } | undefined> {
  const [row] = await db<(StoreRow & { items: (Omit<ItemRow, "created_at"> & { created_at: string })[] })[]>`
    select s.*, coalesce(
      (select jsonb_agg(x) from (select ${itemColumns(db)} from items i where i.store_id = s.id and i.id = any(${ids}::uuid[])) x),
      '[]'
    ) as items
    from stores s where s.id = ${storeId}`;
  if (!row) return undefined;
  const { items, ...store } = row;
  return { store, items: items.map((item) => ({ ...item, created_at: new Date(item.created_at) })) };
}

/** Published items, oldest first; one row more than asked tells whether there is a next page. */
export async function listPublished(db: Db, storeId: string, limit: number, offset: number): Promise<{ items: ItemRow[]; hasMore: boolean }> {
  const rows = await db<ItemRow[]>`
    select ${itemColumns(db)} from items i
    where i.store_id = ${storeId} and i.status = 'published'
    order by i.created_at, i.id
    limit ${limit + 1} offset ${offset}`;
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}
