-- Webhook service schema: endpoints, their secrets, deliveries and every attempt.
create table endpoints (
  id uuid primary key default gen_random_uuid(),
  -- One endpoint per store: `webhook set` replaces the URL.
  store_id uuid not null unique,
  url text not null,
  enabled boolean not null default true,
  disabled_reason text,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);

create table endpoint_secrets (
  id uuid primary key default gen_random_uuid(),
  endpoint_id uuid not null references endpoints (id),
  -- "plain:<whsec_…>" or, with WEBHOOK_SECRET_KEY, "aesgcm:<iv>:<tag>:<ciphertext>".
  secret text not null,
  created_at timestamptz not null default clock_timestamp(),
  -- Set when rotated out: it keeps signing until then.
  expires_at timestamptz
);
create index endpoint_secrets_endpoint on endpoint_secrets (endpoint_id);

create table deliveries (
  id uuid primary key default gen_random_uuid(),
  endpoint_id uuid not null references endpoints (id),
  store_id uuid not null,
  event_id uuid not null,
  event_type text not null,
  order_id uuid,
  -- The request body, byte for byte what is signed and sent on every attempt.
  body text not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed', 'refused')),
  attempts int not null default 0,
  next_attempt_at timestamptz not null default clock_timestamp(),
  -- An instance sending this delivery holds it until then; a crashed one lets go.
  leased_until timestamptz,
  last_error text,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (endpoint_id, event_id)
);
create index deliveries_due on deliveries (next_attempt_at) where status = 'pending';
create index deliveries_store on deliveries (store_id, created_at desc);

create table delivery_attempts (
  id bigserial primary key,
  delivery_id uuid not null references deliveries (id),
  number int not null,
  started_at timestamptz not null,
  status_code int,
  latency_ms int not null,
  result text not null,
  error text,
  response_excerpt text
);
create index delivery_attempts_delivery on delivery_attempts (delivery_id, number);
