-- Catalog service schema: stores, API keys, products and bundles.
create table stores (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  plan text not null check (plan in ('starter', 'growth', 'scale')),
  bank_name text,
  bank_code text,
  account_number text,
  account_holder text,
  success_url text,
  return_url text,
  error_url text,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  -- A bank account is all four fields or none.
  check (
    (bank_name is null and bank_code is null and account_number is null and account_holder is null)
    or (bank_name is not null and bank_code is not null and account_number is not null and account_holder is not null)
  )
);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  store_id uuid not null references stores (id),
  name text not null default '',
  -- Enough of the key to recognise it in a list; never enough to use it.
  prefix text not null,
  -- SHA-256 of the whole key. Keys carry 190+ bits of randomness, so a fast hash is safe.
  key_hash bytea not null unique,
  created_at timestamptz not null default clock_timestamp(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index api_keys_store on api_keys (store_id);

create table items (
  id uuid primary key default gen_random_uuid(),
  store_id uuid not null references stores (id),
  type text not null check (type in ('product', 'bundle')),
  title text not null check (length(title) between 1 and 200),
  slug text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 120),
  price bigint not null check (price between 0 and 1000000000000),
  status text not null check (status in ('draft', 'published', 'archived')),
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (store_id, slug)
);
-- The public listing: published items of a store, oldest first.
create index items_published on items (store_id, created_at, id) where status = 'published';

create table bundle_products (
  bundle_id uuid not null references items (id) on delete cascade,
  product_id uuid not null references items (id),
  position int not null,
  primary key (bundle_id, product_id)
);
