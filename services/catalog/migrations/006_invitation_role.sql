-- An invitation adds its member to the store only when it is accepted: until then the
-- role it gives waits on the invitation, and a pending invitee is no member of the store.
alter table invitations add column role text check (role in ('owner', 'developer', 'support', 'viewer'));

update invitations i set role = ms.role
from memberships ms
where ms.member_id = i.member_id and ms.store_id = i.store_id;

-- Links whose member had left the store already answered as unknown; they stay so.
delete from invitations where role is null;
alter table invitations alter column role set not null;

-- Memberships the release before made at the invitation and nobody took up: of someone
-- who never chose a password, or who has not signed in since it was made (accepting
-- signs in). Their pending invitation, with its role, is what is left of them.
delete from memberships ms
using members m
where m.id = ms.member_id
  and (m.password_hash is null or m.last_signed_in_at < ms.created_at);
