-- What the merchant dashboard reads (docs/dashboard.md#orders).
-- The Orders page's search looks a store's orders up by external id and by buyer email
-- in any letter case (the payment reference already has its unique index). Only orders
-- that carry an external id are worth indexing for it.
create index orders_store_external_id on orders (store_id, external_id) where external_id is not null;
create index orders_store_buyer_email on orders (store_id, lower(buyer_email));
-- The Overview counts a store's pending orders on every view, split at expires_at (a
-- due one counts as expired): an index-only range instead of a visit to each row.
create index orders_store_pending_expiry on orders (store_id, expires_at) where status = 'pending';
