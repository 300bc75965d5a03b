-- Test mode (docs/webhooks.md#test-mode): an endpoint is live or test, and so is an
-- event (its order's `livemode`). A test event is delivered only to test endpoints, a
-- live one only to live endpoints. Every existing row is live, as every key was.
alter table endpoints add column livemode boolean not null default true;
alter table events add column livemode boolean not null default true;

-- The event log and GET /v1/events list one mode of a store, newest first.
drop index events_store;
create index events_store on events (store_id, livemode, created_at desc, id desc);
