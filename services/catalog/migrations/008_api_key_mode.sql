-- A key's mode (docs/keys.md#test-mode): false for a test key, which sees and makes test
-- data only. A column beside store_id rather than a store or schema of its own: the
-- store stays the merchant's one identity (README "How test mode travels"). Keys made
-- before test mode existed are live, as their sk_live_ prefix says.
alter table api_keys add column livemode boolean not null default true;
