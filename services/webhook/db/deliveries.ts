// The deliveries table with its attempts (delivery_attempts) and each endpoint's hours
// of health (endpoint_attempt_hours), which an attempt writes together (recordAttempt).
// Every function takes `db: Db`, a pool or a transaction (postgres.js `ISql`), so the
// caller decides what runs in one transaction.
import type { Db } from "../../../platform/db.js";
import { attemptHour } from "../health-window.js";
import type { EndpointRow } from "./endpoints.js";
import { liveSecretsOf } from "./secrets.js";

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "refused";
export type DeliveryKind = "event" | "replay" | "test";

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  store_id: string;
  event_id: string;
  event_type: string;
  order_id: string | null;
  body: string;
  kind: DeliveryKind;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  /** The trace its attempts continue (010_delivery_traceparent.sql); null when untraced. */
  traceparent?: string | null;
  /** Its order's payment reference (SO-…) as the body names it, where a read selects `orderReference`. */
  order_reference?: string | null;
}

/**
 * A leased delivery with where it goes, its endpoint's sealed headers and live secrets
 * (sealed, newest first); `enabled` is false for a deleted endpoint too.
 */
export type DueDelivery = DeliveryRow & { url: string; enabled: boolean; headers_sealed: string | null; secrets: string[] };

export type NewDelivery = Pick<DeliveryRow, "endpoint_id" | "store_id" | "event_id" | "event_type" | "order_id" | "body" | "kind">;

export interface DeliveryFilter {
  /** Only deliveries to endpoints of this mode (docs/webhooks.md#test-mode); undefined: either. */
  livemode?: boolean;
  orderId?: string;
  endpointId?: string;
  status?: DeliveryStatus;
  eventId?: string;
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
  /** The headers sent, in order (014_attempt_request_headers.sql); null when nothing was sent or before they were kept. */
  request_headers: SentHeader[] | null;
}

/** One header as an attempt sent it; a custom header's value is never kept (`masked`). */
export type SentHeader = { name: string; value: string } | { name: string; masked: true };

/** An attempt to record: its headers left out when nothing was sent. */
export type NewAttempt = Omit<AttemptRow, "number" | "request_headers"> & { request_headers?: SentHeader[] | null };

/** How an attempt leaves its delivery: the new status, when to try again, the last error. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt?: Date;
  error?: string;
}

/**
 * The payment reference (SO-…) of the order a row of `alias` (events or deliveries) is
 * about, read from the order its body carries (`data.order`): a person names an order by
 * it, and the webhook service keeps no copy of its own. Null for a body without an
 * order (a test event). Used only over a page already chosen (a LIMIT in a subquery),
 * so only the bodies of the rows shown are parsed, never those a sort went through.
 */
export const orderReferenceOf = (db: Db, alias: string) =>
  db`case when ${db(alias)}.order_id is null then null else (${db(alias)}.body::jsonb #>> '{data,order,payment_reference}') end as order_reference`;

/**
 * A delivery's columns as lists carry it: without its body, which only GetDelivery
 * sends (an event's body is on the event), so a list page does not read a hundred
 * bodies from TOAST to throw them away (orderReferenceOf reads the shown rows' references).
 */
export const listedDelivery = (db: Db) => db`
  id, endpoint_id, store_id, event_id, event_type, order_id, '' as body, kind, status, attempts, next_attempt_at, last_error, created_at, updated_at`;

/** listedDelivery's columns of a page chosen in a subquery `d` that kept the body, for orderReferenceOf. */
const listedDeliveryOfPage = (db: Db) => db`
  d.id, d.endpoint_id, d.store_id, d.event_id, d.event_type, d.order_id, '' as body, d.kind, d.status, d.attempts, d.next_attempt_at, d.last_error, d.created_at, d.updated_at`;

export async function insertDelivery(db: Db, delivery: NewDelivery): Promise<DeliveryRow> {
  const [row] = await db<DeliveryRow[]>`insert into deliveries ${db({ ...delivery })} returning *`;
  return row!;
}

/**
 * Due deliveries leased to this instance for `leaseMs`: SKIP LOCKED and the lease keep
 * two instances from sending one delivery at once; a crashed instance's lease runs out
 * and another picks the delivery up.
 */
