-- How many tokens the last take handed out: gateways lease small batches.
alter table rate_buckets add column granted double precision not null default 0;
