// The catalog service's SQL, and only here. Every helper takes `db: Db`, a pool or a
// transaction (postgres.js `ISql`), so a caller decides what runs in one transaction;
// `transaction` opens one on the pool. No other module of services/catalog runs SQL.
import type postgres from "postgres";
import { ping, transaction, type Db, type Sql } from "../lib/db.js";
import type { PlanName } from "../../common/plans.js";

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
}

/** A live key found by its hash, with its store's plan. */
export interface LiveKey {
  key_id: string;
  store_id: string;
  plan: PlanName;
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

export async function findStore(db: Db, id: string): Promise<StoreRow | undefined> {
  const [row] = await db<StoreRow[]>`select * from stores where id = ${id}`;
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

export async function insertApiKey(db: Db, key: NewApiKey): Promise<ApiKeyRow> {
  const [row] = await db<ApiKeyRow[]>`
    insert into api_keys ${db({ ...key })}
    returning id, store_id, name, prefix, created_at, revoked_at, last_used_at`;
  return row!;
}

/** Every key of the store, newest first (the hash stays here). */
export async function listApiKeys(db: Db, storeId: string): Promise<ApiKeyRow[]> {
  return db<ApiKeyRow[]>`
    select id, store_id, name, prefix, created_at, revoked_at, last_used_at from api_keys
    where store_id = ${storeId}
    order by created_at desc, id desc`;
}

/** Revokes a key of this store (a second revoke keeps the first time); undefined when the store has no such key. */
export async function revokeApiKey(db: Db, storeId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db<ApiKeyRow[]>`
    update api_keys set revoked_at = coalesce(revoked_at, clock_timestamp())
    where id = ${keyId} and store_id = ${storeId}
    returning id, store_id, name, prefix, created_at, revoked_at, last_used_at`;
  return row;
}

/**
 * The unrevoked key with this hash and its store's plan. `stale` compares last_used_at
 * with the database's clock, `staleAfterSeconds` ago.
 */
export async function findLiveKey(db: Db, keyHash: Buffer, staleAfterSeconds: number): Promise<LiveKey | undefined> {
  const [row] = await db<LiveKey[]>`
    select k.id as key_id, k.store_id, s.plan,
           (k.last_used_at is null or k.last_used_at < now() - ${staleAfterSeconds} * interval '1 second') as stale
    from api_keys k join stores s on s.id = k.store_id
    where k.key_hash = ${keyHash} and k.revoked_at is null`;
  return row;
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

/** The store's items among `ids` (lower-case UUIDs), in no particular order. */
export async function getItems(db: Db, storeId: string, ids: string[]): Promise<ItemRow[]> {
  if (ids.length === 0) return [];
  return db<ItemRow[]>`
    select ${itemColumns(db)} from items i
    where i.store_id = ${storeId} and i.id = any(${ids}::uuid[])`;
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

// Members, invitations, sessions, the sign-in throttle (times against the database's clock).

export interface MemberRow {
  id: string;
  email: string;
  /** False until the member accepts an invitation ("invited"), true after ("active"). */
  has_password: boolean;
  created_at: Date;
}

/** A member with the stored password hash, for sign-in only. */
export interface MemberCredentials extends MemberRow {
  password_hash: string | null;
}

export interface MemberStoreRow {
  id: string;
  name: string;
}

export interface SessionRow {
  id: string;
  member_id: string;
  created_at: Date;
  last_seen_at: Date;
}

export interface LiveSession {
  session: SessionRow;
  member: MemberRow;
  /** last_seen_at is older than the touch resolution asked for. */
  stale: boolean;
}

export interface SessionLimits {
  idleSeconds: number;
  maxAgeSeconds: number;
}

export interface ThrottlePolicy {
  maxFailures: number;
  windowSeconds: number;
  lockSeconds: number;
}

export interface NewInvitation {
  member_id: string;
  store_id: string;
  token_hash: Buffer;
}

const memberColumns = (db: Db) => db`m.id, m.email, m.created_at, (m.password_hash is not null) as has_password`;

/** The member with this (normalized) email, created when there is none; safe when two invitations race. */
export async function upsertMember(db: Db, email: string): Promise<MemberRow> {
  const [row] = await db<MemberRow[]>`
    insert into members as m (email) values (${email})
    on conflict (email) do update set email = excluded.email
    returning ${memberColumns(db)}`;
  return row!;
}

/** Makes the member a member of the store; nothing when they already are. */
export async function addMembership(db: Db, memberId: string, storeId: string): Promise<void> {
  await db`insert into memberships (store_id, member_id) values (${storeId}, ${memberId}) on conflict do nothing`;
}

/**
 * A new invitation of the member to the store, valid `ttlSeconds`; unused earlier ones
 * for the same member and store stop working, so only the latest link is live.
 */
export async function replaceInvitation(db: Db, invitation: NewInvitation, ttlSeconds: number): Promise<{ expires_at: Date }> {
  const [row] = await db<{ expires_at: Date }[]>`
    with dropped as (
      delete from invitations
      where member_id = ${invitation.member_id} and store_id = ${invitation.store_id} and used_at is null
    )
    insert into invitations (token_hash, member_id, store_id, expires_at)
    values (${invitation.token_hash}, ${invitation.member_id}, ${invitation.store_id}, clock_timestamp() + ${ttlSeconds} * interval '1 second')
    returning expires_at`;
  return row!;
}

/** An unused, unexpired invitation whose membership still stands. */
export async function findOpenInvitation(db: Db, tokenHash: Buffer): Promise<{ member_id: string; store_id: string } | undefined> {
  const [row] = await db<{ member_id: string; store_id: string }[]>`
    select i.member_id, i.store_id from invitations i
    join memberships ms on ms.member_id = i.member_id and ms.store_id = i.store_id
    where i.token_hash = ${tokenHash} and i.used_at is null and i.expires_at > now()`;
  return row;
}

/**
 * Marks an open invitation used and answers whom it was for; undefined when it is not
 * open. The row lock makes a second, concurrent use wait and then find it used.
 */
export async function useInvitation(db: Db, tokenHash: Buffer): Promise<{ member_id: string; store_id: string } | undefined> {
  const [row] = await db<{ member_id: string; store_id: string }[]>`
    update invitations i set used_at = clock_timestamp()
    where i.token_hash = ${tokenHash} and i.used_at is null and i.expires_at > now()
      and exists (select 1 from memberships ms where ms.member_id = i.member_id and ms.store_id = i.store_id)
    returning i.member_id, i.store_id`;
  return row;
}

export async function setPasswordHash(db: Db, memberId: string, passwordHash: string): Promise<MemberRow> {
  const [row] = await db<MemberRow[]>`
    update members m set password_hash = ${passwordHash} where m.id = ${memberId}
    returning ${memberColumns(db)}`;
  return row!;
}

export async function findMemberCredentials(db: Db, email: string): Promise<MemberCredentials | undefined> {
  const [row] = await db<MemberCredentials[]>`
    select ${memberColumns(db)}, m.password_hash from members m where m.email = ${email}`;
  return row;
}

/** The store's members, by email. */
export async function listMembers(db: Db, storeId: string): Promise<MemberRow[]> {
  return db<MemberRow[]>`
    select ${memberColumns(db)} from members m
    join memberships ms on ms.member_id = m.id
    where ms.store_id = ${storeId}
    order by m.email`;
}

/** Ends the membership; undefined when the member is not one of this store's. */
export async function removeMembership(db: Db, storeId: string, memberId: string): Promise<MemberRow | undefined> {
  const [row] = await db<MemberRow[]>`
    with removed as (
      delete from memberships where store_id = ${storeId} and member_id = ${memberId} returning member_id
    )
    select ${memberColumns(db)} from members m join removed r on r.member_id = m.id`;
  return row;
}

/** The member's unused invitations to this store stop working. */
export async function dropInvitations(db: Db, memberId: string, storeId: string): Promise<void> {
  await db`delete from invitations where member_id = ${memberId} and store_id = ${storeId} and used_at is null`;
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

/** The stores the member belongs to, by name. */
export async function memberStores(db: Db, memberId: string): Promise<MemberStoreRow[]> {
  return db<MemberStoreRow[]>`
    select s.id, s.name from stores s join memberships ms on ms.store_id = s.id
    where ms.member_id = ${memberId}
    order by s.name, s.id`;
}

export async function insertSession(db: Db, memberId: string, tokenHash: Buffer): Promise<SessionRow> {
  const [row] = await db<SessionRow[]>`
    insert into sessions (member_id, token_hash) values (${memberId}, ${tokenHash})
    returning id, member_id, created_at, last_seen_at`;
  return row!;
}

/** The session with this hash unless it has been idle or alive too long, with its member. */
export async function findLiveSession(db: Db, tokenHash: Buffer, limits: SessionLimits, touchSeconds: number): Promise<LiveSession | undefined> {
  const [row] = await db<(MemberRow & { session_id: string; session_created_at: Date; last_seen_at: Date; stale: boolean })[]>`
    select ${memberColumns(db)}, s.id as session_id, s.created_at as session_created_at, s.last_seen_at,
           s.last_seen_at < now() - ${touchSeconds} * interval '1 second' as stale
    from sessions s join members m on m.id = s.member_id
    where s.token_hash = ${tokenHash}
      and s.last_seen_at > now() - ${limits.idleSeconds} * interval '1 second'
      and s.created_at > now() - ${limits.maxAgeSeconds} * interval '1 second'`;
  if (!row) return undefined;
  const { session_id, session_created_at, last_seen_at, stale, ...member } = row;
  return { session: { id: session_id, member_id: member.id, created_at: session_created_at, last_seen_at }, member, stale };
}

/** Marks the session seen now, unless a concurrent request already did within `touchSeconds`. */
export async function touchSession(db: Db, sessionId: string, touchSeconds: number): Promise<void> {
  await db`
    update sessions set last_seen_at = now()
    where id = ${sessionId} and last_seen_at < now() - ${touchSeconds} * interval '1 second'`;
}

export async function deleteSession(db: Db, tokenHash: Buffer): Promise<void> {
  await db`delete from sessions where token_hash = ${tokenHash}`;
}

export async function deleteSessionsOfMember(db: Db, memberId: string): Promise<void> {
  await db`delete from sessions where member_id = ${memberId}`;
}

/**
 * Counts a sign-in attempt for the email before its password is checked (a success
 * takes it back with clearSignInAttempts). False, counting nothing, while the email is
 * locked; the attempt that makes `maxFailures` within the window starts the lock. One
 * statement on one row: concurrent attempts are counted one after another.
 */
export async function claimSignInAttempt(db: Db, email: string, policy: ThrottlePolicy): Promise<boolean> {
  const windowStart = () => db`now() - ${policy.windowSeconds} * interval '1 second'`;
  const rows = await db`
    insert into sign_in_throttle as t (email, recent_attempts, locked_until)
    values (${email}, array[now()], case when 1 >= ${policy.maxFailures}::int then now() + ${policy.lockSeconds} * interval '1 second' end)
    on conflict (email) do update set
      recent_attempts = array_append(array(select a from unnest(t.recent_attempts) a where a > ${windowStart()} order by a), now()),
      locked_until = case
        when cardinality(array(select a from unnest(t.recent_attempts) a where a > ${windowStart()})) + 1 >= ${policy.maxFailures}::int
        then now() + ${policy.lockSeconds} * interval '1 second'
      end
    where t.locked_until is null or t.locked_until <= now()
    returning 1`;
  return rows.length === 1;
}

export async function clearSignInAttempts(db: Db, email: string): Promise<void> {
  await db`delete from sign_in_throttle where email = ${email}`;
}

/** Deletes sessions, invitations and throttle rows that can no longer matter. */
export async function pruneAccounts(db: Db, limits: SessionLimits & { windowSeconds: number }): Promise<void> {
  await db`
    delete from sessions
    where last_seen_at <= now() - ${limits.idleSeconds} * interval '1 second'
       or created_at <= now() - ${limits.maxAgeSeconds} * interval '1 second'`;
  await db`delete from invitations where expires_at <= now()`;
  await db`
    delete from sign_in_throttle
    where (locked_until is null or locked_until <= now())
      and recent_attempts[cardinality(recent_attempts)] <= now() - ${limits.windowSeconds} * interval '1 second'`;
}

// The audit log.

export interface AuditRow {
  id: string;
  store_id: string;
  created_at: Date;
  actor: string;
  action: string;
  target: string;
}

export type NewAuditEntry = Pick<AuditRow, "store_id" | "actor" | "action" | "target">;

export async function insertAuditEntries(db: Db, entries: NewAuditEntry[]): Promise<AuditRow[]> {
  if (entries.length === 0) return [];
  return db<AuditRow[]>`
    insert into audit_log ${db(entries.map((entry) => ({ ...entry })))}
    returning id, store_id, created_at, actor, action, target`;
}

/** The store's latest entries, newest first. */
export async function listAudit(db: Db, storeId: string, limit: number): Promise<AuditRow[]> {
  return db<AuditRow[]>`
    select id, store_id, created_at, actor, action, target from audit_log
    where store_id = ${storeId}
    order by created_at desc, seq desc
    limit ${limit}`;
}
