-- Roles per store membership (docs/team.md#roles). Members from before roles existed could do
-- everything in their store, so they become owners; the CLI invites owners by default.
alter table memberships
  add column role text not null default 'owner'
  check (role in ('owner', 'developer', 'support', 'viewer'));
