-- What each API key may do, and who made it (docs/keys.md#scopes). Keys made
-- before scopes existed keep every scope; their maker is unknown.
alter table api_keys
  add column scopes text[] not null default '{catalog:read,catalog:write,orders:read,orders:write,payments:write}',
  -- The member who made the key: removing them from the store revokes it (unless the
  -- owner keeps it). Null for keys made by the operator or before this was recorded.
  add column created_by_member uuid references members (id),
  -- How the audit log names the maker (an email, "operator"); null when unknown.
  add column created_by text;
-- Every new key states its scopes.
alter table api_keys alter column scopes drop default;
create index api_keys_created_by_member on api_keys (store_id, created_by_member) where created_by_member is not null and revoked_at is null;
