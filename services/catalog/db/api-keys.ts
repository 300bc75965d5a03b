// The api_keys table: a store's keys, kept as a hash of the secret with its scopes and
// who made it (docs/keys.md). Authentication reads the live key with its store's plan.
import type { Db } from "../../../platform/db.js";
import type { PlanName } from "../../../common/plans.js";
import type { Scope } from "../../../common/scopes.js";

export interface ApiKeyRow {
  id: string;
  store_id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  /** False for a test key (docs/keys.md#test-mode). */
  livemode: boolean;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface NewApiKey {
  store_id: string;
  name: string;
  prefix: string;
  key_hash: Buffer;
  scopes: Scope[];
  livemode: boolean;
  created_by_member: string | null;
  created_by: string;
}

/** A live (unrevoked) key found by its hash, with its store's plan. */
export interface LiveKey {
  key_id: string;
  store_id: string;
  plan: PlanName;
  scopes: Scope[];
  /** The key's mode, not whether it is unrevoked: false for a test key. */
  livemode: boolean;
  /** last_used_at is unset or older than the resolution asked for. */
  stale: boolean;
}

const apiKeyColumns = (db: Db) => db`id, store_id, name, prefix, scopes, livemode, created_by, created_at, revoked_at, last_used_at`;

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
    select k.id as key_id, k.store_id, s.plan, k.scopes, k.livemode,
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
