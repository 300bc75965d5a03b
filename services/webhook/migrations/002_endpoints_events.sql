-- Developer settings: up to 10 endpoints a store, each with a description and a
-- subscription; an event log kept for EVENT_RETENTION; replayed and test deliveries.
-- Every existing row stays valid: an existing endpoint receives every event type, and
-- every existing delivery is of kind 'event'.

-- Several endpoints a store. The limit of 10 is kept by the service under an advisory
-- lock per store, since a partial count cannot be a constraint.
alter table endpoints drop constraint endpoints_store_id_key;
alter table endpoints
  add column description text not null default '',
  -- null: every event type, including types added later; else the chosen ones.
  add column event_types text[],
  -- Deleted endpoints are kept (disabled, secrets gone) so their deliveries stay
  -- readable; every lookup of live endpoints skips them.
  add column deleted_at timestamptz;
create index endpoints_store on endpoints (store_id, created_at) where deleted_at is null;

-- Every order event the bus brought, whether or not the store had an endpoint then.
create table events (
  -- The bus's event id: the webhook-id of every delivery of it.
  id uuid primary key,
  store_id uuid not null,
  type text not null,
  order_id uuid,
  -- Byte for byte what the order service published, and what is signed and sent.
  body text not null,
  -- Milliseconds, as the API shows them, so `before` pages without skipping rows that
  -- differ only in microseconds.
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index events_store on events (store_id, created_at desc);
create index events_order on events (store_id, order_id, created_at desc) where order_id is not null;
create index events_created on events (created_at);

-- The deliveries already recorded carry their event's body as received: they seed the
-- log, so events from before this migration can be listed and replayed too.
insert into events (id, store_id, type, order_id, body, created_at)
  select distinct on (event_id) event_id, store_id, event_type, order_id, body, date_trunc('milliseconds', created_at)
  from deliveries
  order by event_id, created_at;

-- An event reaches an endpoint once as itself; replays and test events are further
-- deliveries with the same (or, for tests, a fresh) event id.
alter table deliveries
  add column kind text not null default 'event' check (kind in ('event', 'replay', 'test'));
alter table deliveries drop constraint deliveries_endpoint_id_event_id_key;
create unique index deliveries_event_once on deliveries (endpoint_id, event_id) where kind = 'event';
create index deliveries_event on deliveries (event_id);
create index deliveries_endpoint on deliveries (endpoint_id, created_at desc);
-- What the purge looks for: settled deliveries by when they last changed.
create index deliveries_settled on deliveries (updated_at) where status <> 'pending';
