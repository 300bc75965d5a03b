import type postgres from "postgres";
import type { Sql } from "../lib/db.js";

export type Db = Sql | postgres.TransactionSql;
const q = (db: Db) => db as Sql;

export interface EndpointRow {
  id: string;
  store_id: string;
  url: string;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  store_id: string;
  event_id: string;
  event_type: string;
  order_id: string | null;
  body: string;
  status: "pending" | "succeeded" | "failed" | "refused";
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  number: number;
  started_at: Date;
  status_code: number | null;
  latency_ms: number;
  result: string;
  error: string | null;
  response_excerpt: string | null;
}

/** Sets the store's endpoint URL (re-enabling it) and gives it a fresh secret. */
export async function setEndpoint(sql: Sql, storeId: string, url: string, sealedSecret: string): Promise<EndpointRow> {
  return sql.begin(async (tx) => {
    const [endpoint] = await tx<EndpointRow[]>`
      insert into endpoints (store_id, url) values (${storeId}, ${url})
      on conflict (store_id) do update
        set url = excluded.url, enabled = true, disabled_reason = null, updated_at = clock_timestamp()
      returning *`;
    await tx`update endpoint_secrets set expires_at = clock_timestamp() where endpoint_id = ${endpoint!.id} and (expires_at is null or expires_at > clock_timestamp())`;
    await tx`insert into endpoint_secrets (endpoint_id, secret) values (${endpoint!.id}, ${sealedSecret})`;
    return endpoint!;
  });
}

/** A new secret; the current ones keep signing for `overlapMs`. */
export async function rotateSecret(sql: Sql, storeId: string, sealedSecret: string, overlapMs: number) {
  return sql.begin(async (tx) => {
    const [endpoint] = await tx<EndpointRow[]>`select * from endpoints where store_id = ${storeId} for update`;
    if (!endpoint) return undefined;
    const until = new Date(Date.now() + overlapMs);
    await tx`
      update endpoint_secrets set expires_at = ${until}
      where endpoint_id = ${endpoint.id} and (expires_at is null or expires_at > ${until})`;
    await tx`insert into endpoint_secrets (endpoint_id, secret) values (${endpoint.id}, ${sealedSecret})`;
    return { endpoint, previousExpiresAt: until };
  });
}

export async function endpointOfStore(db: Db, storeId: string): Promise<EndpointRow | undefined> {
  const [row] = await q(db)<EndpointRow[]>`select * from endpoints where store_id = ${storeId}`;
  return row;
}

/** Sealed secrets that sign now, newest first. */
export async function liveSecrets(db: Db, endpointId: string): Promise<string[]> {
  const rows = await q(db)<{ secret: string }[]>`
    select secret from endpoint_secrets
    where endpoint_id = ${endpointId} and (expires_at is null or expires_at > clock_timestamp())
    order by created_at desc`;
  return rows.map((row) => row.secret);
}

export async function disableEndpoint(db: Db, endpointId: string, reason: string) {
  await q(db)`update endpoints set enabled = false, disabled_reason = ${reason}, updated_at = clock_timestamp() where id = ${endpointId}`;
}

/** One delivery per event per endpoint: a redelivered bus message changes nothing. */
export async function recordDelivery(
  db: Db,
  delivery: Pick<DeliveryRow, "endpoint_id" | "store_id" | "event_id" | "event_type" | "order_id" | "body">,
): Promise<boolean> {
  const sql = q(db);
  const rows = await sql`insert into deliveries ${sql(delivery)} on conflict (endpoint_id, event_id) do nothing returning id`;
  return rows.length > 0;
}

/**
 * Due deliveries leased to this instance for `leaseMs`: SKIP LOCKED and the lease keep
 * two instances from sending one delivery at once; a crashed instance's lease runs out
 * and another picks the delivery up.
 */
export async function leaseDue(db: Db, limit: number, leaseMs: number, skipEndpoints: string[]): Promise<(DeliveryRow & { url: string; enabled: boolean })[]> {
  const sql = q(db);
  return sql<(DeliveryRow & { url: string; enabled: boolean })[]>`
    with due as (
      select d.id from deliveries d
      where d.status = 'pending' and d.next_attempt_at <= clock_timestamp()
        and (d.leased_until is null or d.leased_until < clock_timestamp())
        and not (d.endpoint_id = any(${skipEndpoints}::uuid[]))
      order by d.next_attempt_at
      limit ${limit}
      for update skip locked
    )
    update deliveries d set leased_until = clock_timestamp() + ${leaseMs / 1000} * interval '1 second'
    from due, endpoints e
    where d.id = due.id and e.id = d.endpoint_id
    returning d.*, e.url, e.enabled`;
}

export async function recordAttempt(
  db: Db,
  attempt: Omit<AttemptRow, "number"> & { delivery_id: string },
  outcome: { status: DeliveryRow["status"]; nextAttemptAt?: Date; error?: string },
) {
  const sql = q(db);
  await sql.begin(async (tx) => {
    const [row] = await tx<{ attempts: number }[]>`
      update deliveries set
        attempts = attempts + 1,
        status = ${outcome.status},
        next_attempt_at = coalesce(${outcome.nextAttemptAt ?? null}, next_attempt_at),
        leased_until = null,
        last_error = ${outcome.error ?? null},
        updated_at = clock_timestamp()
      where id = ${attempt.delivery_id}
      returning attempts`;
    await tx`insert into delivery_attempts ${tx({ ...attempt, number: row!.attempts })}`;
  });
}

export async function listDeliveries(db: Db, storeId: string, orderId: string | undefined, limit: number) {
  const sql = q(db);
  const deliveries = await sql<DeliveryRow[]>`
    select * from deliveries
    where store_id = ${storeId} ${orderId ? sql`and order_id = ${orderId}` : sql``}
    order by created_at desc limit ${limit}`;
  const ids = deliveries.map((d) => d.id);
  const attempts = ids.length
    ? await sql<AttemptRow[]>`select * from delivery_attempts where delivery_id = any(${ids}::uuid[]) order by delivery_id, number`
    : [];
  return deliveries.map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.delivery_id === delivery.id) }));
}

/** Puts a delivery back in the queue now, keeping its history and its event id. */
export async function requeue(db: Db, storeId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const [row] = await q(db)<DeliveryRow[]>`
    update deliveries set status = 'pending', next_attempt_at = clock_timestamp(), leased_until = null, updated_at = clock_timestamp()
    where id = ${deliveryId} and store_id = ${storeId}
      -- Not while an attempt is under way: it would be sent twice at once.
      and (leased_until is null or leased_until < clock_timestamp())
    returning *`;
  return row;
}
