-- Stock held by orders (docs/catalog.md#stock, docs/orders.md#stock). The catalog holds a
-- new order's units before the order is written; what happens to them afterwards is
-- written here, in the transaction of the order's own change, and relayed to the
-- catalog by services/order/stock-relay.ts: the transactional outbox, with the catalog's
-- ApplyStockChanges as its destination instead of the bus.
--
-- holds_stock: the catalog held units for the order (its answer said so). Only such an
-- order writes stock changes; every order before this migration held nothing.
alter table orders add column holds_stock boolean not null default false;

-- restock: the refund asked to put the order's sold units back once it succeeds.
alter table refunds add column restock boolean not null default false;

-- One row per change to send: 'confirm' (the order was written), 'release' (expired,
-- cancelled, failed), 'sell' (paid), 'restock' (a refund asked for it succeeded). The
-- id is the order of writing, which is the order they are sent in: an order's release
-- never overtakes its confirm. sent_at is set in the relay's transaction once the
-- catalog has applied the batch; the catalog applies each (order, action) once, so a
-- batch sent again after a crash changes nothing.
create table stock_changes (
  id bigserial primary key,
  store_id uuid not null,
  order_id uuid not null references orders (id),
  action text not null check (action in ('confirm', 'release', 'sell', 'restock')),
  created_at timestamptz not null default clock_timestamp(),
  sent_at timestamptz
);

-- The relay's queue: unsent changes in writing order, and per order the earliest unsent
-- one (a change waits while an earlier one of its order is unsent).
create index stock_changes_unsent on stock_changes (id) where sent_at is null;
create index stock_changes_unsent_by_order on stock_changes (order_id, id) where sent_at is null;
-- Sent changes are kept an hour for an operator to look at (the relay deletes older ones).
create index stock_changes_sent on stock_changes (sent_at) where sent_at is not null;
