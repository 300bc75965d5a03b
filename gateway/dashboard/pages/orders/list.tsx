// The store's orders (Orders in the navigation): found by status or by payment
// reference, external id or buyer email, a page at a time, and exported as CSV
// (export-csv.ts) with the same filter (docs/dashboard.md).
import { Code, ConnectError } from "@connectrpc/connect";
import { isUuid } from "../../../../common/ids.js";
import { ORDER_STATUSES } from "../../../../common/order-status.js";
import type { Order } from "../../../../gen/order/v1/order_pb.js";
import type { ServiceClients } from "../../../clients.js";
import { statusLabel } from "../../../html/format.js";
import { Breakable, Money, StatusBadge, Time } from "../../../html/components.js";
import { dashboardMode, problemText, sendPage, type DashboardContext } from "../../kit.js";
import { Empty, Shell, storePath } from "../../views/layout.js";
import { TestData, withMode } from "../../views/test-data.js";
import { DataTable } from "../../views/data-table.js";

const PAGE_SIZE = 50;

/** The list's filter as the query gives it: an unknown status is any status. */
export function listFilter(ctx: DashboardContext): { status: string; search: string } {
  const status = typeof ctx.query.status === "string" && (ORDER_STATUSES as readonly string[]).includes(ctx.query.status) ? ctx.query.status : "";
  const search = typeof ctx.query.q === "string" ? ctx.query.q.trim() : "";
  return { status, search };
}

function OrdersPage(props: { ctx: DashboardContext; orders: Order[]; hasMore: boolean; status: string; search: string; after: string; error?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const filtered = props.status !== "" || props.search !== "";
  const mode = dashboardMode(props.ctx);
  // Pages go on after the last order shown (keyset): the thousandth page costs what the first does.
  const query = (after?: string) => withMode(`?${new URLSearchParams({ status: props.status, q: props.search, ...(after ? { after } : {}) })}`, mode.testMode);
  return (
    <Shell title="Orders" member={member} store={store} section="orders" csrf={csrf} error={props.error}>
      <TestData path={storePath(store.id, "orders")} query={props.ctx.query} testMode={dashboardMode(props.ctx).testMode} />
      <form class="inline card" method="get" action={storePath(store.id, "orders")} role="search">
        {mode.testMode && <input type="hidden" name="mode" value="test" />}
        <label>
          Status
          <select name="status">
            <option value="">Any</option>
            {ORDER_STATUSES.map((status) => (
              <option value={status} selected={status === props.status}>
                {statusLabel(status)}
              </option>
            ))}
          </select>
        </label>
        <label style="flex:1 1 220px">
          Search
          <input type="search" name="q" value={props.search} placeholder="SO-…, external id or email" />
        </label>
        <button type="submit">Search</button>
      </form>
      {props.orders.length > 0 && (
        <p class="small" style="margin-top:0">
          <a class="button secondary" href={withMode(`${storePath(store.id, "orders/export.csv")}?${new URLSearchParams({ status: props.status, q: props.search })}`, mode.testMode)} download>
            Export CSV
          </a>{" "}
          <span class="muted">every order of this filter and search, not only this page</span>
        </p>
      )}
      {props.orders.length === 0 ? (
        filtered ? (
          <Empty title="No order matches">
            <p>Check the payment reference (it looks like SO-…), or clear the filters.</p>
          </Empty>
        ) : (
          <Empty title="No orders yet">
            <p>Orders appear here as soon as your systems create them with POST /v1/orders using one of your API keys.</p>
          </Empty>
        )
      ) : (
        <DataTable head={["Payment reference", "Buyer", "Amount", "Status", "Created"]}>
          {props.orders.map((order) => (
            <tr>
              <td class="nowrap">
                <a href={withMode(storePath(store.id, `orders/${order.id}`), mode.testMode)}>{order.paymentReference}</a>
              </td>
              <td>
                {order.buyer?.name}
                <div class="muted small mono">
                  <Breakable text={order.buyer?.email ?? ""} />
                </div>
              </td>
              <td>
                <Money amount={order.amount} />
              </td>
              <td>
                <StatusBadge status={order.status} />
              </td>
              <td>
                <Time iso={order.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <div class="actions">
        {props.after !== "" && (
          <a class="button secondary" href={query()}>
            Newest orders
          </a>
        )}
        {props.hasMore && (
          <a class="button secondary" href={query(props.orders.at(-1)!.id)}>
            Older orders
          </a>
        )}
      </div>
    </Shell>
  );
}

/** GET …/orders: a page of the list, after the order of `after` when given. */
export async function orderList(ctx: DashboardContext, clients: ServiceClients) {
  const { status, search } = listFilter(ctx);
  const after = typeof ctx.query.after === "string" && isUuid(ctx.query.after) ? ctx.query.after.toLowerCase() : "";
  try {
    const page = await clients.order.listOrders({ storeId: ctx.state.scope.store.id, limit: PAGE_SIZE, status, search, startingAfter: after, ...dashboardMode(ctx) });
    sendPage(ctx, <OrdersPage ctx={ctx} orders={page.orders} hasMore={page.hasMore} status={status} search={search} after={after} />);
  } catch (error) {
    // The order a page link goes on after is gone from this store's view: start over.
    const problem = error instanceof ConnectError && error.code === Code.NotFound ? "The page link is not valid: start again from the newest orders." : problemText(error);
    if (!problem) throw error;
    sendPage(ctx, <OrdersPage ctx={ctx} orders={[]} hasMore={false} status={status} search={search} after="" error={problem} />, 400);
  }
}
