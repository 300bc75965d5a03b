-- When an order was paid (docs/dashboard.md#overview, the overview's sales): set with the status
-- change to paid, kept when it is refunded. Orders paid before this column existed get
-- the time of their last change to paid from the history.
alter table orders add column paid_at timestamptz;
update orders o set paid_at = h.at
from (select order_id, max(created_at) as at from order_status_history where to_status = 'paid' group by order_id) h
where h.order_id = o.id;
-- Sales by day of a store read only the orders paid in the window.
create index orders_store_paid on orders (store_id, paid_at) where paid_at is not null;
