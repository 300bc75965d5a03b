-- The headers each attempt was sent with (docs/webhooks.md#recording-attempts), in the
-- order sent: [{"name", "value"}], a custom header as {"name", "masked": true} without
-- its value, which is a credential kept only sealed on its endpoint. Null for attempts
-- that sent nothing (refused, endpoint disabled) and for those recorded before this.
-- No table rewrite.
alter table delivery_attempts add column request_headers jsonb;
