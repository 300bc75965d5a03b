// The webhook service's SQL, and only here. Every helper takes `db: Db`, a pool or a
// transaction (postgres.js `ISql`), so a caller decides what runs in one transaction;
// `transaction` opens one on the pool. No other module of services/webhook runs SQL.
import type postgres from "postgres";
import { ping, transaction, type Db, type Sql } from "../lib/db.js";

/** The pool: the one thing that can open a transaction. */
export type Pool = Sql;

export { ping, transaction, type Db };

export interface EndpointRow {
  id: string;
  store_id: string;
  url: string;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date;
}

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "refused";

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  store_id: string;
  event_id: string;
  event_type: string;
  order_id: string | null;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
}

/** A leased delivery with where it goes. */
export type DueDelivery = DeliveryRow & { url: string; enabled: boolean };

export type NewDelivery = Pick<DeliveryRow, "endpoint_id" | "store_id" | "event_id" | "event_type" | "order_id" | "body">;

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

/** How an attempt leaves its delivery: the new status, when to try again, the last error. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt?: Date;
  error?: string;
}

// Endpoints and their secrets.

/** Sets the store's endpoint URL, creating the endpoint or re-enabling it. */
export async function upsertEndpoint(db: Db, storeId: string, url: string): Promise<EndpointRow> {
  const [endpoint] = await db<EndpointRow[]>`
    insert into endpoints (store_id, url) values (${storeId}, ${url})
    on conflict (store_id) do update
      set url = excluded.url, enabled = true, disabled_reason = null, updated_at = clock_timestamp()
    returning *`;
  return endpoint!;
}

export async function endpointOfStore(db: Db, storeId: string): Promise<EndpointRow | undefined> {
  const [row] = await db<EndpointRow[]>`select * from endpoints where store_id = ${storeId}`;
  return row;
}

/** The store's endpoint, locked until the transaction ends (`db` must be one). */
export async function lockEndpointOfStore(db: Db, storeId: string): Promise<EndpointRow | undefined> {
  const [row] = await db<EndpointRow[]>`select * from endpoints where store_id = ${storeId} for update`;
  return row;
}

export async function disableEndpoint(db: Db, endpointId: string, reason: string): Promise<void> {
  await db`update endpoints set enabled = false, disabled_reason = ${reason}, updated_at = clock_timestamp() where id = ${endpointId}`;
}

export async function insertSecret(db: Db, endpointId: string, sealedSecret: string): Promise<void> {
  await db`insert into endpoint_secrets (endpoint_id, secret) values (${endpointId}, ${sealedSecret})`;
}

/** Every secret of the endpoint that still signs stops now. */
export async function retireSecretsNow(db: Db, endpointId: string): Promise<void> {
  await db`
    update endpoint_secrets set expires_at = clock_timestamp()
    where endpoint_id = ${endpointId} and (expires_at is null or expires_at > clock_timestamp())`;
}

/** Every secret of the endpoint that would sign past `until` stops then (none is extended). */
export async function retireSecretsAt(db: Db, endpointId: string, until: Date): Promise<void> {
  await db`
    update endpoint_secrets set expires_at = ${until}
    where endpoint_id = ${endpointId} and (expires_at is null or expires_at > ${until})`;
}

/** Sealed secrets that sign now, newest first. */
export async function liveSecrets(db: Db, endpointId: string): Promise<string[]> {
  const rows = await db<{ secret: string }[]>`
    select secret from endpoint_secrets
    where endpoint_id = ${endpointId} and (expires_at is null or expires_at > clock_timestamp())
    order by created_at desc`;
  return rows.map((row) => row.secret);
}

// Deliveries and attempts.

/** One delivery per event per endpoint: false when it was there already. */
export async function insertDelivery(db: Db, delivery: NewDelivery): Promise<boolean> {
  const rows = await db`insert into deliveries ${db({ ...delivery })} on conflict (endpoint_id, event_id) do nothing returning id`;
  return rows.length > 0;
}

/**
 * Due deliveries leased to this instance for `leaseMs`: SKIP LOCKED and the lease keep
 * two instances from sending one delivery at once; a crashed instance's lease runs out
 * and another picks the delivery up.
 */
export async function leaseDue(db: Db, limit: number, leaseMs: number, skipEndpoints: string[]): Promise<DueDelivery[]> {
  return db<DueDelivery[]>`
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

/** Gives a lease back unused, so the delivery is due again at once. */
export async function releaseLease(db: Db, deliveryId: string): Promise<void> {
  await db`update deliveries set leased_until = null where id = ${deliveryId}`;
}

/** Counts an attempt on the delivery, applies its outcome and ends the lease; the attempt's number. */
export async function finishAttempt(db: Db, deliveryId: string, outcome: AttemptOutcome): Promise<number> {
  const [row] = await db<{ attempts: number }[]>`
    update deliveries set
      attempts = attempts + 1,
      status = ${outcome.status},
      next_attempt_at = coalesce(${outcome.nextAttemptAt ?? null}, next_attempt_at),
      leased_until = null,
      last_error = ${outcome.error ?? null},
      updated_at = clock_timestamp()
    where id = ${deliveryId}
    returning attempts`;
  return row!.attempts;
}

export async function insertAttempt(db: Db, attempt: AttemptRow): Promise<void> {
  await db`insert into delivery_attempts ${db({ ...attempt })}`;
}

/** The store's newest deliveries (of one order, if given), each with its attempts in order. */
export async function listDeliveries(db: Db, storeId: string, orderId: string | undefined, limit: number) {
  const deliveries = await db<DeliveryRow[]>`
    select * from deliveries
    where store_id = ${storeId} ${orderId ? db`and order_id = ${orderId}` : db``}
    order by created_at desc limit ${limit}`;
  const ids = deliveries.map((d) => d.id);
  const attempts = ids.length
    ? await db<AttemptRow[]>`select * from delivery_attempts where delivery_id = any(${ids}::uuid[]) order by delivery_id, number`
    : [];
  return deliveries.map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.delivery_id === delivery.id) }));
}

/** Puts a delivery back in the queue now, keeping its history and its event id. */
export async function requeue(db: Db, storeId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const [row] = await db<DeliveryRow[]>`
    update deliveries set status = 'pending', next_attempt_at = clock_timestamp(), leased_until = null, updated_at = clock_timestamp()
    where id = ${deliveryId} and store_id = ${storeId}
      -- Not while an attempt is under way: it would be sent twice at once.
      and (leased_until is null or leased_until < clock_timestamp())
    returning *`;
  return row;
}
