-- The webhook service's part of each store's audit log (docs/team.md#audit-log): every change a
-- person, the operator or an API key makes here is written in the same transaction as
-- the change, so nothing is changed without its record and nothing is recorded that
-- did not happen. Readers merge it with the other services' parts by time.
create table audit_log (
  id uuid primary key default gen_random_uuid(),
  -- Ties within one microsecond still list in the order they were written.
  seq bigint generated always as identity,
  store_id uuid not null,
  created_at timestamptz not null default clock_timestamp(),
  actor text not null,
  action text not null,
  target text not null
);
create index audit_log_store on audit_log (store_id, created_at desc, seq desc);
