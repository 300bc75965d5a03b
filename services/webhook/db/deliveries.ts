// The webhook service's SQL, and only here. Every helper takes `db: Db`, a pool or a
// transaction (postgres.js `ISql`), so a caller decides what runs in one transaction;
// `transaction` opens one on the pool. No other module of services/webhook runs SQL.
import { ping, transaction, type Db, type Sql } from "../../../platform/db.js";
import { attemptHour } from "../health-window.js";

/** The pool: the one thing that can open a transaction. */
export type Pool = Sql;

export { ping, transaction, type Db };

export interface EndpointRow {
  id: string;
  store_id: string;
  url: string;
  enabled: boolean;
  disabled_reason: string | null;
  description: string;
  /** null: every event type. */
  event_types: string[] | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** When its attempts started failing (every one since has failed); null after a success. */
  failing_since: Date | null;
  /** When an endpoint disabled for failing started to (its first failed event): "Resend failed since"'s default. */
  failed_from: Date | null;
  /** Its custom headers' names, in order… */
  header_names: string[];
  /** …and the headers themselves, sealed (secret-box.ts) JSON `[{name, value}]`; null when none. */
  headers_sealed: string | null;
  /** Deliveries a second at most (endpoint-rate.ts); null: no limit. */
  max_per_second: number | null;
}

export type NewEndpoint = Pick<EndpointRow, "store_id" | "url" | "description" | "event_types">;

/** What UpdateEndpoint may change; an absent key stays as it is. */
export interface EndpointChanges {
  url?: string;
  description?: string;
  event_types?: string[] | null;
  enabled?: boolean;
  /** Recorded when `enabled: false` turns an enabled endpoint off. */
  disabled_reason?: string;
  /** null removes the limit. */
  max_per_second?: number | null;
}

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
}

/**
 * A leased delivery with where it goes, its endpoint's sealed headers and live secrets
 * (sealed, newest first); `enabled` is false for a deleted endpoint too.
 */
export type DueDelivery = DeliveryRow & { url: string; enabled: boolean; headers_sealed: string | null; secrets: string[] };

export type NewDelivery = Pick<DeliveryRow, "endpoint_id" | "store_id" | "event_id" | "event_type" | "order_id" | "body" | "kind">;

export interface DeliveryFilter {
  orderId?: string;
  endpointId?: string;
  status?: DeliveryStatus;
  eventId?: string;
}

export interface EventRow {
  id: string;
  store_id: string;
  type: string;
  order_id: string | null;
  body: string;
  created_at: Date;
}

export type NewEvent = Omit<EventRow, "created_at"> & {
  /** The consumer span's trace (tracing.ts), kept on each delivery for its attempts; null when untraced. */
  traceparent?: string | null;
};

