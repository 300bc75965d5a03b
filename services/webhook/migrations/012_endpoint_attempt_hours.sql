-- Endpoint health (docs/dashboard.md#overview: the overview's failed attempts, each endpoint's success
-- rate over 24 h and its last attempt) kept per endpoint and UTC hour, added to in the
-- statement that records an attempt (store.insertAttempt). Before, every overview and
-- Webhooks page joined a day of the store's deliveries to their attempts: tens of
-- thousands of rows a day at a busy store, and a scan of every attempt when the planner
-- guessed so. Now it reads at most 25 rows per endpoint. No foreign key: a deleted
-- endpoint is purged long after its hours are (store.purgeAttemptHours).
create table endpoint_attempt_hours (
  endpoint_id uuid not null,
  store_id uuid not null,
  hour timestamptz not null,
  attempts integer not null,
  succeeded integer not null,
  -- The hour's latest attempt: the newest hour's is the endpoint's last.
  last_at timestamptz not null,
  last_result text not null,
  last_status_code integer,
  primary key (endpoint_id, hour)
);
create index endpoint_attempt_hours_store on endpoint_attempt_hours (store_id, hour);

insert into endpoint_attempt_hours (endpoint_id, store_id, hour, attempts, succeeded, last_at, last_result, last_status_code)
select d.endpoint_id, d.store_id, to_timestamp(floor(extract(epoch from a.started_at) / 3600) * 3600), count(*),
  count(*) filter (where a.result = 'succeeded'),
  max(a.started_at),
  (array_agg(a.result order by a.started_at desc))[1],
  (array_agg(a.status_code order by a.started_at desc))[1]
from delivery_attempts a join deliveries d on d.id = a.delivery_id
where a.started_at >= now() - interval '25 hours'
group by 1, 2, 3;
