-- Stock (docs/catalog.md#stock): units on hand per item, how many of each product a bundle
-- holds, and what each order holds or sold.

-- Units on hand; null: not tracked. Below zero only when a late payment sold units that
-- were sold meanwhile (oversold), so no lower bound here: the service refuses a merchant's
-- negative setting.
alter table items add column stock bigint;

-- How many of the product one bundle contains. Bundles made before stock had one of each.
alter table bundle_products add column quantity int not null default 1 check (quantity between 1 and 10000);

-- One row per (order, tracked item): the units the order holds or took. What an item has
-- "reserved" is the sum of its held rows, computed rather than kept as a counter on items,
-- so no path can make the two disagree; every hold locks the item row first (in id order),
-- so two orders never both take the last unit.
create table stock_reservations (
  order_id uuid not null,
  item_id uuid not null references items (id),
  store_id uuid not null references stores (id),
  quantity bigint not null check (quantity > 0),
  -- held → released | sold; sold → restocked. A released hold may be sold anyway (a late
  -- payment) or held again (a confirm arriving after the sweep).
  state text not null check (state in ('held', 'released', 'sold', 'restocked')),
  -- Tentative until the order service confirms the order was written; the sweep
  -- releases a hold still unconfirmed at this time. Null once the order service has
  -- said what became of the order (confirm, release, sell), so a confirm arriving after
  -- the sweep holds again but one replayed after a release does not.
  confirm_by timestamptz,
  -- Sold after its hold was released while the item had fewer units than it took.
  oversold boolean not null default false,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  primary key (order_id, item_id)
);
-- The Products page: every item of a store, newest first.
create index items_store on items (store_id, created_at desc, id desc);

-- What an item holds: summed for every availability.
create index stock_reservations_held on stock_reservations (item_id) include (quantity) where state = 'held';
-- The sweep's work: unconfirmed holds, oldest deadline first.
create index stock_reservations_unconfirmed on stock_reservations (confirm_by) where state = 'held' and confirm_by is not null;
