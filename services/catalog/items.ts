// Products and bundles: prices, statuses, slugs (given, or made from the title and
// unique in the store), and what a bundle may hold (products of its own store).
import type { ConnectError } from "@connectrpc/connect";
import {
  ItemStatus,
  type BundleItem,
  type CreateBundleRequest,
  type CreateProductRequest,
  type StockSetting,
  type UpdateItemRequest,
} from "../../gen/catalog/v1/catalog_pb.js";
import type { Actor } from "../../common/actor.js";
import { auditTarget } from "../../common/audit.js";
import { isUuid } from "../../common/ids.js";
import { auditEntry, fieldChanges } from "../../platform/audit-log.js";
import type { CatalogChangeNotifier } from "../../platform/catalog-changes.js";
import { transaction, type Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import { insertAuditEntries } from "./db/audit.js";
import * as items from "./db/items.js";
import type { ItemRow, ItemStatusName, NewItem } from "./db/items.js";
import type { StoreRow } from "./db/stores.js";
import { storeNotFound, type Stores } from "./merchant-stores.js";
import { itemStatusName } from "./messages.js";
import { fieldConflict, fieldErrors } from "../../platform/field-errors.js";
import { fieldError, requireText, requireUuid } from "./validation.js";

export const MAX_PRICE = 1_000_000_000_000;
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_SLUG_LENGTH = 120;
/** Ids one GetItems call may ask for. */
export const MAX_ITEMS_PER_LOOKUP = 200;
/** The most units a merchant may set as an item's stock. */
export const MAX_STOCK = 1_000_000_000;
/** How many of one product a bundle may contain. */
export const MAX_BUNDLE_QUANTITY = 10_000;
/** How many different products one bundle may contain. */
export const MAX_BUNDLE_PRODUCTS = 50;

/** A bundle's product and how many one bundle takes. */
export interface BundleLine {
  product_id: string;
  quantity: number;
}

/** A slug made from a title: lower-case ASCII words joined by single dashes, "item" when none is left. */
export function slugify(title: string): string {
  const slug = title
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100)
    .replace(/-+$/, "");
  return slug || "item";
}

/** A whole number of rupiah from 0 to MAX_PRICE. */
export function requirePrice(value: bigint): number {
  if (value < 0n || value > BigInt(MAX_PRICE)) throw fieldError("price", `must be an integer from 0 to ${MAX_PRICE}`);
  return Number(value);
}

/** The status a request names; INVALID_ARGUMENT when it names none. */
export function requireStatus(status: ItemStatus): ItemStatusName {
  const name = itemStatusName(status);
  if (!name) throw fieldError("status", "must be draft, published or archived");
  return name;
}

/** A new item is published unless the request says otherwise. */
export function statusOrPublished(status: ItemStatus): ItemStatusName {
  return status === ItemStatus.UNSPECIFIED ? "published" : requireStatus(status);
}

/** A requested slug's shape (its uniqueness needs the store). */
export function checkSlug(slug: string): string {
  if (!SLUG.test(slug) || slug.length > MAX_SLUG_LENGTH) {
    throw fieldError("slug", "must be lowercase letters, digits and single dashes");
  }
  return slug;
}

/** A bundle's product ids: at least one, each a UUID (lower-cased), none twice. */
export function bundleProductIds(productIds: string[]): string[] {
  if (productIds.length === 0) throw fieldErrors([{ field: "product_ids", description: "must name at least one product" }], "a bundle needs at least one product");
  const ids = productIds.map((id, n) => requireUuid(id, `product_ids[${n}]`));
  if (new Set(ids).size !== ids.length) throw fieldError("product_ids", "must not repeat");
  return ids;
}

/**
 * A bundle's products with quantities (`bundle_items`): at least one, each product a
 * UUID once, each quantity 1 to MAX_BUNDLE_QUANTITY (0, unset, is 1).
 */
export function bundleItemLines(bundleItems: readonly Pick<BundleItem, "productId" | "quantity">[]): BundleLine[] {
  if (bundleItems.length === 0) throw fieldErrors([{ field: "bundle_items", description: "must name at least one product" }], "a bundle needs at least one product");
  if (bundleItems.length > MAX_BUNDLE_PRODUCTS) throw fieldError("bundle_items", `must have at most ${MAX_BUNDLE_PRODUCTS} products`);
  const lines = bundleItems.map((line, n) => {
    const quantity = line.quantity === 0 ? 1 : line.quantity;
    if (quantity < 1 || quantity > MAX_BUNDLE_QUANTITY) throw fieldError(`bundle_items[${n}].quantity`, `must be from 1 to ${MAX_BUNDLE_QUANTITY}`);
    return { product_id: requireUuid(line.productId, `bundle_items[${n}].product_id`), quantity };
  });
  const seen = new Set<string>();
  for (const [n, line] of lines.entries()) {
    if (seen.has(line.product_id)) throw fieldError(`bundle_items[${n}].product_id`, "must not repeat");
    seen.add(line.product_id);
  }
  return lines;
}