export interface EventFilter {
  orderId?: string;
  type?: string;
  /** Only events created before this… */
  before?: Date;
  /** …or at it, with a smaller id (the last event of the page before). */
  beforeId?: string;
  /** Only events created at or after this (the retention's start). */
  notBefore: Date;
  /** Each body left out (empty). */
  withoutBodies?: boolean;
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

/** How an attempt leaves its delivery: the new status, when to try again, the last error. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt?: Date;
  error?: string;
}

// Endpoints and their secrets. A deleted endpoint (deleted_at set) is found by none of
// these lookups: only its deliveries remain visible.

/**
 * The store's endpoints, under a lock on the store held until the transaction ends
 * (`db` must be one): creating, setting and counting endpoints of one store take turns,
 * so no race makes an 11th endpoint or a second "only" one.
 */
export async function lockEndpointsOfStore(db: Db, storeId: string): Promise<EndpointRow[]> {
  await db`select pg_advisory_xact_lock(hashtext('webhooks.endpoints'), hashtext(${storeId}))`;
  return db<EndpointRow[]>`select * from endpoints where store_id = ${storeId} and deleted_at is null order by created_at, id`;
}

export async function insertEndpoint(db: Db, endpoint: NewEndpoint): Promise<EndpointRow> {
  const [row] = await db<EndpointRow[]>`
    insert into endpoints (store_id, url, description, event_types)
    values (${endpoint.store_id}, ${endpoint.url}, ${endpoint.description}, ${endpoint.event_types}::text[])
    returning *`;
  return row!;
}

/** The store's endpoints, oldest first. */
export async function listEndpoints(db: Db, storeId: string): Promise<EndpointRow[]> {
  return db<EndpointRow[]>`select * from endpoints where store_id = ${storeId} and deleted_at is null order by created_at, id`;
}

export async function endpointOfStore(db: Db, storeId: string, endpointId: string): Promise<EndpointRow | undefined> {
  const [row] = await db<EndpointRow[]>`
    select * from endpoints where id = ${endpointId} and store_id = ${storeId} and deleted_at is null`;
  return row;
}

/** The endpoint, locked until the transaction ends (`db` must be one). */
export async function lockEndpoint(db: Db, storeId: string, endpointId: string): Promise<EndpointRow | undefined> {
  const [row] = await db<EndpointRow[]>`
    select * from endpoints where id = ${endpointId} and store_id = ${storeId} and deleted_at is null for update`;
  return row;
}

/**
 * Applies the changes that are given. Enabling clears the reason it was off; disabling
 * an enabled endpoint records `disabled_reason` (an endpoint already off keeps its own).
 */
export async function updateEndpoint(db: Db, storeId: string, endpointId: string, changes: EndpointChanges): Promise<EndpointRow | undefined> {
  const setTypes = changes.event_types !== undefined;
  const enabled = changes.enabled ?? null;
  const [row] = await db<EndpointRow[]>`
    update endpoints set
      url = coalesce(${changes.url ?? null}::text, url),
      description = coalesce(${changes.description ?? null}::text, description),
      event_types = case when ${setTypes}::boolean then ${changes.event_types ?? null}::text[] else event_types end,
      max_per_second = case when ${changes.max_per_second !== undefined}::boolean then ${changes.max_per_second ?? null}::int else max_per_second end,
      disabled_reason = case
        when ${enabled}::boolean is null then disabled_reason
        when ${enabled}::boolean then null
        when enabled then ${changes.disabled_reason ?? null}::text
        else disabled_reason end,
      -- Enabled again, it starts with a clean slate: its old failures must not disable it at once.
      failing_since = case when ${enabled}::boolean and not enabled then null else failing_since end,
      enabled = coalesce(${enabled}::boolean, enabled),
      updated_at = clock_timestamp()
    where id = ${endpointId} and store_id = ${storeId} and deleted_at is null
    returning *`;
  return row;
}

/** Marks the endpoint deleted (and so disabled); undefined when the store has no such live endpoint. */
export async function markEndpointDeleted(db: Db, storeId: string, endpointId: string): Promise<EndpointRow | undefined> {
  const [row] = await db<EndpointRow[]>`
    update endpoints set deleted_at = clock_timestamp(), enabled = false, disabled_reason = 'deleted', updated_at = clock_timestamp()
    where id = ${endpointId} and store_id = ${storeId} and deleted_at is null
    returning *`;
  return row;
}

export async function disableEndpoint(db: Db, endpointId: string, reason: string): Promise<void> {
  await db`update endpoints set enabled = false, disabled_reason = ${reason}, updated_at = clock_timestamp() where id = ${endpointId}`;
}

export interface DisabledForFailing {
  id: string;
  store_id: string;
  url: string;
  description: string;
  failed_from: Date;
}

/**
 * Disables every enabled endpoint whose attempts have all failed since `before` or
 * earlier, saying so as its reason; each is returned once, to one caller, however many
 * instances sweep.
 */
export async function disableFailingEndpoints(db: Db, before: Date, forHowLong: string): Promise<DisabledForFailing[]> {
  return db<DisabledForFailing[]>`
    update endpoints set
      enabled = false,
      disabled_reason = 'every attempt failed for ' || ${forHowLong}::text || ', since '
        || to_char(failing_since at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'),
      -- "Resend failed since" must include the event whose delivery failed first, which
      -- happened a moment before its first attempt: the oldest event among the
      -- deliveries that failed or waited during the streak.
      failed_from = least(failing_since, (
        select min(ev.created_at) from deliveries d join events ev on ev.id = d.event_id
        where d.endpoint_id = endpoints.id and d.status <> 'succeeded' and d.updated_at >= endpoints.failing_since
      )),
      updated_at = clock_timestamp()
    -- Locked in id order first, as the consumer share-locks a store's endpoints
    -- (recordEvents): two statements taking several endpoint rows never cross.
    where id in (
      select id from endpoints
      where enabled and deleted_at is null and failing_since is not null and failing_since <= ${before}
      order by id
      for update)
    returning id, store_id, url, description, failed_from`;
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
    where ev.store_id = ${endpoint.store_id} and ev.created_at >= ${since}
      and (${endpoint.event_types}::text[] is null or ev.type = any(${endpoint.event_types}::text[]))
      and not exists (
        select 1 from deliveries d
        where d.endpoint_id = ${endpoint.id} and d.event_id = ev.id and d.status in ('succeeded', 'pending')
      )
    order by ev.created_at, ev.id
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
 * Per endpoint of the store: its attempts and successes from the hour `since` falls
 * in, and the latest of them, from endpoint_attempt_hours (at most 25 rows each).
 */
export async function endpointHealth(db: Db, storeId: string, since: Date): Promise<EndpointHealthRow[]> {
  return db<EndpointHealthRow[]>`
    select endpoint_id, sum(attempts)::int as attempts, sum(succeeded)::int as succeeded,
      (array_agg(last_at order by hour desc))[1] as last_at,
      (array_agg(last_result order by hour desc))[1] as last_result,
      (array_agg(last_status_code order by hour desc))[1] as last_status_code
    from endpoint_attempt_hours
    where store_id = ${storeId} and hour >= ${attemptHour(since)}
    group by endpoint_id`;
}

/** Deletes up to `batch` hours of endpoint health before `before`; how many. */
export async function purgeAttemptHours(db: Db, before: Date, batch: number): Promise<number> {
  const rows = await db`
    delete from endpoint_attempt_hours where (endpoint_id, hour) in (
      select endpoint_id, hour from endpoint_attempt_hours where hour < ${attemptHour(before)} limit ${batch} for update skip locked)
    returning 1`;
  return rows.length;
}

/**
 * Whether the endpoint takes deliveries now, its row held (FOR SHARE) until the
 * transaction ends: an UpdateEndpoint that enables it and resends (which locks the row
 * for update) is wholly before or wholly after.
 */
export async function endpointLiveForShare(db: Db, endpointId: string): Promise<boolean> {
  const [row] = await db<{ live: boolean }[]>`select (enabled and deleted_at is null) as live from endpoints where id = ${endpointId} for share`;
  return row?.live ?? false;
}

/** Replaces the endpoint's custom headers (names in the clear, all of them sealed). */
export async function setEndpointHeaders(db: Db, endpointId: string, names: string[], sealed: string | null): Promise<EndpointRow> {
  const [row] = await db<EndpointRow[]>`
    update endpoints set header_names = ${names}::text[], headers_sealed = ${sealed}, updated_at = clock_timestamp()
    where id = ${endpointId}
    returning *`;
  return row!;
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

/** The endpoint's sealed secrets that sign now, newest first: for one endpoint, or per leased delivery. */
const liveSecretsOf = (db: Db, endpointId: ReturnType<Db>) => db`
  select s.secret from endpoint_secrets s
  where s.endpoint_id = ${endpointId} and (s.expires_at is null or s.expires_at > clock_timestamp())
  order by s.created_at desc`;

/** Sealed secrets that sign now, newest first. */
export async function liveSecrets(db: Db, endpointId: string): Promise<string[]> {
  const rows = await db<{ secret: string }[]>`${liveSecretsOf(db, db`${endpointId}::uuid`)}`;
  return rows.map((row) => row.secret);
}

/** Forgets every secret of the endpoint, live or retired. */
export async function deleteSecrets(db: Db, endpointId: string): Promise<void> {
  await db`delete from endpoint_secrets where endpoint_id = ${endpointId}`;
}

// The event log.

/**
 * Records events in one statement, so atomically and with one commit for all of them:
 * each event once in the log and, only if it is new there, one delivery for each
 * enabled endpoint of its store subscribed to its type; how many deliveries. An event
 * recorded already (a redelivered message) adds nothing. The endpoints are
 * share-locked, so one being deleted or disabled at the same moment either gets the
 * delivery before it changes or none at all. Events and deliveries are inserted in the
 * order given, so their timestamps keep the order the events came in.
 */
export async function recordEvents(db: Db, events: NewEvent[]): Promise<number> {
  const unique = [...new Map(events.map((event) => [event.id, event])).values()];
  if (unique.length === 0) return 0;
  const rows = await db`
    with batch as (
      select * from unnest(
        ${unique.map((e) => e.id)}::uuid[], ${unique.map((e) => e.store_id)}::uuid[], ${unique.map((e) => e.type)}::text[],
        ${unique.map((e) => e.order_id)}::uuid[], ${unique.map((e) => e.body)}::text[],
        ${unique.map((e) => e.traceparent ?? null)}::text[]
      ) with ordinality as b (id, store_id, type, order_id, body, traceparent, ord)
    ), new_events as (
      insert into events (id, store_id, type, order_id, body)
      select id, store_id, type, order_id, body from batch order by ord
      on conflict (id) do nothing
      returning id
    ), live as materialized (
      -- Every live endpoint of the batch's stores is share-locked, enabled or not, and
      -- read as the lock leaves it: an endpoint being enabled ("Resend failed since")
      -- either waits for these events to commit, and its resend sees them, or has
      -- committed first, and is read here as enabled. Filtering on enabled before the
      -- lock would skip an endpoint this statement's snapshot still saw as off, and its
      -- resend could not see these events yet: they would reach it by neither.
      select e.id, e.store_id, e.enabled, e.event_types, e.created_at from endpoints e
      where e.store_id = any(${[...new Set(unique.map((e) => e.store_id))]}::uuid[]) and e.deleted_at is null
      order by e.id
      for share
    )
    insert into deliveries (endpoint_id, store_id, event_id, event_type, order_id, body, kind, traceparent)
    select e.id, e.store_id, b.id, b.type, b.order_id, b.body, 'event', b.traceparent
    from batch b
    join new_events n on n.id = b.id
    join live e on e.store_id = b.store_id and e.enabled
      and (e.event_types is null or b.type = any(e.event_types))
    order by b.ord, e.created_at, e.id
    -- A delivery recorded before the event log existed (the same event redelivered
    -- across the upgrade) stays the only one.
    on conflict (endpoint_id, event_id) where kind = 'event' do nothing
    returning id`;
  return rows.length;
}

/**
 * A delivery's columns as lists carry it: without its body, which only GetDelivery
 * sends (an event's body is on the event), so a list page does not read a hundred
 * bodies from TOAST to throw them away.
 */
const listedDelivery = (db: Db) => db`
  id, endpoint_id, store_id, event_id, event_type, order_id, '' as body, kind, status, attempts, next_attempt_at, last_error, created_at, updated_at`;

/** The store's events matching `filter`, newest first, each with its deliveries (oldest first, no attempts). */
export async function listEvents(db: Db, storeId: string, filter: EventFilter, limit: number): Promise<{ event: EventRow; deliveries: DeliveryRow[] }[]> {
  const events = await db<EventRow[]>`
    select ${filter.withoutBodies ? db`id, store_id, type, order_id, '' as body, created_at` : db`*`} from events
    where store_id = ${storeId} and created_at >= ${filter.notBefore}
      ${filter.orderId ? db`and order_id = ${filter.orderId}` : db``}
      ${filter.type ? db`and type = ${filter.type}` : db``}
      ${filter.before ? (filter.beforeId ? db`and created_at <= ${filter.before} and (created_at < ${filter.before} or id < ${filter.beforeId}::uuid)` : db`and created_at < ${filter.before}`) : db``}
    order by created_at desc, id desc
    limit ${limit}`;
  const ids = events.map((e) => e.id);
  const deliveries = ids.length
    ? await db<DeliveryRow[]>`
        select ${listedDelivery(db)} from deliveries where store_id = ${storeId} and event_id = any(${ids}::uuid[]) order by created_at, id`
    : [];
  // One pass, as the order service's itemsOf: a filter per event was events × deliveries.
  const byEvent = new Map<string, DeliveryRow[]>(ids.map((id) => [id, []]));
  for (const delivery of deliveries) byEvent.get(delivery.event_id)!.push(delivery);
  return events.map((event) => ({ event, deliveries: byEvent.get(event.id)! }));
}

/**
 * A new `replay` delivery to the endpoint of every event of its store created at or
 * after `since`, of the types it is subscribed to, oldest first; how many.
 */
export async function insertReplayDeliveries(db: Db, endpoint: EndpointRow, since: Date): Promise<number> {
  const rows = await db`
    insert into deliveries (endpoint_id, store_id, event_id, event_type, order_id, body, kind)
    select ${endpoint.id}, store_id, id, type, order_id, body, 'replay'
    from events
    where store_id = ${endpoint.store_id} and created_at >= ${since}
      and (${endpoint.event_types}::text[] is null or type = any(${endpoint.event_types}::text[]))
    order by created_at, id
    returning id`;
  return rows.length;
}

// Deliveries and attempts.

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
export async function recordAttempt(db: Db, attempt: Omit<AttemptRow, "number">, outcome: AttemptOutcome, sent?: SentTo): Promise<void> {
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
      insert into delivery_attempts (delivery_id, number, started_at, status_code, latency_ms, result, error, response_excerpt)
      select f.id, f.attempts, ${attempt.started_at}::timestamptz, ${attempt.status_code}::int, ${attempt.latency_ms}::int,
        ${attempt.result}::text, ${attempt.error}::text, ${attempt.response_excerpt}::text
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
    select delivery_id, number, started_at, status_code, latency_ms, result, error, response_excerpt
    from delivery_attempts where delivery_id = any(${deliveryIds}::uuid[]) order by delivery_id, number`;
}

/** The store's newest deliveries matching `filter`, each with its attempts in order. */
export async function listDeliveries(db: Db, storeId: string, filter: DeliveryFilter, limit: number, withAttempts = true) {
  const deliveries = await db<DeliveryRow[]>`
    select ${listedDelivery(db)} from deliveries
    where store_id = ${storeId}
      ${filter.orderId ? db`and order_id = ${filter.orderId}` : db``}
      ${filter.endpointId ? db`and endpoint_id = ${filter.endpointId}` : db``}
      ${filter.status ? db`and status = ${filter.status}` : db``}
      ${filter.eventId ? db`and event_id = ${filter.eventId}` : db``}
    order by created_at desc, id limit ${limit}`;
  const attempts = withAttempts ? await attemptsOf(db, deliveries.map((d) => d.id)) : [];
  const byDelivery = new Map<string, AttemptRow[]>(deliveries.map((delivery) => [delivery.id, []]));
  for (const attempt of attempts) byDelivery.get(attempt.delivery_id)!.push(attempt);
  return deliveries.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id)! }));
}

/** One of the store's deliveries with its attempts in order. */
export async function getDelivery(db: Db, storeId: string, deliveryId: string): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] } | undefined> {
  const [delivery] = await db<DeliveryRow[]>`select * from deliveries where id = ${deliveryId} and store_id = ${storeId}`;
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

// Retention: each purge statement removes at most `batch` rows, a short transaction of
// its own, so the purge never holds many locks or one long transaction.

/** Deletes up to `batch` events created before `before`; how many. */
export async function purgeEvents(db: Db, before: Date, batch: number): Promise<number> {
  const rows = await db`
    delete from events where id in (
      select id from events where created_at < ${before} limit ${batch} for update skip locked)
    returning id`;
  return rows.length;
}

/** Deletes up to `batch` settled deliveries last changed before `before`, with their attempts. */
export async function purgeDeliveries(db: Db, before: Date, batch: number): Promise<{ deliveries: number; attempts: number }> {
  const [row] = await db<{ deliveries: number; attempts: number }[]>`
    with doomed as (
      select id from deliveries
      where status <> 'pending' and updated_at < ${before}
      limit ${batch} for update skip locked
    ), attempts as (
      delete from delivery_attempts where delivery_id in (select id from doomed) returning 1
    ), gone as (
      delete from deliveries where id in (select id from doomed) returning 1
    )
    select (select count(*) from gone)::int as deliveries, (select count(*) from attempts)::int as attempts`;
  return row!;
}

/** Deletes up to `batch` endpoints deleted before `before` that have no delivery left; how many. */
export async function purgeDeletedEndpoints(db: Db, before: Date, batch: number): Promise<number> {
  const rows = await db`
    delete from endpoints where id in (
      select e.id from endpoints e
      where e.deleted_at < ${before} and not exists (select 1 from deliveries d where d.endpoint_id = e.id)
      limit ${batch} for update skip locked)
    returning id`;
  return rows.length;
}

// The webhook service's part of the store's audit log (003_audit_log.sql): the same table
// in every service's schema, so one set of statements serves them all.
export { insertAudit, listAudit, type AuditRow, type NewAuditEntry } from "../../../platform/audit-log.js";

/** Every store's deliveries still to be sent or retried (the metrics' backlog; the partial index deliveries_due holds them). */
export async function countWaitingDeliveries(db: Db): Promise<number> {
  const [row] = await db<{ count: number }[]>`select count(*)::int as count from deliveries where status = 'pending'`;
  return row?.count ?? 0;
}
