-- Failing endpoints (docs/webhooks.md#failing-endpoints): when every attempt since `failing_since` has failed
-- for WEBHOOK_DISABLE_AFTER, the endpoint is disabled and `failed_from` keeps when it
-- started failing, the default of "Resend failed since" once it is enabled again.
alter table endpoints
  add column failing_since timestamptz,
  add column failed_from timestamptz;
-- The disable sweep looks only at enabled endpoints that are failing.
create index endpoints_failing on endpoints (failing_since) where enabled and deleted_at is null and failing_since is not null;
