// The Products pages' routes, each to a named handler: the list (list.tsx), new
// products and bundles, an item's page, its changes and archiving (item.tsx).
import type { RouterInstance as Router } from "@koa/router";
import type { ServiceClients } from "../../../clients.js";
import type { DashboardContext, Kit } from "../../kit.js";
import { archiveItem, confirmArchive, createItem, itemDetail, newItemForm, saveItem } from "./item.js";
import { productList } from "./list.js";

export function productPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/products";
  const page = (handler: (ctx: DashboardContext, clients: ServiceClients) => Promise<void>) => handle((ctx: DashboardContext) => handler(ctx, clients));

  router.get(base, storeScope, page(productList));
  // Registered before `${base}/:itemId`, which would take "new" for an id.
  router.get(`${base}/new`, storeScope, page(newItemForm(false)));
  router.post(`${base}/new`, storeScope, page(createItem(false)));
  router.get(`${base}/new-bundle`, storeScope, page(newItemForm(true)));
  router.post(`${base}/new-bundle`, storeScope, page(createItem(true)));
  router.get(`${base}/:itemId`, storeScope, page(itemDetail));
  router.post(`${base}/:itemId`, storeScope, page(saveItem));
  router.get(`${base}/:itemId/archive`, storeScope, page(confirmArchive));
  router.post(`${base}/:itemId/archive`, storeScope, page(archiveItem));
}
