-- Token buckets shared by every gateway instance, so a store's limit holds for the
-- store as a whole however many gateways serve it.
create table rate_buckets (
  bucket text primary key,
  tokens double precision not null,
  allowed boolean not null,
  refreshed_at timestamptz not null
);
