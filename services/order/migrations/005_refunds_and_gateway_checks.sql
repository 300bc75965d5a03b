-- Refunds (docs/refunds.md) and the gateway's own word when its notification is lost.

-- What the order's succeeded refunds add up to; the order turns `refunded` when it
-- reaches `amount`.
alter table orders add column refunded_amount bigint not null default 0;
alter table orders add constraint orders_refunded_amount check (refunded_amount between 0 and amount);

-- When a pending gateway order is next asked about at the gateway (null: never again),
-- and how many times it has been, which spaces the checks out.
alter table orders add column next_status_check_at timestamptz;
alter table orders add column status_checks int not null default 0;
-- When an expired or cancelled gateway order is next to be expired at the gateway too
-- (null: nothing to do), so the buyer cannot pay it after.
alter table orders add column gateway_expire_at timestamptz;

create index orders_status_check_due on orders (next_status_check_at) where next_status_check_at is not null;
create index orders_gateway_expire_due on orders (gateway_expire_at) where gateway_expire_at is not null;

-- Orders that were pending at the gateway before this existed are checked from now on.
update orders set next_status_check_at = greatest(created_at + interval '15 minutes', clock_timestamp())
where status = 'pending' and payment_kind = 'gateway';

create table refunds (
  -- Also the refund_key the gateway is given, on every attempt.
  id uuid primary key,
  store_id uuid not null,
  order_id uuid not null references orders (id),
  amount bigint not null check (amount > 0),
  reason text not null,
  reference text,
  status text not null check (status in ('pending', 'succeeded', 'failed')),
  failure_message text,
  method text not null check (method in ('gateway', 'manual')),
  -- A refund the gateway reported without our asking: its key there, so it is recorded once.
  gateway_key text,
  idempotency_key text,
  request_hash text,
  -- The first answer (order.v1.RefundOrderResponse, binary), for an Idempotency-Key replay.
  response bytea,
  attempts int not null default 0,
  -- A pending gateway refund is next sent then; whoever sends it moves this on first.
  next_attempt_at timestamptz,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);
create index refunds_order on refunds (order_id, created_at, id);
create unique index refunds_idempotency_key on refunds (store_id, idempotency_key) where idempotency_key is not null;
create unique index refunds_gateway_key on refunds (order_id, gateway_key) where gateway_key is not null;
create index refunds_retry_due on refunds (next_attempt_at) where status = 'pending';
