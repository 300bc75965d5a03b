-- Bank-transfer reconciliation (docs/reconciliation.md): incoming bank mutations, matched to
-- bank-transfer orders by their unique transfer amount.

-- What a history row's cause refers to: the bank mutation id for cause bank_mutation.
alter table order_status_history add column detail text;

-- A transfer amount stays its order's while the order is pending and for
-- BANK_MATCH_GRACE after it expires or is cancelled, so a late transfer can never pay a
-- newer order with the same amount. A partial unique index cannot say "until a time"
-- (its predicate cannot read the clock), so each amount of a store has one row naming
-- its holder: `reserved_until` is infinity while the order is pending, expiry or
-- cancellation + grace afterwards, and the row goes when the order is paid. A new order
-- takes an amount with no row or one whose time has passed; the primary key settles
-- races between orders reaching for the same amount.
create table transfer_amount_reservations (
  store_id uuid not null,
  amount bigint not null,
  -- Deferred: the amount is reserved before its order row is written, in one transaction.
  order_id uuid not null unique references orders (id) deferrable initially deferred,
  reserved_until timestamptz not null,
  primary key (store_id, amount)
);

-- The codes in use now, with the default grace (7 days; the SQL cannot read the
-- configuration). Where older data has several orders on one amount (pending orders
-- used to free their amount on expiry), the newest order keeps it.
insert into transfer_amount_reservations (store_id, amount, order_id, reserved_until)
select distinct on (store_id, amount) store_id, amount, id, reserved_until
from (
  select store_id, amount, id, created_at,
    case status
      when 'pending' then 'infinity'::timestamptz
      when 'expired' then expires_at + interval '7 days'
      else updated_at + interval '7 days'
    end as reserved_until
  from orders
  where payment_kind = 'bank_transfer' and status in ('pending', 'expired', 'cancelled')
) held
where reserved_until > clock_timestamp()
order by store_id, amount, created_at desc, id desc;

-- The reservations decide now; matching looks a store's transfer orders up by amount.
drop index orders_pending_transfer_amount;
create index orders_store_transfer_amount on orders (store_id, amount, created_at) where payment_kind = 'bank_transfer';

-- Each mutation once per store, by the bank's id. The row is written before the
-- mutation is judged, so a second call carrying it waits on this key and then sees the
-- first one's result.
create table bank_mutations (
  store_id uuid not null,
  mutation_id text not null check (length(mutation_id) between 1 and 100),
  amount bigint not null check (amount > 0),
  type text not null check (type in ('credit', 'debit')),
  occurred_at timestamptz not null,
  description text not null,
  status text not null check (status in ('matched', 'unmatched', 'ignored', 'assigned', 'dismissed')),
  reason text not null default '',
  order_id uuid references orders (id),
  -- When the call carrying it arrived, and its place in that call: a call's mutations
  -- are judged a few at a time, so only these say which came later.
  received_at timestamptz not null,
  request_position int not null,
  reviewed_at timestamptz,
  primary key (store_id, mutation_id)
);
create index bank_mutations_store_recent on bank_mutations (store_id, received_at desc, request_position desc);
-- The review list and its count, on every dashboard view.
create index bank_mutations_review on bank_mutations (store_id, received_at desc, request_position desc) where status = 'unmatched';
