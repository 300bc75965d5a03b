-- The Team page and "Forgot password?" (docs/team.md#forgot-password).

-- Shown on the Team page; set with every new session (password, invitation or reset).
alter table members add column last_signed_in_at timestamptz;

-- One-time password reset links, valid 1 h. Like invitations: only the SHA-256 of the
-- token is kept, and used or expired rows stay a while so the link's page can say so.
create table password_resets (
  id uuid primary key default gen_random_uuid(),
  token_hash bytea not null unique,
  member_id uuid not null references members (id),
  created_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index password_resets_member on password_resets (member_id);

-- Reset requests per email and per client address ("email:…", "address:…"), newest
-- last, within the last hour: one statement per key counts and limits at once.
create table password_reset_throttle (
  key text primary key,
  recent_requests timestamptz[] not null
);

-- The Team page lists a store's pending invitations.
create index invitations_store on invitations (store_id, created_at desc);