export async function leaseDue(db: Db, limit: number, leaseMs: number, skipEndpoints: string[], scheduleMs: number[] = []): Promise<DueDelivery[]> {
  const steps = scheduleMs.map((ms) => ms / 1000);
  // A delivery whose last send went unrecorded is due again at the schedule's next step
  // (set below when it was leased); a second unrecorded send, or one past the end of the
  // schedule, ends it.
  const spent = (d: Db) => d`
    d.unrecorded_sends >= 1 and (d.unrecorded_sends >= 2 or coalesce(array_length(${steps}::float8[], 1), 0) < d.attempts + d.unrecorded_sends)`;
  const isDue = (d: Db) => d`
    d.status = 'pending' and d.next_attempt_at <= clock_timestamp()
    and (d.leased_until is null or d.leased_until < clock_timestamp())
    and not (d.endpoint_id = any(${skipEndpoints}::uuid[]))`;
  // Endpoints with a rate (endpoint-rate.ts): their token buckets, locked in id order so
  // instances leasing at once take turns and never both spend the same tokens.
  return db<DueDelivery[]>`
    with buckets as (
      select e.id,
        least(e.max_per_second, coalesce(e.rate_tokens, e.max_per_second)
          + greatest(0, extract(epoch from clock_timestamp() - coalesce(e.rate_updated_at, clock_timestamp()))) * e.max_per_second) as available
      from endpoints e
      where e.max_per_second is not null
        and exists (select 1 from deliveries d where d.endpoint_id = e.id and ${isDue(db)})
      order by e.id
      for update of e
    ), free as (
      select d.id, d.endpoint_id, d.next_attempt_at, ${spent(db)} as spent from deliveries d
      where ${isDue(db)} and not exists (select 1 from endpoints e where e.id = d.endpoint_id and e.max_per_second is not null)
      order by d.next_attempt_at
      limit ${limit}
      for update of d skip locked
    ), rated as (
      -- Each rated endpoint offers only as many as it has whole tokens: the rest stay
      -- due without taking a place another endpoint could use.
      select x.* from buckets b cross join lateral (
        select d.id, d.endpoint_id, d.next_attempt_at, ${spent(db)} as spent from deliveries d
        where d.endpoint_id = b.id and ${isDue(db)}
        order by d.next_attempt_at
        limit floor(b.available)::int
        for update of d skip locked
      ) x
    ), due as (
      select * from (select * from free union all select * from rated) u order by u.next_attempt_at limit ${limit}
    ), ended as (
      update deliveries d set status = 'failed', leased_until = null, updated_at = clock_timestamp(),
        last_error = 'attempts were sent but could not be recorded'
      from due where d.id = due.id and due.spent
      returning d.id
    ), spent_tokens as (
      update endpoints e set rate_tokens = b.available - taken.n, rate_updated_at = clock_timestamp()
      from buckets b join (select endpoint_id, count(*) as n from due where not spent group by endpoint_id) taken on taken.endpoint_id = b.id
      where e.id = b.id
    )
    update deliveries d set
      leased_until = clock_timestamp() + ${leaseMs / 1000} * interval '1 second',
      unrecorded_sends = d.unrecorded_sends + 1,
      next_attempt_at = clock_timestamp()
        + coalesce((${steps}::float8[])[d.attempts + d.unrecorded_sends + 1], ${leaseMs / 1000}) * interval '1 second'
    from due, endpoints e
    where d.id = due.id and not due.spent and e.id = d.endpoint_id
    returning d.*, e.url, (e.enabled and e.deleted_at is null) as enabled, e.headers_sealed,
      -- The secrets that sign it, in the same round trip.
      array(${liveSecretsOf(db, db`e.id`)}) as secrets`;
}

/** Gives a lease back unused, so the delivery is due again at once. */
export async function releaseLease(db: Db, deliveryId: string): Promise<void> {
  await db`
    update deliveries set leased_until = null, next_attempt_at = clock_timestamp(), unrecorded_sends = greatest(unrecorded_sends - 1, 0)
    where id = ${deliveryId}`;
}

/** A sent attempt's endpoint, whose failing streak moves with its result (failing-endpoints.ts). */
export interface SentTo {
  endpointId: string;
  succeeded: boolean;
}

/**
 * One attempt, in one statement: with `sent`, a success clears the endpoint's failing
 * streak and a failure starts one at the attempt's start unless one is running; the
 * delivery counts the attempt, takes its outcome and ends its lease; the attempt is
 * written with the next number and counted in its endpoint's hour of health.
 *
 * Rows are locked endpoint (when its streak changes), delivery, hour, as on every path
 * that locks more than one of them (a disabled endpoint's attempt, deleting or
 * switching off an endpoint), so two never wait on each other. A sub-statement nothing
 * reads would run last, so the delivery's update reads the streak's result: that
 * makes it wait for the streak's. A delivery gone meanwhile (purged) records nothing,
 * the streak included.
 */
