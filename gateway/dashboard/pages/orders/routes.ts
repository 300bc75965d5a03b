// The order pages' routes, each to a named handler: the list and its CSV (list.tsx,
// export-csv.ts), an order's page (detail.tsx), marking paid and cancelling
// (confirm.tsx), and refunding (refund.tsx).
import type { RouterInstance as Router } from "@koa/router";
import type { ServiceClients } from "../../../clients.js";
import type { DashboardContext, Kit } from "../../kit.js";
import { cancelOrder, confirmCancel, confirmMarkPaid, markPaid } from "./confirm.js";
import { orderDetail } from "./detail.js";
import { exportCsv } from "./export-csv.js";
import { orderList } from "./list.js";
import { refundForm, refundOrder } from "./refund.js";

export function orderPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/orders";
  const page = (handler: (ctx: DashboardContext, clients: ServiceClients) => Promise<void>) => handle((ctx: DashboardContext) => handler(ctx, clients));

  router.get(base, storeScope, page(orderList));
  // Registered before `${base}/:orderId`, which would take "export.csv" for an id.
  router.get(`${base}/export.csv`, storeScope, page(exportCsv));
  router.get(`${base}/:orderId`, storeScope, page(orderDetail));
  router.get(`${base}/:orderId/mark-paid`, storeScope, page(confirmMarkPaid));
  router.post(`${base}/:orderId/mark-paid`, storeScope, page(markPaid));
  router.get(`${base}/:orderId/cancel`, storeScope, page(confirmCancel));
  router.post(`${base}/:orderId/cancel`, storeScope, page(cancelOrder));
  router.get(`${base}/:orderId/refund`, storeScope, page(refundForm));
  router.post(`${base}/:orderId/refund`, storeScope, page(refundOrder));
}
