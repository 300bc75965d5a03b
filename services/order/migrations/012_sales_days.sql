-- The overview's sales (docs/dashboard.md#overview) kept per store and Jakarta day, added to in the
-- statement that marks orders paid (updateStatuses in services/order/db/orders.ts). Summing the orders paid
-- this month read a third of a busy store's history on every overview: at a million
-- orders that was hundreds of thousands of rows; now it is at most 62 rows.
--
-- A day is split over up to 16 slots, one per database connection (pg_backend_pid()
-- modulo 16), summed when read: payments committing at once (a bank-mutation batch, a
-- burst of gateway notifications) each add to their own row instead of waiting in turn
-- for the one row of the day, whose lock is held until each commit.
create table sales_days (
  store_id uuid not null,
  day date not null,
  slot smallint not null,
  paid_count integer not null,
  paid_amount bigint not null,
  primary key (store_id, day, slot)
);

insert into sales_days (store_id, day, slot, paid_count, paid_amount)
select store_id, (paid_at at time zone 'Asia/Jakarta')::date, 0, count(*), sum(amount)
from orders where paid_at is not null
group by 1, 2;

-- Only the sales read used it.
drop index orders_store_paid;
