-- Tracing (docs/operations.md#tracing): each outbox row keeps the W3C traceparent of the change that
-- wrote it, so the relay continues that trace onto NATS. Null when tracing is off (and
-- for rows written before this). Nullable, no default: no table rewrite.
alter table outbox add column traceparent text;
