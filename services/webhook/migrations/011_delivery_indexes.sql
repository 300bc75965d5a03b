-- The delivery lists the dashboard filters, each with an index of its own, so their cost
-- follows the page, not the store's history (a million orders leave millions of
-- deliveries): an order's deliveries (the order page), an endpoint's by status (its
-- failed deliveries) and a store's by status. Before, the first was a scan of every
-- delivery, and the others read the whole endpoint's or store's rows to find a page.
create index deliveries_order on deliveries (order_id, created_at desc) where order_id is not null;
create index deliveries_endpoint_status on deliveries (endpoint_id, status, created_at desc);
create index deliveries_store_status on deliveries (store_id, status, created_at desc);
