// The events table: the event log, every order event of a store whether or not an
// endpoint existed when it happened. Every function takes `db: Db`, a pool or a
// transaction (postgres.js `ISql`), so the caller decides what runs in one transaction.
import type { Db } from "../../../platform/db.js";
import { listedDelivery, orderReferenceOf, type DeliveryRow } from "./deliveries.js";

export interface EventRow {
  id: string;
  store_id: string;
  type: string;
  order_id: string | null;
  body: string;
  /** Its order's mode (docs/webhooks.md#test-mode): false for test data. */
  livemode: boolean;
  created_at: Date;
  /** Its order's payment reference (SO-…), read from the body by listEvents. */
  order_reference?: string | null;
}

export type NewEvent = Omit<EventRow, "created_at" | "livemode"> & {
  /** Unset: live. */
  livemode?: boolean;
  /** The consumer span's trace (tracing.ts), kept on each delivery for its attempts; null when untraced. */
  traceparent?: string | null;
};

export interface EventFilter {
  /** The mode listed: live (true, also when unset) or test (false) events only. */
  livemode?: boolean;
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

/**
 * Records events in one statement, so atomically and with one commit for all of them:
 * each event once in the log and, only if it is new there, one delivery for each
 * enabled endpoint of its store and mode subscribed to its type; how many deliveries. An event
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
        ${unique.map((e) => e.traceparent ?? null)}::text[],
        -- As text: postgres.js types an array of booleans as a boolean.
        ${unique.map((e) => String(e.livemode ?? true))}::text[]::boolean[]
      ) with ordinality as b (id, store_id, type, order_id, body, traceparent, livemode, ord)
    ), new_events as (
      insert into events (id, store_id, type, order_id, body, livemode)
      select id, store_id, type, order_id, body, livemode from batch order by ord
      on conflict (id) do nothing
      returning id
    ), live as materialized (
      -- Every live endpoint of the batch's stores is share-locked, enabled or not, and
      -- read as the lock leaves it: an endpoint being enabled ("Resend failed since")
      -- either waits for these events to commit, and its resend sees them, or has
      -- committed first, and is read here as enabled. Filtering on enabled before the
      -- lock would skip an endpoint this statement's snapshot still saw as off, and its
      -- resend could not see these events yet: they would reach it by neither.
      select e.id, e.store_id, e.enabled, e.event_types, e.livemode, e.created_at from endpoints e
      where e.store_id = any(${[...new Set(unique.map((e) => e.store_id))]}::uuid[]) and e.deleted_at is null
      order by e.id
      for share
    )
    insert into deliveries (endpoint_id, store_id, event_id, event_type, order_id, body, kind, traceparent)
    select e.id, e.store_id, b.id, b.type, b.order_id, b.body, 'event', b.traceparent
    from batch b
    join new_events n on n.id = b.id
    -- A test event reaches test endpoints only, a live one live endpoints only.
    join live e on e.store_id = b.store_id and e.enabled and e.livemode = b.livemode
      and (e.event_types is null or b.type = any(e.event_types))
    order by b.ord, e.created_at, e.id
    -- A delivery recorded before the event log existed (the same event redelivered
    -- across the upgrade) stays the only one.
    on conflict (endpoint_id, event_id) where kind = 'event' do nothing
    returning id`;
  return rows.length;
}

/** The store's events matching `filter`, newest first, each with its deliveries (oldest first, no attempts). */
export async function listEvents(db: Db, storeId: string, filter: EventFilter, limit: number): Promise<{ event: EventRow; deliveries: DeliveryRow[] }[]> {
  // The page is chosen first (the LIMIT in its own subquery, which the planner keeps
  // apart), then each of its rows has its order's reference read from its body: only
  // the bodies of the rows shown are parsed, in the same round trip.
  const events = await db<EventRow[]>`
    select e.id, e.store_id, e.type, e.order_id, ${filter.withoutBodies ? db`''` : db`e.body`} as body, e.livemode, e.created_at, ${orderReferenceOf(db, "e")}
    from (
      select id, store_id, type, order_id, body, livemode, created_at from events
      where store_id = ${storeId} and livemode = ${filter.livemode ?? true} and created_at >= ${filter.notBefore}
        ${filter.orderId ? db`and order_id = ${filter.orderId}` : db``}
        ${filter.type ? db`and type = ${filter.type}` : db``}
        ${filter.before ? (filter.beforeId ? db`and created_at <= ${filter.before} and (created_at < ${filter.before} or id < ${filter.beforeId}::uuid)` : db`and created_at < ${filter.before}`) : db``}
      order by created_at desc, id desc
      limit ${limit}
    ) e
    order by e.created_at desc, e.id desc`;
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

/** One event of the store in that mode created at or after `notBefore`; undefined when there is none. */
export async function eventOfStore(db: Db, storeId: string, livemode: boolean, eventId: string, notBefore: Date): Promise<Pick<EventRow, "id" | "created_at"> | undefined> {
  const [row] = await db<Pick<EventRow, "id" | "created_at">[]>`
    select id, created_at from events where id = ${eventId} and store_id = ${storeId} and livemode = ${livemode} and created_at >= ${notBefore}`;
  return row;
}
