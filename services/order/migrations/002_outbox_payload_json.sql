-- Keep event bodies in the key order they were written ("type", "timestamp", "data"):
-- jsonb re-sorts keys, and the webhook body is these bytes.
alter table outbox alter column payload type json using payload::json;
