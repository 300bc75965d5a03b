// Products and bundles: prices, statuses, slugs (given, or made from the title and
// unique in the store), and what a bundle may hold (products of its own store).
import { Code, ConnectError } from "@connectrpc/connect";
import {
  ItemStatus,
  type CreateBundleRequest,
  type CreateProductRequest,
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
import { fieldErrors } from "../../platform/field-errors.js";
import { fieldError, requireText, requireUuid } from "./validation.js";

export const MAX_PRICE = 1_000_000_000_000;
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_SLUG_LENGTH = 120;
/** Ids one GetItems call may ask for. */
export const MAX_ITEMS_PER_LOOKUP = 200;

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

/** Every id must be a product of the store: `found` is what the store holds of them. */
export function checkBundleProducts(ids: string[], found: Pick<ItemRow, "id" | "type">[]): void {
  for (const [n, id] of ids.entries()) {
    const item = found.find((row) => row.id === id);
    if (!item || item.type !== "product") {
      throw fieldErrors([{ field: `product_ids[${n}]`, description: `${id} is not a product of this store` }]);
    }
  }
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

  /** The requested slug if free, else ALREADY_EXISTS; without one, the title's slug with -2, -3… until free. */
  async function pickSlug(storeId: string, requested: string, title: string): Promise<string> {
    if (requested !== "") {
      checkSlug(requested);
      if (await items.slugTaken(sql, storeId, requested)) {
        throw new ConnectError(`slug ${requested} is already used in this store`, Code.AlreadyExists);
      }
      return requested;
    }
    const base = slugify(title);
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!(await items.slugTaken(sql, storeId, candidate))) return candidate;
    }
  }

  /** The item, its bundle products and its audit entry (`actor` made it) in one transaction. */
  async function insert(item: NewItem, lines: { product_id: string; quantity: number }[], actor: Actor): Promise<ItemRow> {
    const id = await transaction(sql, async (tx) => {
      const id = await items.insertItem(tx, item);
      await items.insertBundleProducts(tx, id, lines);
      await insertAuditEntries(tx, [auditEntry(item.store_id, actor, `${item.type}.created`, auditTarget(item.type, id), { label: item.title })]);
      return id;
    });
    announce(item.store_id);
    return (await items.getItems(sql, item.store_id, [id]))[0]!;
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
    async createProduct(request: Pick<CreateProductRequest, "storeId" | "title" | "slug" | "price" | "status">, actor: Actor): Promise<ItemRow> {
      const owner = await stores.get(request.storeId);
      const title = requireText(request.title, "title", 200);
      const price = requirePrice(request.price);
      const status = statusOrPublished(request.status);
      const slug = await pickSlug(owner.id, request.slug, title);
      return insert({ store_id: owner.id, type: "product", title, slug, price, status, stock: null }, [], actor);
    },

    /** Audited as `actor`. */
    async createBundle(
      request: Pick<CreateBundleRequest, "storeId" | "title" | "slug" | "price" | "status" | "productIds">,
      actor: Actor,
    ): Promise<ItemRow> {
      const owner = await stores.get(request.storeId);
      const title = requireText(request.title, "title", 200);
      const price = requirePrice(request.price);
      const status = statusOrPublished(request.status);
      const ids = bundleProductIds(request.productIds);
      checkBundleProducts(ids, await items.getItems(sql, owner.id, ids));
      const slug = await pickSlug(owner.id, request.slug, title);
      return insert({ store_id: owner.id, type: "bundle", title, slug, price, status, stock: null }, ids.map((id) => ({ product_id: id, quantity: 1 })), actor);
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
