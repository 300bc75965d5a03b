-- Max deliveries per second per endpoint (docs/webhooks.md#rate), for every webhook-service
-- instance at once: a token bucket kept on the endpoint's row. `rate_tokens` is what was
-- left at `rate_updated_at`; it refills at max_per_second and holds at most that many
-- (the burst). Leasing a delivery takes a token; deliveries beyond them stay due.
alter table endpoints
  add column max_per_second int check (max_per_second between 1 and 1000),
  add column rate_tokens float8,
  add column rate_updated_at timestamptz;
