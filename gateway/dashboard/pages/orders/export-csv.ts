// "Export CSV" on the orders list: every order of its filter and search, not only the
// page shown, streamed as the order service lists them.
import { Readable } from "node:stream";
import { orderCsv } from "../../../../common/order-csv.js";
import type { ServiceClients } from "../../../clients.js";
import { dashboardMode, type DashboardContext } from "../../kit.js";
import { listFilter } from "./list.js";

/** GET …/orders/export.csv */
export async function exportCsv(ctx: DashboardContext, clients: ServiceClients) {
  const { status, search } = listFilter(ctx);
  const storeId = ctx.state.scope.store.id;
  const rows = orderCsv((request) => clients.order.listOrders(request, { timeoutMs: 30_000 }), { storeId, status, search, ...dashboardMode(ctx) });
  // The first page is read before the response starts (orderCsv asks for it before its
  // header): a refused filter or an outage is still a page, not a broken file.
  const header = await rows.next();
  const stamp = new Date().toISOString().slice(0, 10);
  ctx.set("Content-Type", "text/csv; charset=utf-8");
  ctx.set("Content-Disposition", `attachment; filename="orders-${stamp}.csv"`);
  ctx.set("Cache-Control", "no-store");
  ctx.body = Readable.from(
    (async function* () {
      if (!header.done) yield header.value;
      yield* rows;
    })(),
  );
}
