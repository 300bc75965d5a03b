-- Test mode (docs/keys.md#test-mode): a store's test data lives beside its live data in
-- the same tables and never mixes with it. Every mode-bearing row says its mode; every
-- existing row is live, as every caller was before.
-- Migrations applied together share one transaction: reservations written by an earlier
-- one (004, 006) still have their deferred order check pending, and ALTER TABLE refuses
-- a table with pending checks. Run them now.
set constraints all immediate;

alter table orders add column livemode boolean not null default true;
alter table bank_mutations add column livemode boolean not null default true;
alter table transfer_amount_reservations add column livemode boolean not null default true;
alter table idempotency_keys add column livemode boolean not null default true;
alter table refunds add column livemode boolean not null default true;

-- Each mode has its own unique transfer codes (docs/reconciliation.md#test-mode): a test
-- order never takes, nor waits for, the amount of a live order, and a test transfer can
-- never pay a live order.
alter table transfer_amount_reservations drop constraint transfer_amount_reservations_pkey;
alter table transfer_amount_reservations add primary key (store_id, livemode, amount);

-- A mutation id is the store's once per mode: a test import may reuse the bank's ids of
-- a real statement without blocking (or replaying) the live import of it later.
alter table bank_mutations drop constraint bank_mutations_pkey;
alter table bank_mutations add primary key (store_id, livemode, mutation_id);
drop index bank_mutations_store_recent;
create index bank_mutations_store_recent on bank_mutations (store_id, livemode, received_at desc, request_position desc);
drop index bank_mutations_review;
create index bank_mutations_review on bank_mutations (store_id, livemode, received_at desc, request_position desc) where status = 'unmatched';

-- An Idempotency-Key is a key of its mode: the same key sent with a test key and with a
-- live key makes two orders (or two refunds), one of each mode.
alter table idempotency_keys drop constraint idempotency_keys_pkey;
alter table idempotency_keys add primary key (store_id, livemode, key);
drop index refunds_idempotency_key;
create unique index refunds_idempotency_key on refunds (store_id, livemode, idempotency_key) where idempotency_key is not null;

-- Every list, search and count of a store's orders reads one mode: the mode goes right
-- after the store in each index they walk, so they stay index ranges (and the counts
-- index-only) however much of the other mode there is.
drop index orders_store_recent;
create index orders_store_recent on orders (store_id, livemode, created_at desc, id desc);
drop index orders_store_status_recent;
create index orders_store_status_recent on orders (store_id, livemode, status, created_at desc, id desc);
drop index orders_store_external_id;
create index orders_store_external_id on orders (store_id, livemode, external_id) where external_id is not null;
drop index orders_store_buyer_email;
create index orders_store_buyer_email on orders (store_id, livemode, lower(buyer_email));
drop index orders_store_pending_expiry;
create index orders_store_pending_expiry on orders (store_id, livemode, expires_at) where status = 'pending';
-- Matching looks up the transfer orders of one mode by amount.
drop index orders_store_transfer_amount;
create index orders_store_transfer_amount on orders (store_id, livemode, amount, created_at) where payment_kind = 'bank_transfer';
