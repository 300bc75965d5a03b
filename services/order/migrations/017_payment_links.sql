-- Payment links (docs/payments.md#payment-links): a shareable address that makes an order
-- of fixed items for whoever opens it. Its counts (paid orders, pending orders) are
-- never stored: they are read from the orders that carry payment_link_id, so no status
-- change anywhere has to remember to keep a counter right.
create table payment_links (
  id uuid primary key,
  store_id uuid not null,
  -- The public address's last part, /pay/{slug}: random, unguessable, unique everywhere.
  slug text not null unique,
  livemode boolean not null,
  active boolean not null default true,
  -- [{"product_id"|"bundle_id": uuid, "quantity": int}], as an order's request carries them.
  items jsonb not null,
  -- Codes the buyer may pick from; empty: whatever the store offers when the buyer comes.
  payment_methods text[] not null default '{}',
  -- How many paid orders the link takes; null: no limit.
  usage_limit int check (usage_limit is null or usage_limit > 0),
  expires_at timestamptz,
  created_at timestamptz not null default clock_timestamp(),
  deactivated_at timestamptz
);
create index payment_links_store on payment_links (store_id, livemode, created_at desc);

alter table orders add column payment_link_id uuid references payment_links (id);
-- The link's counts (db/payment-links.ts): its paid and its pending orders.
create index orders_payment_link on orders (payment_link_id, status) where payment_link_id is not null;