export async function recordAttempt(db: Db, attempt: NewAttempt, outcome: AttemptOutcome, sent?: SentTo): Promise<void> {
  await db`
    with streak as (
      update endpoints set failing_since = case when ${sent?.succeeded ?? true}::boolean then null else ${attempt.started_at}::timestamptz end
      where id = ${sent?.endpointId ?? null}::uuid
        and (case when ${sent?.succeeded ?? true}::boolean then failing_since is not null else failing_since is null end)
        and exists (select 1 from deliveries where id = ${attempt.delivery_id})
      returning id
    ), finished as (
      update deliveries set
        attempts = attempts + 1,
        status = ${outcome.status},
        next_attempt_at = coalesce(${outcome.nextAttemptAt ?? null}::timestamptz, next_attempt_at),
        leased_until = null,
        unrecorded_sends = 0,
        last_error = ${outcome.error ?? null},
        updated_at = clock_timestamp()
      where id = ${attempt.delivery_id} and (select count(*) from streak) >= 0
      returning id, endpoint_id, store_id, attempts
    ), recorded as (
      insert into delivery_attempts (delivery_id, number, started_at, status_code, latency_ms, result, error, response_excerpt, request_headers)
      select f.id, f.attempts, ${attempt.started_at}::timestamptz, ${attempt.status_code}::int, ${attempt.latency_ms}::int,
        ${attempt.result}::text, ${attempt.error}::text, ${attempt.response_excerpt}::text,
        ${attempt.request_headers ? db.json(attempt.request_headers) : null}::jsonb
      from finished f
      returning delivery_id, started_at, result, status_code
    )
    insert into endpoint_attempt_hours as h (endpoint_id, store_id, hour, attempts, succeeded, last_at, last_result, last_status_code)
    select f.endpoint_id, f.store_id, ${attemptHour(attempt.started_at)}, 1, (r.result = 'succeeded')::int, r.started_at, r.result, r.status_code
    from recorded r join finished f on f.id = r.delivery_id
    on conflict (endpoint_id, hour) do update set
      attempts = h.attempts + 1,
      succeeded = h.succeeded + excluded.succeeded,
      last_at = greatest(h.last_at, excluded.last_at),
      last_result = case when excluded.last_at >= h.last_at then excluded.last_result else h.last_result end,
      last_status_code = case when excluded.last_at >= h.last_at then excluded.last_status_code else h.last_status_code end`;
}

/** The endpoint's pending deliveries end as failed with `error` (an attempt under way still records its own outcome). */
export async function failPendingDeliveries(db: Db, endpointId: string, error: string): Promise<number> {
  const rows = await db`
    update deliveries set status = 'failed', last_error = ${error}, updated_at = clock_timestamp()
    where endpoint_id = ${endpointId} and status = 'pending'
    returning id`;
  return rows.length;
}

async function attemptsOf(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db<AttemptRow[]>`
    select delivery_id, number, started_at, status_code, latency_ms, result, error, response_excerpt, request_headers
    from delivery_attempts where delivery_id = any(${deliveryIds}::uuid[]) order by delivery_id, number`;
}

/** The store's newest deliveries matching `filter`, each with its attempts in order. */
export async function listDeliveries(db: Db, storeId: string, filter: DeliveryFilter, limit: number, withAttempts = true) {
  // The page first, then the references of its rows alone (orderReferenceOf).
  const deliveries = await db<DeliveryRow[]>`
    select ${listedDeliveryOfPage(db)}, ${orderReferenceOf(db, "d")}
    from (
      select * from deliveries
      where store_id = ${storeId}
        ${filter.orderId ? db`and order_id = ${filter.orderId}` : db``}
        ${filter.endpointId ? db`and endpoint_id = ${filter.endpointId}` : db``}
        ${filter.status ? db`and status = ${filter.status}` : db``}
        ${filter.eventId ? db`and event_id = ${filter.eventId}` : db``}
        ${filter.livemode === undefined ? db`` : db`and endpoint_id in (select id from endpoints where store_id = ${storeId} and livemode = ${filter.livemode})`}
      order by created_at desc, id limit ${limit}
    ) d
    order by d.created_at desc, d.id`;
  const attempts = withAttempts ? await attemptsOf(db, deliveries.map((d) => d.id)) : [];
  const byDelivery = new Map<string, AttemptRow[]>(deliveries.map((delivery) => [delivery.id, []]));
  for (const attempt of attempts) byDelivery.get(attempt.delivery_id)!.push(attempt);
  return deliveries.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id)! }));
}

