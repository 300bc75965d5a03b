-- Order service schema: orders, their items (a price snapshot), payment sessions,
-- status history, idempotency records and the transactional outbox.
create table orders (
  id uuid primary key default gen_random_uuid(),
  store_id uuid not null,
  status text not null check (status in ('pending', 'paid', 'failed', 'expired', 'cancelled', 'refunded')),
  payment_reference text not null unique check (payment_reference ~ '^[A-Z0-9-]{8,40}$'),
  payment_kind text not null check (payment_kind in ('none', 'bank_transfer', 'gateway')),
  payment_method text not null,
  payment_provider text not null,
  settlement_channel text not null,
  subtotal bigint not null check (subtotal between 0 and 1000000000000),
  unique_amount_code int check (unique_amount_code between 1 and 999),
  amount bigint not null check (amount between 0 and 1000000999999),
  currency text not null default 'IDR',
  buyer_name text not null,
  buyer_email text not null,
  buyer_phone text not null,
  -- The seller's account as it was when the order was made: what the buyer was told.
  bank_name text,
  bank_code text,
  account_number text,
  account_holder text,
  store_name text not null,
  success_url text not null,
  return_url text not null,
  error_url text not null,
  external_id text,
  expires_at timestamptz not null,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);
-- No two pending bank-transfer orders of a store may ask for the same transfer amount:
-- the amount is how the seller tells transfers apart.
create unique index orders_pending_transfer_amount on orders (store_id, amount)
  where status = 'pending' and payment_kind = 'bank_transfer';
create index orders_store_recent on orders (store_id, created_at desc, id desc);
create index orders_store_status_recent on orders (store_id, status, created_at desc, id desc);
create index orders_pending_expiry on orders (expires_at) where status = 'pending';

create table order_items (
  order_id uuid not null references orders (id),
  position int not null,
  type text not null check (type in ('product', 'bundle')),
  item_id uuid not null,
  title text not null,
  quantity int not null check (quantity between 1 and 1000),
  unit_price bigint not null check (unit_price >= 0),
  line_total bigint not null check (line_total >= 0),
  primary key (order_id, position)
);

create table payment_sessions (
  id uuid primary key default gen_random_uuid(),
  order_id uuid not null references orders (id),
  provider text not null,
  token text not null unique,
  redirect_url text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default clock_timestamp()
);
create index payment_sessions_order on payment_sessions (order_id, created_at desc);

create table order_status_history (
  id bigserial primary key,
  order_id uuid not null references orders (id),
  from_status text,
  to_status text not null,
  cause text not null,
  created_at timestamptz not null default clock_timestamp()
);
create index order_status_history_order on order_status_history (order_id, id);

create table idempotency_keys (
  store_id uuid not null,
  key text not null,
  request_hash text not null,
  order_id uuid,
  -- The first response (order.v1.CreateOrderResponse, binary) once it is complete.
  response bytea,
  created_at timestamptz not null default clock_timestamp(),
  primary key (store_id, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);

create table outbox (
  id uuid primary key,
  store_id uuid not null,
  order_id uuid not null references orders (id),
  event_type text not null,
  payload jsonb not null,
  created_at timestamptz not null default clock_timestamp(),
  published_at timestamptz
);
create index outbox_unpublished on outbox (created_at) where published_at is null;
