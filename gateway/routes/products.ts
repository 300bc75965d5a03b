import type { RouterInstance as Router, RouterMiddleware } from "@koa/router";
import { ItemType } from "../../gen/catalog/v1/catalog_pb.js";
import type { CatalogPageCache } from "../catalog-cache.js";
import type { ServiceClients } from "../clients.js";
import { envelopeBytes, okBytes, type GatewayContext } from "../context.js";
import { queryInt } from "../query.js";

/**
 * GET /v1/products: the store's published products and bundles, oldest first. With a
 * `cache` (a gateway that hears catalog changes) pages come from it; keys are
 * authenticated and rate-limited by the guards either way.
 */
export function productRoutes(router: Router, guards: RouterMiddleware<any, any>[], clients: ServiceClients, cache?: CatalogPageCache) {
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
    });
  }

  router.get("/v1/products", ...guards, async (ctx: GatewayContext) => {
    const limit = queryInt(ctx.query, "limit", { min: 1, max: 50, fallback: 20 });
    const offset = queryInt(ctx.query, "offset", { min: 0, max: 1_000_000_000, fallback: 0 });
    const storeId = ctx.state.principal!.storeId;
    const body = cache
      ? await cache.page(storeId, limit, offset, () => load(storeId, limit, offset))
      : await load(storeId, limit, offset);
    okBytes(ctx, body);
  });
}
