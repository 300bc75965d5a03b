-- Roles per store membership (CONTRACT §13). Members from before roles existed could do
-- everything in their store, so they become owners; the CLI invites owners by default.
alter table memberships
  add column role text not null default 'owner'
  check (role in ('owner', 'developer', 'support', 'viewer'));
