import type { RouterInstance as Router } from "@koa/router";
import type { CatalogItemJson, CatalogPage } from "../../common/api-shapes.js";
import { isUuid } from "../../common/ids.js";
import { catalogItemJson } from "../../common/public-json.js";
import { ItemType, type Item } from "../../gen/catalog/v1/catalog_pb.js";
import type { CatalogPageCache } from "../catalog-cache.js";
import type { ServiceClients } from "../clients.js";
import type { KeyedGuards } from "../guards.js";
import { envelopeBytes, ok, okBytes, type GatewayContext, type RouteContext } from "../context.js";
import { invalidField, notFound } from "../errors.js";
import { parseBody } from "../order-request.js";
import { bundleItems, createItemBody, createItemFields, publicCatalogError, updateItemBody, updateItemFields } from "../product-request.js";
import { PAGE_LIMIT, PAGE_OFFSET, queryReader } from "../query.js";

const typeName = (item: Item) => (item.type === ItemType.BUNDLE ? "bundle" : "product");

/** The `:product_id` of the path (a product's or a bundle's), or INVALID_REQUEST naming it. */
function itemIdOf(ctx: RouteContext): string {
  const itemId = ctx.params.product_id ?? "";
  if (!isUuid(itemId)) throw invalidField("product_id", "must be a UUID");
  return itemId;
}

/** The catalog's answer, or its refusal in the body's field names (product-request.ts). */
async function catalogCall<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw publicCatalogError(error);
  }
}

/**
 * GET /v1/products: the store's published products and bundles, oldest first. With a
 * `cache` (a gateway that hears catalog changes) pages come from it; keys are
 * authenticated and rate-limited by the guards either way.
 * POST /v1/products, GET and PATCH /v1/products/{product_id}: one item of the store,
 * whatever its status, always read from the catalog itself (docs/api.md#products).
 */
export function productRoutes(router: Router, guards: KeyedGuards, clients: ServiceClients, cache?: CatalogPageCache) {
  router.get("/v1/products", ...guards.for("GET /v1/products"), listProducts);
  router.post("/v1/products", ...guards.for("POST /v1/products"), createProduct);
  router.get("/v1/products/:product_id", ...guards.for("GET /v1/products/{product_id}"), getProduct);
  router.patch("/v1/products/:product_id", ...guards.for("PATCH /v1/products/{product_id}"), updateProduct);

  async function listProducts(ctx: GatewayContext) {
    const query = queryReader(ctx.query);
    const limit = query.int("limit", PAGE_LIMIT);
    const offset = query.int("offset", PAGE_OFFSET);
    query.check();
    const storeId = ctx.state.principal!.storeId;
    const body = cache
      ? await cache.page(storeId, limit, offset, () => load(storeId, limit, offset))
      : await load(storeId, limit, offset);
    okBytes(ctx, body);
  }

  async function load(storeId: string, limit: number, offset: number): Promise<Buffer> {
    const page = await clients.catalog.listPublishedItems({ storeId, limit, offset });
    return envelopeBytes({ items: page.items.map(catalogItemJson), has_more: page.hasMore } satisfies CatalogPage);
  }

  async function createProduct(ctx: GatewayContext) {
    const body = parseBody(createItemBody, ctx.state.body);
    const fields = createItemFields(ctx.state.principal!.storeId, body);
    // CreateProduct has no products to take: the API says so rather than drop them.
    if (body.type === "product" && body.items !== undefined) throw invalidField("items", "only a bundle has items");
    const { item } =
      body.type === "bundle"
        ? await catalogCall(clients.catalog.createBundle({ ...fields, bundleItems: bundleItems(body.items) }))
        : await catalogCall(clients.catalog.createProduct(fields));
    ok(ctx, catalogItemJson(item!) satisfies CatalogItemJson, 201);
  }

  async function getProduct(ctx: RouteContext) {
    const itemId = itemIdOf(ctx);
    const { items } = await clients.catalog.getItems({ storeId: ctx.state.principal!.storeId, ids: [itemId] });
    const item = items.find((found) => found.id === itemId);
    // Another store's item is as unknown as one that never was.
    if (!item) throw notFound("no such product or bundle in this store");
    ok(ctx, catalogItemJson(item) satisfies CatalogItemJson);
  }

  async function updateProduct(ctx: RouteContext) {
    const itemId = itemIdOf(ctx);
    const body = parseBody(updateItemBody, ctx.state.body);
    const storeId = ctx.state.principal!.storeId;
    if (body.type !== undefined) {
      // An item's type never changes: the same type is let pass, so a client may send back what it read.
      const { items } = await clients.catalog.getItems({ storeId, ids: [itemId] });
      const item = items.find((found) => found.id === itemId);
      if (!item) throw notFound("no such product or bundle in this store");
      if (typeName(item) !== body.type) throw invalidField("type", `cannot change: this item is a ${typeName(item)}`);
    }
    const { item } = await catalogCall(clients.catalog.updateItem(updateItemFields(storeId, itemId, body)));
    ok(ctx, catalogItemJson(item!) satisfies CatalogItemJson);
  }
}
