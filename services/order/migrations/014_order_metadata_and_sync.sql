-- Two things an integrator keeps in step with its own system (docs/orders.md#metadata,
-- docs/orders.md#syncing).
--
-- metadata: the client's own string keys and values, never searched, so no index.
alter table orders add column metadata jsonb not null default '{}';

-- change_xid: the transaction that last changed the order (its creation or any change
-- that moves updated_at). GET /v1/orders?updated_since= pages by it, reading only rows
-- whose transaction is below the reading snapshot's xmin: every such transaction has
-- ended, so no change can later commit behind a cursor, however long it stayed open.
-- Rows of before this migration all read 0 (a constant default adds the column without
-- rewriting the table); they come first, ordered by id, before any later change.
alter table orders add column change_xid xid8 not null default '0';
alter table orders alter column change_xid set default pg_current_xact_id();

-- Set by the database, so no writer can forget it: every statement that changes an
-- order sets updated_at (services/order/db/orders.ts), and setting it is what stamps
-- the transaction. Statements that only move the service's own schedule
-- (next_status_check_at, gateway_expire_at) leave both alone: nothing a client sees changed.
create function orders_stamp_change() returns trigger language plpgsql as $$
begin
  new.change_xid := pg_current_xact_id();
  return new;
end $$;

create trigger orders_stamp_change before update of updated_at on orders
  for each row execute function orders_stamp_change();

-- The sync's walk: one store's orders of one mode (docs/keys.md#test-mode) in change order.
create index orders_store_change on orders (store_id, livemode, change_xid, id);
-- The first page of a sync: the orders changed at or after updated_since.
create index orders_store_updated on orders (store_id, livemode, updated_at);
