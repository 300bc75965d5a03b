-- Tracing (docs/operations.md#tracing): a delivery keeps the W3C traceparent of the consumer span
-- that recorded it, so each attempt, however much later, joins the trace of the order
-- change. Null when tracing is off, for replays and test sends (each attempt of those
-- starts a trace of its own) and for deliveries recorded before this. No table rewrite.
alter table deliveries add column traceparent text;