/** One of the store's deliveries with its attempts in order. */
export async function getDelivery(db: Db, storeId: string, deliveryId: string): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] } | undefined> {
  const [delivery] = await db<DeliveryRow[]>`select d.*, ${orderReferenceOf(db, "d")} from deliveries d where d.id = ${deliveryId} and d.store_id = ${storeId}`;
  if (!delivery) return undefined;
  return { delivery, attempts: await attemptsOf(db, [delivery.id]) };
}

/** Puts a delivery back in the queue now, keeping its history and its event id. */
export async function requeue(db: Db, storeId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const [row] = await db<DeliveryRow[]>`
    update deliveries set status = 'pending', next_attempt_at = clock_timestamp(), leased_until = null, unrecorded_sends = 0, updated_at = clock_timestamp()
    where id = ${deliveryId} and store_id = ${storeId}
      -- Not while an attempt is under way: it would be sent twice at once.
      and (leased_until is null or leased_until < clock_timestamp())
      -- A deleted endpoint's deliveries are history only.
      and endpoint_id in (select id from endpoints where deleted_at is null)
    returning *`;
  return row;
}

/**
 * "Resend failed since": a new delivery (same webhook-id) to the endpoint of every event
 * of its store since `since`, of the types it is subscribed to, that has not reached it
 * and is not on its way (every delivery of it failed, or none was made while it was
 * off), oldest first; how many.
 */
export async function insertResendDeliveries(db: Db, endpoint: EndpointRow, since: Date): Promise<number> {
  const rows = await db`
    insert into deliveries (endpoint_id, store_id, event_id, event_type, order_id, body, kind)
    select ${endpoint.id}, ev.store_id, ev.id, ev.type, ev.order_id, ev.body, 'replay'
    from events ev
    where ev.store_id = ${endpoint.store_id} and ev.livemode = ${endpoint.livemode} and ev.created_at >= ${since}
      and (${endpoint.event_types}::text[] is null or ev.type = any(${endpoint.event_types}::text[]))
      and not exists (
        select 1 from deliveries d
        where d.endpoint_id = ${endpoint.id} and d.event_id = ev.id and d.status in ('succeeded', 'pending')
      )
    order by ev.created_at, ev.id
    returning id`;
  return rows.length;
}

/**
 * A new `replay` delivery to the endpoint of every event of its store and mode created at or
 * after `since`, of the types it is subscribed to, oldest first; how many.
 */
export async function insertReplayDeliveries(db: Db, endpoint: EndpointRow, since: Date): Promise<number> {
  const rows = await db`
    insert into deliveries (endpoint_id, store_id, event_id, event_type, order_id, body, kind)
    select ${endpoint.id}, store_id, id, type, order_id, body, 'replay'
    from events
    where store_id = ${endpoint.store_id} and livemode = ${endpoint.livemode} and created_at >= ${since}
      and (${endpoint.event_types}::text[] is null or type = any(${endpoint.event_types}::text[]))
    order by created_at, id
    returning id`;
  return rows.length;
}

export interface EndpointHealthRow {
  endpoint_id: string;
  attempts: number;
  succeeded: number;
  last_at: Date;
  last_result: string;
  last_status_code: number | null;
}

/**
 * Per endpoint of the store in that mode: its attempts and successes from the hour `since` falls
 * in, and the latest of them, from endpoint_attempt_hours (at most 25 rows each).
 */
export async function endpointHealth(db: Db, storeId: string, since: Date, livemode = true): Promise<EndpointHealthRow[]> {
  return db<EndpointHealthRow[]>`
    select endpoint_id, sum(attempts)::int as attempts, sum(succeeded)::int as succeeded,
      (array_agg(last_at order by hour desc))[1] as last_at,
      (array_agg(last_result order by hour desc))[1] as last_result,
      (array_agg(last_status_code order by hour desc))[1] as last_status_code
    from endpoint_attempt_hours
    where store_id = ${storeId} and hour >= ${attemptHour(since)}
      -- The endpoints of one mode: the overview counts live endpoints' failures only.
      and endpoint_id in (select id from endpoints where store_id = ${storeId} and livemode = ${livemode})
    group by endpoint_id`;
}

/** Every store's deliveries still to be sent or retried (the metrics' backlog; the partial index deliveries_due holds them). */
export async function countWaitingDeliveries(db: Db): Promise<number> {
  const [row] = await db<{ count: number }[]>`select count(*)::int as count from deliveries where status = 'pending'`;
  return row?.count ?? 0;
}
