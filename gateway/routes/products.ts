import type { RouterInstance as Router } from "@koa/router";
import type { CatalogPage } from "../../common/api-shapes.js";
import { ItemType } from "../../gen/catalog/v1/catalog_pb.js";
import type { CatalogPageCache } from "../catalog-cache.js";
import type { ServiceClients } from "../clients.js";
import type { KeyedGuards } from "../guards.js";
import { envelopeBytes, okBytes, type GatewayContext } from "../context.js";
import { PAGE_LIMIT, PAGE_OFFSET, queryReader } from "../query.js";

/**
 * GET /v1/products: the store's published products and bundles, oldest first. With a
 * `cache` (a gateway that hears catalog changes) pages come from it; keys are
 * authenticated and rate-limited by the guards either way.
 */
export function productRoutes(router: Router, guards: KeyedGuards, clients: ServiceClients, cache?: CatalogPageCache) {
  router.get("/v1/products", ...guards.for("GET /v1/products"), listProducts);

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
    return envelopeBytes({
      items: page.items.map((item) => ({
        id: item.id,
        type: item.type === ItemType.BUNDLE ? "bundle" : "product",
        title: item.title,
        slug: item.slug,
        price: Number(item.price),
        status: "published",
      })),
      has_more: page.hasMore,
    } satisfies CatalogPage);
  }
}
