// The catalog service's gRPC handlers: argument checks, one domain call, the response.
// The rules are in the domain modules (domain.ts wires them); SQL is in db/, which this
// file never touches. AccountService's handlers are accounts/routes.ts; this is the
// one place that registers all three services.
import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { CatalogService, ItemStatus, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { planFromName } from "../../common/plans.js";
import { requirePermission, requirePlatform } from "../../platform/rpc-actor.js";
import { createAccountRoutes, type AccountRouteDeps } from "./accounts/routes.js";
import type { ApiKeys } from "./api-keys.js";
import { itemChange, requireStatus, type Items } from "./items.js";
import { stockChanges, type Stock } from "./stock.js";
import { newStoreFrom, requirePlan, storeSettingsFrom, type Stores } from "./merchant-stores.js";
import { apiKeyMessage, itemMessage, storeMessage } from "./messages.js";
import { requirePage, requireStoreId, requireUuid } from "./validation.js";

export interface CatalogRouteDeps extends AccountRouteDeps {
  stores: Pick<Stores, "create" | "get" | "setPlan" | "updateSettings">;
  apiKeys: Pick<ApiKeys, "create" | "revoke" | "list" | "authenticate">;
  items: Pick<Items, "createProduct" | "createBundle" | "setPrice" | "setStatus" | "update" | "list" | "listPublished" | "getMany" | "getWithStore">;
  stock: Pick<Stock, "reserve" | "apply" | "ofOrder">;
}

export function createCatalogRoutes(deps: CatalogRouteDeps) {
  const { stores, apiKeys, items, stock } = deps;
  const accountRoutes = createAccountRoutes(deps);
  return (router: ConnectRouter) => {
    router.service(StoreService, {
      // Stores and their plans are the platform's business (docs/team.md#roles): the operator's or the
      // system's, never a member's or an API key's. Audited in the change's transaction.
      async createStore(request, context) {
        const actor = requirePlatform(context, "create stores");
        return { store: storeMessage(await stores.create(newStoreFrom(request), actor)) };
      },

      async getStore(request) {
        return { store: storeMessage(await stores.get(request.id)) };
      },

      async setStorePlan(request, context) {
        const plan = requirePlan(request.plan);
        const storeId = requireStoreId(request);
        const row = await stores.setPlan(storeId, plan, requirePlatform(context, "change a store's plan"));
        if (!row) throw new ConnectError(`store ${request.storeId} not found`, Code.NotFound);
        return { store: storeMessage(row) };
      },

      // Changes a member makes (docs/team.md#who-acts): the actor's permission is checked before anything is
      // written, and the audit entry is written in the change's transaction.
      async updateStoreSettings(request, context) {
        const storeId = requireStoreId(request);
        const settings = storeSettingsFrom(request);
        return { store: storeMessage(await stores.updateSettings(storeId, settings, requirePermission(context, "store_admin"))) };
      },

      async createApiKey(request, context) {
        const actor = requirePermission(context, "developer_settings");
        const { apiKey, secret } = await apiKeys.create(request.storeId, request.name, request.scopes, actor, { testMode: request.testMode });
        return { apiKey: apiKeyMessage(apiKey), secret };
      },

      async revokeApiKey(request, context) {
        const storeId = requireStoreId(request);
        const keyId = requireUuid(request.keyId, "key_id");
        const row = await apiKeys.revoke(storeId, keyId, requirePermission(context, "developer_settings"));
        if (!row) throw new ConnectError(`key ${request.keyId} not found in store ${request.storeId}`, Code.NotFound);
        return { apiKey: apiKeyMessage(row) };
      },

      async listApiKeys(request) {
        const rows = await apiKeys.list(requireStoreId(request));
        return { apiKeys: rows.map(apiKeyMessage) };
      },

      async authenticateApiKey(request) {
        const key = await apiKeys.authenticate(request.secret);
        return { keyId: key.keyId, storeId: key.storeId, plan: planFromName(key.plan), scopes: key.scopes, livemode: key.livemode };
      },
    });

    router.service(CatalogService, {
      // The catalog is the catalog permission's (docs/team.md#roles: owners, developers; an API key
      // with catalog:write), or the operator's. Each change is audited in its transaction.
      async createProduct(request, context) {
        return { item: itemMessage(await items.createProduct(request, requirePermission(context, "catalog"))) };
      },

      async createBundle(request, context) {
        return { item: itemMessage(await items.createBundle(request, requirePermission(context, "catalog"))) };
      },

      async setItemPrice(request, context) {
        const storeId = requireStoreId(request);
        const itemId = requireUuid(request.itemId, "item_id");
        const row = await items.setPrice(storeId, itemId, request.price, requirePermission(context, "catalog"));
        if (!row) throw new ConnectError(`item ${request.itemId} not found`, Code.NotFound);
        return { item: itemMessage(row) };
      },

      async setItemStatus(request, context) {
        const status = requireStatus(request.status);
        const storeId = requireStoreId(request);
        const itemId = requireUuid(request.itemId, "item_id");
        const row = await items.setStatus(storeId, itemId, status, requirePermission(context, "catalog"));
        if (!row) throw new ConnectError(`item ${request.itemId} not found`, Code.NotFound);
        return { item: itemMessage(row) };
      },

      async updateItem(request, context) {
        const actor = requirePermission(context, "catalog");
        const storeId = requireStoreId(request);
        const itemId = requireUuid(request.itemId, "item_id");
        const row = await items.update(storeId, itemId, itemChange(request), actor);
        if (!row) throw new ConnectError(`item ${request.itemId} not found`, Code.NotFound);
        return { item: itemMessage(row) };
      },

      async listItems(request) {
        const storeId = requireStoreId(request);
        const { limit, offset } = requirePage(request);
        const status = request.status === ItemStatus.UNSPECIFIED ? undefined : requireStatus(request.status);
        const page = await items.list(storeId, status, limit, offset);
        return { items: page.items.map(itemMessage), hasMore: page.hasMore };
      },

      // The order service's (docs/catalog.md#stock): any caller past the internal token may.
      async reserveOrderCatalog(request) {
        const found = await stock.reserve(request);
        return { store: storeMessage(found.store), items: found.items.map(itemMessage), holdsStock: found.holdsStock };
      },

      async applyStockChanges(request) {
        await stock.apply(stockChanges(request.changes));
        return {};
      },

      async getOrderStock(request) {
        const storeId = requireStoreId(request);
        const orderId = requireUuid(request.orderId, "order_id");
        const rows = await stock.ofOrder(storeId, orderId);
        return { lines: rows.map((row) => ({ productId: row.item_id, quantity: BigInt(row.quantity), state: row.state, oversold: row.oversold })) };
      },

      async listPublishedItems(request) {
        const storeId = requireStoreId(request);
        const { limit, offset } = requirePage(request);
        const page = await items.listPublished(storeId, limit, offset);
        return { items: page.items.map(itemMessage), hasMore: page.hasMore };
      },

      async getItems(request) {
        const rows = await items.getMany(requireStoreId(request), request.ids);
        return { items: rows.map(itemMessage) };
      },

      async getOrderCatalog(request) {
        const found = await items.getWithStore(request.storeId, request.ids);
        return { store: storeMessage(found.store), items: found.items.map(itemMessage) };
      },
    });

    accountRoutes(router);
  };
}
