import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { CatalogService, ItemStatus, Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { isUuid } from "../../common/ids.js";
import type { Logger } from "../lib/logger.js";
import { generateApiKey, hashApiKey, keyPrefix, API_KEY_PATTERN } from "./api-keys.js";
import { planFromName, planName } from "../../common/plans.js";
import { apiKeyMessage, itemMessage, itemStatusName, storeMessage } from "./convert.js";
import type { CatalogStore, ItemStatusName } from "./store.js";

export interface CatalogDeps {
  store: CatalogStore;
  logger: Logger;
}

const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_PRICE = 1_000_000_000_000;

function invalid(message: string): ConnectError {
  return new ConnectError(message, Code.InvalidArgument);
}

function requireUuid(value: string, field: string): string {
  if (!isUuid(value)) throw invalid(`${field} must be a UUID`);
  return value.toLowerCase();
}

function requireText(value: string, field: string, max: number): string {
  const text = value.trim();
  if (text.length < 1 || text.length > max) throw invalid(`${field} must be 1 to ${max} characters`);
  return text;
}

function requirePrice(value: bigint): number {
  if (value < 0n || value > BigInt(MAX_PRICE)) throw invalid(`price must be an integer from 0 to ${MAX_PRICE}`);
  return Number(value);
}

function optionalUrl(value: string, field: string): string | null {
  if (value === "") return null;
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {}
  throw invalid(`${field} must be an absolute http(s) URL`);
}

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

/** The catalog service's gRPC handlers: validation at the edge, SQL in store.ts. */
export function createCatalogRoutes({ store, logger }: CatalogDeps) {
  async function requireStore(id: string) {
    const row = await store.getStore(requireUuid(id, "store_id"));
    if (!row) throw new ConnectError(`store ${id} not found`, Code.NotFound);
    return row;
  }

  async function pickSlug(storeId: string, requested: string, title: string): Promise<string> {
    if (requested !== "") {
      if (!SLUG.test(requested) || requested.length > 120) {
        throw invalid("slug must be lowercase letters, digits and single dashes");
      }
      if (await store.slugTaken(storeId, requested)) {
        throw new ConnectError(`slug ${requested} is already used in this store`, Code.AlreadyExists);
      }
      return requested;
    }
    const base = slugify(title);
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!(await store.slugTaken(storeId, candidate))) return candidate;
    }
  }

  function statusOf(status: ItemStatus): ItemStatusName {
    if (status === ItemStatus.UNSPECIFIED) return "published";
    const name = itemStatusName(status);
    if (!name) throw invalid("status must be draft, published or archived");
    return name;
  }

  return (router: ConnectRouter) => {
    router.service(StoreService, {
      async createStore(request) {
        const name = requireText(request.name, "name", 200);
        const plan = request.plan === Plan.UNSPECIFIED ? "growth" : planName(request.plan);
        if (!plan) throw invalid("plan must be starter, growth or scale");
        const bank = request.bankAccount
          ? {
              bank_name: requireText(request.bankAccount.bankName, "bank_name", 100),
              bank_code: requireText(request.bankAccount.bankCode, "bank_code", 20),
              account_number: requireText(request.bankAccount.accountNumber, "account_number", 40),
              account_holder: requireText(request.bankAccount.accountHolder, "account_holder", 100),
            }
          : null;
        const row = await store.createStore({
          name,
          plan,
          bank,
          redirects: {
            success_url: optionalUrl(request.redirects?.successUrl ?? "", "success_url"),
            return_url: optionalUrl(request.redirects?.returnUrl ?? "", "return_url"),
            error_url: optionalUrl(request.redirects?.errorUrl ?? "", "error_url"),
          },
        });
        logger.info({ storeId: row.id, plan }, "store created");
        return { store: storeMessage(row) };
      },

      async getStore(request) {
        return { store: storeMessage(await requireStore(request.id)) };
      },

      async setStorePlan(request) {
        const plan = planName(request.plan);
        if (!plan) throw invalid("plan must be starter, growth or scale");
        const row = await store.setPlan(requireUuid(request.storeId, "store_id"), plan);
        if (!row) throw new ConnectError(`store ${request.storeId} not found`, Code.NotFound);
        logger.info({ storeId: row.id, plan }, "store plan changed");
        return { store: storeMessage(row) };
      },

      async createApiKey(request) {
        const owner = await requireStore(request.storeId);
        const secret = generateApiKey();
        const row = await store.createApiKey({
          store_id: owner.id,
          name: request.name.trim().slice(0, 100),
          prefix: keyPrefix(secret),
          key_hash: hashApiKey(secret),
        });
        logger.info({ storeId: owner.id, keyId: row.id }, "api key created");
        return { apiKey: apiKeyMessage(row), secret };
      },

      async revokeApiKey(request) {
        const row = await store.revokeApiKey(
          requireUuid(request.storeId, "store_id"),
          requireUuid(request.keyId, "key_id"),
        );
        if (!row) throw new ConnectError(`key ${request.keyId} not found in store ${request.storeId}`, Code.NotFound);
        logger.info({ storeId: row.store_id, keyId: row.id }, "api key revoked");
        return { apiKey: apiKeyMessage(row) };
      },

      async authenticateApiKey(request) {
        if (!API_KEY_PATTERN.test(request.secret)) {
          throw new ConnectError("malformed key", Code.Unauthenticated);
        }
        const found = await store.authenticate(hashApiKey(request.secret));
        if (!found) throw new ConnectError("unknown or revoked key", Code.Unauthenticated);
        return {
          keyId: found.key_id,
          storeId: found.store_id,
          plan: planFromName(found.plan),
        };
      },
    });

    router.service(CatalogService, {
      async createProduct(request) {
        const owner = await requireStore(request.storeId);
        const title = requireText(request.title, "title", 200);
        const price = requirePrice(request.price);
        const status = statusOf(request.status);
        const slug = await pickSlug(owner.id, request.slug, title);
        const row = await store.createItem({ store_id: owner.id, type: "product", title, slug, price, status, product_ids: [] });
        return { item: itemMessage(row) };
      },

      async createBundle(request) {
        const owner = await requireStore(request.storeId);
        const title = requireText(request.title, "title", 200);
        const price = requirePrice(request.price);
        const status = statusOf(request.status);
        if (request.productIds.length === 0) throw invalid("a bundle needs at least one product");
        const ids = request.productIds.map((id, n) => requireUuid(id, `product_ids[${n}]`));
        if (new Set(ids).size !== ids.length) throw invalid("product_ids must not repeat");
        const found = await store.getItems(owner.id, ids);
        for (const [n, id] of ids.entries()) {
          const item = found.find((row) => row.id === id);
          if (!item || item.type !== "product") {
            throw invalid(`product_ids[${n}]: ${id} is not a product of this store`);
          }
        }
        const slug = await pickSlug(owner.id, request.slug, title);
        const row = await store.createItem({ store_id: owner.id, type: "bundle", title, slug, price, status, product_ids: ids });
        return { item: itemMessage(row) };
      },

      async setItemPrice(request) {
        const row = await store.updateItem(
          requireUuid(request.storeId, "store_id"),
          requireUuid(request.itemId, "item_id"),
          { price: requirePrice(request.price) },
        );
        if (!row) throw new ConnectError(`item ${request.itemId} not found`, Code.NotFound);
        return { item: itemMessage(row) };
      },

      async setItemStatus(request) {
        const status = itemStatusName(request.status);
        if (!status) throw invalid("status must be draft, published or archived");
        const row = await store.updateItem(
          requireUuid(request.storeId, "store_id"),
          requireUuid(request.itemId, "item_id"),
          { status },
        );
        if (!row) throw new ConnectError(`item ${request.itemId} not found`, Code.NotFound);
        return { item: itemMessage(row) };
      },

      async listPublishedItems(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        if (request.limit < 1 || request.limit > 50) throw invalid("limit must be from 1 to 50");
        if (request.offset < 0) throw invalid("offset must be 0 or more");
        const page = await store.listPublished(storeId, request.limit, request.offset);
        return { items: page.items.map(itemMessage), hasMore: page.hasMore };
      },

      async getItems(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        if (request.ids.length > 200) throw invalid("at most 200 ids");
        // Malformed ids cannot exist in the store: leave them out rather than fail the batch.
        const ids = request.ids.filter((id) => isUuid(id)).map((id) => id.toLowerCase());
        const rows = await store.getItems(storeId, ids);
        return { items: rows.map(itemMessage) };
      },
    });
  };
}
