-- Custom headers per endpoint (docs/webhooks.md#custom-headers): their names in the clear, to list them;
-- names and values together sealed like the signing secrets (secret-box.ts), since
-- the values are credentials of the receiver's.
alter table endpoints
  add column header_names text[] not null default '{}',
  add column headers_sealed text;
