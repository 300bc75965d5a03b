// Idempotency records. What they mean and when they may be taken over is decided in
// idempotency.ts; these statements only carry it out.
import type { Db } from "../../../platform/db.js";

export interface IdempotencyRecord {
  request_hash: string;
  response: Uint8Array | null;
  order_id: string | null;
  /** Older than the `staleSeconds` given when it was read. */
  stale: boolean;
}

/** Whose keys: a store's, in one mode; a test key and a live key are separate spaces (013_test_mode.sql). */
export interface KeySpace {
  storeId: string;
  livemode: boolean;
}

export interface TakeoverRule {
  /** A record older than this is gone, whatever it holds. */
  keepSeconds: number;
  /** A record with no order and no response older than this belongs to a dead request. */
  staleSeconds: number;
}

/**
 * Inserts the record for `key`, or takes over one the rule says is gone; true when
 * this request now holds the key.
 */
export async function tryClaimIdempotencyKey(
  db: Db,
  space: KeySpace,
  key: string,
  requestHash: string,
  rule: TakeoverRule,
): Promise<boolean> {
  const claimed = await db`
    insert into idempotency_keys as k (store_id, livemode, key, request_hash)
    values (${space.storeId}, ${space.livemode}, ${key}, ${requestHash})
    on conflict (store_id, livemode, key) do update
      set request_hash = excluded.request_hash, order_id = null, response = null, created_at = clock_timestamp()
      where k.created_at < clock_timestamp() - make_interval(secs => ${rule.keepSeconds})
         or (k.response is null and k.order_id is null and k.created_at < clock_timestamp() - make_interval(secs => ${rule.staleSeconds}))
    returning 1`;
  return claimed.length > 0;
}

export async function findIdempotencyRecord(
  db: Db,
  space: KeySpace,
  key: string,
  staleSeconds: number,
): Promise<IdempotencyRecord | undefined> {
  const [row] = await db<{ request_hash: string; response: Buffer | null; order_id: string | null; stale: boolean }[]>`
    select request_hash, response, order_id, created_at < clock_timestamp() - make_interval(secs => ${staleSeconds}) as stale
    from idempotency_keys where store_id = ${space.storeId} and livemode = ${space.livemode} and key = ${key}`;
  return row && { ...row, response: row.response ? new Uint8Array(row.response) : null };
}

/**
 * Ties the key to its order if no order holds it yet; false when another request
 * took the key over meanwhile and attached its own.
 */
export async function attachIdempotencyOrder(db: Db, space: KeySpace, key: string, orderId: string): Promise<boolean> {
  const rows = await db`
    update idempotency_keys set order_id = ${orderId}
    where store_id = ${space.storeId} and livemode = ${space.livemode} and key = ${key} and order_id is null
    returning 1`;
  return rows.length === 1;
}

export async function completeIdempotencyKey(db: Db, space: KeySpace, key: string, orderId: string, response: Uint8Array) {
  await db`
    update idempotency_keys set order_id = ${orderId}, response = ${Buffer.from(response)}
    where store_id = ${space.storeId} and livemode = ${space.livemode} and key = ${key}`;
}

/** Deletes the key only while it holds neither an order nor a response. */
export async function releaseIdempotencyKey(db: Db, space: KeySpace, key: string) {
  await db`delete from idempotency_keys where store_id = ${space.storeId} and livemode = ${space.livemode} and key = ${key} and response is null and order_id is null`;
}

export async function purgeIdempotencyKeys(db: Db, keepSeconds: number) {
  await db`delete from idempotency_keys where created_at < clock_timestamp() - make_interval(secs => ${keepSeconds})`;
}
