// The items and bundle_products tables: a store's products and bundles, a bundle's
// products in their order, and the one read an order is priced from (the store with its
// items). Slugs are unique per store; the table's constraint backs the domain's check.
import type { Db } from "../../../platform/db.js";
import type { StoreRow } from "./stores.js";

export type ItemStatusName = "draft" | "published" | "archived";
export type ItemTypeName = "product" | "bundle";

/** A bundle's product with how many of it one bundle takes, and that product's stock level. */
export interface BundleLineRow {
  product_id: string;
  quantity: number;
  /** The product's units on hand; null when it is not tracked. */
  stock: number | null;
  /** Units of the product held by pending orders. */
  held: number;
}

export interface ItemRow {
  id: string;
  store_id: string;
  type: ItemTypeName;
  title: string;
  slug: string;
  price: number;
  status: ItemStatusName;
  product_ids: string[];
  /** Units on hand; null when not tracked (docs/catalog.md#stock). */
  stock: number | null;
  /** Units of this item held by pending orders (0 when not tracked). */
  held: number;
  /** A bundle's products in their order, with quantities and their stock; empty for a product. */
  bundle_items: BundleLineRow[];
  created_at: Date;
  updated_at: Date;
}

/** What a new item is made of; the rest (id, bundle contents, times) the insert adds. */
export type NewItem = Pick<ItemRow, "store_id" | "type" | "title" | "slug" | "price" | "status" | "stock">;

/** Units of item `id` held (a correlated subquery on the held rows' partial index); 0 when the item is not tracked. */
const heldOf = (db: Db, item: string) => db.unsafe(`
  case when ${item}.stock is null then 0 else coalesce(
    (select sum(r.quantity) from stock_reservations r where r.item_id = ${item}.id and r.state = 'held'), 0
  ) end`);

const itemColumns = (db: Db) => db`
  i.id, i.store_id, i.type, i.title, i.slug, i.price, i.status, i.stock, i.created_at, i.updated_at,
  ${heldOf(db, "i")}::bigint as held,
  coalesce(
    (select array_agg(b.product_id::text order by b.position) from bundle_products b where b.bundle_id = i.id),
    '{}'
  ) as product_ids,
  coalesce(
    (select jsonb_agg(jsonb_build_object('product_id', p.id, 'quantity', b.quantity, 'stock', p.stock, 'held', ${heldOf(db, "p")}) order by b.position)
     from bundle_products b join items p on p.id = b.product_id where b.bundle_id = i.id),
    '[]'
  ) as bundle_items`;

export async function slugTaken(db: Db, storeId: string, slug: string): Promise<boolean> {
  const [row] = await db`select 1 from items where store_id = ${storeId} and slug = ${slug}`;
  return row !== undefined;
}

/** Inserts the item and returns its id. */
export async function insertItem(db: Db, item: NewItem): Promise<string> {
  const [row] = await db<{ id: string }[]>`insert into items ${db({ ...item })} returning id`;
  return row!.id;
}

/** A bundle's products with their quantities, in this order. */
export async function insertBundleProducts(db: Db, bundleId: string, lines: { product_id: string; quantity: number }[]): Promise<void> {
  if (lines.length === 0) return;
  await db`
    insert into bundle_products ${db(lines.map((line, position) => ({ bundle_id: bundleId, product_id: line.product_id, quantity: line.quantity, position })))}`;
}

/** Replaces a bundle's products (UpdateItem), in this order. */
export async function replaceBundleProducts(db: Db, bundleId: string, lines: { product_id: string; quantity: number }[]): Promise<void> {
  await db`delete from bundle_products where bundle_id = ${bundleId}`;
  await insertBundleProducts(db, bundleId, lines);
}

/** Changes an item of this store; false when the store has no such item. */
export async function updateItem(
  db: Db,
  storeId: string,
  itemId: string,
  change: Partial<Pick<ItemRow, "title" | "slug" | "price" | "status" | "stock">>,
): Promise<boolean> {
  // Only updated_at when just a bundle's products change (the helper needs a column).
  const [row] =
    Object.keys(change).length > 0
      ? await db`
          update items set ${db({ ...change })}, updated_at = clock_timestamp()
          where id = ${itemId} and store_id = ${storeId} returning id`
      : await db`
          update items set updated_at = clock_timestamp()
          where id = ${itemId} and store_id = ${storeId} returning id`;
  return row !== undefined;
}

/**
 * The store's items among `ids` (lower-case UUIDs), in no particular order. `forUpdate`:
 * locked until the caller's transaction ends, so a change can record what it replaced.
 */
export async function getItems(db: Db, storeId: string, ids: string[], { forUpdate = false } = {}): Promise<ItemRow[]> {
  if (ids.length === 0) return [];
  return db<ItemRow[]>`
    select ${itemColumns(db)} from items i
    where i.store_id = ${storeId} and i.id = any(${ids}::uuid[])
    ${forUpdate ? db`for update of i` : db``}`;
}

/**
 * The store and its items among `ids` (undefined when there is no such store). One
 * statement, so every order takes one pooled connection rather than two for findStore
 * and getItems side by side, and is never slower (measured, bench/README.md). The items
 * travel as JSON, so their times are turned back into Dates here.
 */
export async function findStoreWithItems(db: Db, storeId: string, ids: string[]): Promise<{ store: StoreRow; items: ItemRow[] } | undefined> {
  const [row] = await db<(StoreRow & { items: (Omit<ItemRow, "created_at" | "updated_at"> & { created_at: string; updated_at: string })[] })[]>`
    select s.*, coalesce(
      (select jsonb_agg(x) from (select ${itemColumns(db)} from items i where i.store_id = s.id and i.id = any(${ids}::uuid[])) x),
      '[]'
    ) as items
    from stores s where s.id = ${storeId}`;
  if (!row) return undefined;
  const { items, ...store } = row;
  return { store, items: items.map((item) => ({ ...item, created_at: new Date(item.created_at), updated_at: new Date(item.updated_at) })) };
}

/** Published items, oldest first; one row more than asked tells whether there is a next page. */
export async function listPublished(db: Db, storeId: string, limit: number, offset: number): Promise<{ items: ItemRow[]; hasMore: boolean }> {
  const rows = await db<ItemRow[]>`
    select ${itemColumns(db)} from items i
    where i.store_id = ${storeId} and i.status = 'published'
    order by i.created_at, i.id
    limit ${limit + 1} offset ${offset}`;
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** Every item of the store (of `status` when given), newest first; one row more than asked tells whether there is a next page. */
export async function listItems(
  db: Db,
  storeId: string,
  status: ItemStatusName | undefined,
  limit: number,
  offset: number,
): Promise<{ items: ItemRow[]; hasMore: boolean }> {
  const rows = await db<ItemRow[]>`
    select ${itemColumns(db)} from items i
    where i.store_id = ${storeId} ${status ? db`and i.status = ${status}` : db``}
    order by i.created_at desc, i.id desc
    limit ${limit + 1} offset ${offset}`;
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}
