-- Dashboard accounts (docs/dashboard.md#accounts): members of stores, their invitations and sessions,
-- the sign-in throttle, and each store's audit log.
create table members (
  id uuid primary key default gen_random_uuid(),
  -- Trimmed and lower-cased by the service (one account per mailbox). Not re-checked
  -- here: lower() follows the database's locale, JavaScript's does not.
  email text not null unique check (length(email) between 3 and 254),
  -- scrypt$N$r$p$salt$hash; null until the member accepts an invitation.
  password_hash text,
  created_at timestamptz not null default clock_timestamp()
);

create table memberships (
  store_id uuid not null references stores (id),
  member_id uuid not null references members (id),
  created_at timestamptz not null default clock_timestamp(),
  primary key (store_id, member_id)
);
-- A member's stores, at every session resolution.
create index memberships_member on memberships (member_id);

create table invitations (
  id uuid primary key default gen_random_uuid(),
  -- SHA-256 of the token; the token itself is shown once.
  token_hash bytea not null unique,
  member_id uuid not null references members (id),
  store_id uuid not null references stores (id),
  created_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index invitations_member on invitations (member_id, store_id);

create table sessions (
  id uuid primary key default gen_random_uuid(),
  token_hash bytea not null unique,
  member_id uuid not null references members (id),
  created_at timestamptz not null default clock_timestamp(),
  last_seen_at timestamptz not null default clock_timestamp()
);
create index sessions_member on sessions (member_id);

-- Sign-in attempts per email (whether or not a member has it), newest last: each
-- attempt is counted before its password is checked and the row is deleted when one
-- succeeds, so concurrent guesses cannot outrun the lock.
create table sign_in_throttle (
  email text primary key,
  recent_attempts timestamptz[] not null,
  locked_until timestamptz
);

create table audit_log (
  id uuid primary key default gen_random_uuid(),
  -- Ties within one microsecond still list in the order they were written.
  seq bigint generated always as identity,
  store_id uuid not null references stores (id),
  created_at timestamptz not null default clock_timestamp(),
  actor text not null,
  action text not null,
  target text not null
);
create index audit_log_store on audit_log (store_id, created_at desc, seq desc);