/** A new bundle's products: `bundle_items` when given, else `product_ids` with one of each. */
export function newBundleLines(request: Pick<CreateBundleRequest, "bundleItems" | "productIds">): { lines: BundleLine[]; field: "bundle_items" | "product_ids" } {
  if (request.bundleItems.length > 0) return { lines: bundleItemLines(request.bundleItems), field: "bundle_items" };
  return { lines: bundleProductIds(request.productIds).map((id) => ({ product_id: id, quantity: 1 })), field: "product_ids" };
}

/** Every id must be a product of the store: `found` is what the store holds of them; `field` names the list. */
export function checkBundleProducts(ids: string[], found: Pick<ItemRow, "id" | "type">[], field: "bundle_items" | "product_ids" = "product_ids"): void {
  for (const [n, id] of ids.entries()) {
    const item = found.find((row) => row.id === id);
    if (!item || item.type !== "product") {
      const path = field === "bundle_items" ? `bundle_items[${n}].product_id` : `product_ids[${n}]`;
      throw fieldErrors([{ field: path, description: `${id} is not a product of this store` }]);
    }
  }
}

/**
 * A stock setting (docs/catalog.md#stock): undefined when absent (no change; at creation,
 * not tracked), null when present without a quantity (not tracked), else the units on
 * hand, 0 to MAX_STOCK.
 */
export function stockSetting(setting: StockSetting | undefined): number | null | undefined {
  if (!setting) return undefined;
  if (setting.quantity === undefined) return null;
  if (setting.quantity < 0n || setting.quantity > BigInt(MAX_STOCK)) throw fieldError("stock", `must be an integer from 0 to ${MAX_STOCK}`);
  return Number(setting.quantity);
}

/** How a stock setting reads in the audit log. */
function stockText(stock: number | null): string {
  return stock === null ? "not tracked" : String(stock);
}

/** How a bundle's products read in the audit log: "<id> × 2, <id> × 1". */
function linesText(lines: readonly BundleLine[]): string {
  return lines.map((line) => `${line.product_id} × ${line.quantity}`).join(", ");
}

/** What an UpdateItem request changes, checked: absent fields are left out. */
export interface ItemChange {
  title?: string;
  slug?: string;
  price?: number;
  status?: ItemStatusName;
  stock?: number | null;
  lines?: BundleLine[];
}

/** An UpdateItem request's fields checked, each naming itself when wrong; what the item is (its type, the store's slugs) is checked in the transaction. */
export function itemChange(request: Pick<UpdateItemRequest, "title" | "slug" | "price" | "status" | "stock" | "replaceBundleItems" | "bundleItems">): ItemChange {
  const change: ItemChange = {};
  if (request.title !== undefined) change.title = requireText(request.title, "title", 200);
  if (request.slug !== undefined) change.slug = checkSlug(request.slug);
  if (request.price !== undefined) change.price = requirePrice(request.price);
  if (request.status !== ItemStatus.UNSPECIFIED) change.status = requireStatus(request.status);
  const stock = stockSetting(request.stock);
  if (stock !== undefined) change.stock = stock;
  if (request.replaceBundleItems) change.lines = bundleItemLines(request.bundleItems);
  return change;
}

/** Postgres's unique_violation: two writers took the same slug at once. */
function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === "23505";
}

/** The ids a lookup may hold: malformed ones cannot exist, so they are left out rather than failing the batch. */
export function lookupIds(ids: string[]): string[] {
  if (ids.length > MAX_ITEMS_PER_LOOKUP) throw fieldErrors([{ field: "ids", description: `must have at most ${MAX_ITEMS_PER_LOOKUP} ids` }], `at most ${MAX_ITEMS_PER_LOOKUP} ids`);
  return ids.filter((id) => isUuid(id)).map((id) => id.toLowerCase());
}

