-- The store's webhook health (attempts in the last 24 h): its deliveries touched since
-- then, found without reading the store's whole history.
create index deliveries_store_updated on deliveries (store_id, updated_at desc);
