// The endpoints table: a store's webhook endpoints, their subscriptions, custom headers,
// rate and failing streak. Every function takes `db: Db`, a pool or a transaction
// (postgres.js `ISql`), so the caller decides what runs in one transaction. A deleted
// endpoint (deleted_at set) is found by none of these lookups: only its deliveries
// remain visible.
import type { Db } from "../../../platform/db.js";

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
  /** Live (true) or test (false): which events it receives (docs/webhooks.md#test-mode). Never changes. */
  livemode: boolean;
}

export type NewEndpoint = Pick<EndpointRow, "store_id" | "url" | "description" | "event_types"> & { /** Unset: live. */ livemode?: boolean };

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
    insert into endpoints (store_id, url, description, event_types, livemode)
    values (${endpoint.store_id}, ${endpoint.url}, ${endpoint.description}, ${endpoint.event_types}::text[], ${endpoint.livemode ?? true})
    returning *`;
  return row!;
}

/** The store's endpoints of one mode, oldest first. */
export async function listEndpoints(db: Db, storeId: string, livemode: boolean): Promise<EndpointRow[]> {
  return db<EndpointRow[]>`select * from endpoints where store_id = ${storeId} and livemode = ${livemode} and deleted_at is null order by created_at, id`;
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