export function createItems({
  sql,
  stores,
  changes,
  logger,
}: {
  sql: Sql;
  stores: Pick<Stores, "get">;
  /** Told after every committed write that can change the store's published pages (gateways cache them). */
  changes?: CatalogChangeNotifier;
  logger?: Logger;
}) {
  /**
   * After the commit, so a gateway that drops its pages at once reads the new state.
   * The hint is best effort: the write is done whatever happens to it.
   */
  function announce(storeId: string): void {
    try {
      changes?.changed(storeId);
    } catch (error) {
      logger?.warn({ err: (error as Error).message, storeId }, "catalog change not announced");
    }
  }

  /** ALREADY_EXISTS naming `slug`. */
  function slugTaken(slug: string): ConnectError {
    return fieldConflict("slug", "is already used in this store", `slug ${slug} is already used in this store`);
  }

  /** The requested slug if free, else ALREADY_EXISTS; without one, the title's slug with -2, -3… until free. */
  async function pickSlug(storeId: string, requested: string, title: string): Promise<string> {
    if (requested !== "") {
      checkSlug(requested);
      if (await items.slugTaken(sql, storeId, requested)) throw slugTaken(requested);
      return requested;
    }
    const base = slugify(title);
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!(await items.slugTaken(sql, storeId, candidate))) return candidate;
    }
  }

  /** The item, its bundle products and its audit entry (`actor` made it) in one transaction. */
  async function insertOnce(item: NewItem, lines: BundleLine[], actor: Actor): Promise<string> {
    return transaction(sql, async (tx) => {
      const id = await items.insertItem(tx, item);
      await items.insertBundleProducts(tx, id, lines);
      await insertAuditEntries(tx, [auditEntry(item.store_id, actor, `${item.type}.created`, auditTarget(item.type, id), { label: item.title })]);
      return id;
    });
  }

  /**
   * insertOnce with the slug picked by pickSlug. Two creations can pick the same free slug
   * at once; the table's unique constraint refuses the second, which is then
   * ALREADY_EXISTS for a requested slug and tries the next free one for a derived slug.
   */
  async function insert(item: Omit<NewItem, "slug">, requestedSlug: string, lines: BundleLine[], actor: Actor): Promise<ItemRow> {
    for (let attempt = 1; ; attempt++) {
      const slug = await pickSlug(item.store_id, requestedSlug, item.title);
      try {
        const id = await insertOnce({ ...item, slug }, lines, actor);
        announce(item.store_id);
        return (await items.getItems(sql, item.store_id, [id]))[0]!;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        if (requestedSlug !== "") throw slugTaken(requestedSlug);
        if (attempt >= 5) throw error;
      }
    }
  }

  /** The change and its audit entry (`actor` made it) in one transaction; undefined when the store has no such item. */
  async function update(storeId: string, itemId: string, change: { price: number } | { status: ItemStatusName }, actor: Actor) {
    const row = await transaction(sql, async (tx) => {
      // Locked first, so the entry says what the change replaced.
      const [before] = await items.getItems(tx, storeId, [itemId], { forUpdate: true });
      if (!before || !(await items.updateItem(tx, storeId, itemId, change))) return undefined;
      const item: ItemRow = { ...before, ...change };
      const [what, field] = "price" in change ? (["price_changed", "price"] as const) : (["status_changed", "status"] as const);
      const changes = fieldChanges({ [field]: String(before[field]) }, { [field]: String(item[field]) });
      await insertAuditEntries(tx, [auditEntry(storeId, actor, `${item.type}.${what}`, auditTarget(item.type, itemId), { label: item.title, changes })]);
      return item;
    });
    if (row) announce(storeId);
    return row;
  }

  return {
    /** Audited as `actor`. */
    async createProduct(request: Pick<CreateProductRequest, "storeId" | "title" | "slug" | "price" | "status" | "stock">, actor: Actor): Promise<ItemRow> {
      const owner = await stores.get(request.storeId);
      const title = requireText(request.title, "title", 200);
      const price = requirePrice(request.price);
      const status = statusOrPublished(request.status);
      const stock = stockSetting(request.stock) ?? null;
      if (request.slug !== "") checkSlug(request.slug);
      return insert({ store_id: owner.id, type: "product", title, price, status, stock }, request.slug, [], actor);
    },

    /** Audited as `actor`. */
    async createBundle(
      request: Pick<CreateBundleRequest, "storeId" | "title" | "slug" | "price" | "status" | "productIds" | "bundleItems" | "stock">,
      actor: Actor,
    ): Promise<ItemRow> {
      const owner = await stores.get(request.storeId);
      const title = requireText(request.title, "title", 200);
      const price = requirePrice(request.price);
      const status = statusOrPublished(request.status);
      const stock = stockSetting(request.stock) ?? null;
      const { lines, field } = newBundleLines(request);
      const ids = lines.map((line) => line.product_id);
      checkBundleProducts(ids, await items.getItems(sql, owner.id, ids), field);
      if (request.slug !== "") checkSlug(request.slug);
      return insert({ store_id: owner.id, type: "bundle", title, price, status, stock }, request.slug, lines, actor);
    },

    /**
     * Any of the item's fields at once, audited as one `<type>.updated` entry listing each
     * field before → after, in one transaction with the item locked. Undefined when the
     * store has no such item; a request changing nothing writes nothing.
     */
    async update(storeId: string, itemId: string, change: ItemChange, actor: Actor): Promise<ItemRow | undefined> {
      const changed = await transaction(sql, async (tx) => {
        const [before] = await items.getItems(tx, storeId, [itemId], { forUpdate: true });
        if (!before) return undefined;
        if (change.lines) {
          if (before.type !== "bundle") throw fieldError("bundle_items", "only a bundle has products");
          const ids = change.lines.map((line) => line.product_id);
          checkBundleProducts(ids, await items.getItems(tx, storeId, ids), "bundle_items");
        }
        if (change.slug !== undefined && change.slug !== before.slug && (await items.slugTaken(tx, storeId, change.slug))) throw slugTaken(change.slug);
        const beforeLines = before.bundle_items.map(({ product_id, quantity }) => ({ product_id, quantity }));
        const text = (row: { title: string; slug: string; price: number; status: string; stock: number | null; lines: BundleLine[] }) => ({
          title: row.title,
          slug: row.slug,
          price: String(row.price),
          status: row.status,
          stock: stockText(row.stock),
          ...(before.type === "bundle" ? { items: linesText(row.lines) } : {}),
        });
        const { lines, ...columns } = change;
        const after = { ...before, ...columns, lines: lines ?? beforeLines };
        const changes = fieldChanges(text({ ...before, lines: beforeLines }), text(after));
        if (changes.length === 0) return false;
        try {
          await items.updateItem(tx, storeId, itemId, columns);
        } catch (error) {
          if (isUniqueViolation(error)) throw slugTaken(change.slug ?? "");
          throw error;
        }
        if (lines) await items.replaceBundleProducts(tx, itemId, lines);
        await insertAuditEntries(tx, [auditEntry(storeId, actor, `${before.type}.updated`, auditTarget(before.type, itemId), { label: after.title, changes })]);
        return true;
      });
      if (changed === undefined) return undefined;
      if (changed) announce(storeId);
      return (await items.getItems(sql, storeId, [itemId]))[0];
    },

    /** Every item of the store, newest first; `status` narrows it. */
    async list(storeId: string, status: ItemStatusName | undefined, limit: number, offset: number): Promise<{ items: ItemRow[]; hasMore: boolean }> {
      return items.listItems(sql, storeId, status, limit, offset);
    },

    /** Undefined when the store has no such item. Audited as `actor`. */
    async setPrice(storeId: string, itemId: string, price: bigint, actor: Actor): Promise<ItemRow | undefined> {
      return update(storeId, itemId, { price: requirePrice(price) }, actor);
    },

    /** Undefined when the store has no such item. Audited as `actor`. */
    async setStatus(storeId: string, itemId: string, status: ItemStatusName, actor: Actor): Promise<ItemRow | undefined> {
      return update(storeId, itemId, { status }, actor);
    },

    async listPublished(storeId: string, limit: number, offset: number): Promise<{ items: ItemRow[]; hasMore: boolean }> {
      return items.listPublished(sql, storeId, limit, offset);
    },

    /** The store's items among `ids`; ids of other stores, unknown or malformed ones are left out. */
    async getMany(storeId: string, ids: string[]): Promise<ItemRow[]> {
      return items.getItems(sql, storeId, lookupIds(ids));
    },

    /**
     * The store (INVALID_ARGUMENT and NOT_FOUND as stores.get) and its items among `ids`
     * (as getMany), in one read: pricing an order needs both.
     */
    async getWithStore(storeId: string, ids: string[]): Promise<{ store: StoreRow; items: ItemRow[] }> {
      const found = await items.findStoreWithItems(sql, requireUuid(storeId, "store_id"), lookupIds(ids));
      if (!found) throw storeNotFound(storeId);
      return found;
    },
  };
}

export type Items = ReturnType<typeof createItems>;
