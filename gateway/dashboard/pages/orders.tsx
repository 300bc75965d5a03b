// Orders (CONTRACT §10): find an order by status or by its payment reference, external
// id or buyer email; see its items, payment, history and deliveries; mark a bank
// transfer paid or cancel a pending order, each confirmed and audited. The change goes
// through the same RPCs as `store-admin order …`, so the API and webhooks see it alike.
import type { RouterInstance as Router } from "@koa/router";
import { auditTarget } from "../../../common/audit.js";
import { isUuid } from "../../../common/ids.js";
import { ORDER_STATUSES } from "../../../common/order-status.js";
import { BANK_TRANSFER, methodName } from "../../../common/payment-methods.js";
import type { Order, OrderDetail, StatusChange } from "../../../gen/order/v1/order_pb.js";
import type { Delivery } from "../../../gen/webhook/v1/webhook_pb.js";
import { Money, StatusBadge, Time } from "../../views/components.js";
import { notFoundPage, problemText, seeOther, sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Csrf, Empty, Shell, storePath } from "../views/layout.js";
import { DeliveriesTable } from "./deliveries.js";

const PAGE_SIZE = 50;

const DONE: Record<string, string> = {
  paid: "The order is marked as paid. Your webhooks get order.paid as usual.",
  cancelled: "The order is cancelled. Your webhooks get order.cancelled as usual.",
};

const canMarkPaid = (order: Order) => order.paymentMethod === BANK_TRANSFER.code && (order.status === "pending" || order.status === "expired");
const canCancel = (order: Order) => order.status === "pending";

function OrdersPage(props: { ctx: DashboardContext; orders: Order[]; hasMore: boolean; status: string; search: string; offset: number; error?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const filtered = props.status !== "" || props.search !== "";
  const query = (offset: number) => `?${new URLSearchParams({ status: props.status, q: props.search, offset: String(offset) })}`;
  return (
    <Shell title="Orders" member={member} store={store} section="orders" csrf={csrf} error={props.error}>
      <form class="inline card" method="get" action={storePath(store.id, "orders")} role="search">
        <label>
          Status
          <select name="status">
            <option value="">Any</option>
            {ORDER_STATUSES.map((status) => (
              <option value={status} selected={status === props.status}>
                {status}
              </option>
            ))}
          </select>
        </label>
        <label style="flex:1 1 220px">
          Search
          <input type="search" name="q" value={props.search} placeholder="Payment reference, external id or buyer email" />
        </label>
        <button type="submit">Search</button>
      </form>
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
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Payment reference</th>
                <th>Buyer</th>
                <th>Amount</th>
                <th>Status</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {props.orders.map((order) => (
                <tr>
                  <td class="nowrap">
                    <a href={storePath(store.id, `orders/${order.id}`)}>{order.paymentReference}</a>
                  </td>
                  <td>
                    {order.buyer?.name}
                    <div class="muted small mono">{order.buyer?.email}</div>
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
            </tbody>
          </table>
        </div>
      )}
      <div class="actions">
        {props.offset > 0 && (
          <a class="button secondary" href={query(Math.max(0, props.offset - PAGE_SIZE))}>
            Newer orders
          </a>
        )}
        {props.hasMore && (
          <a class="button secondary" href={query(props.offset + PAGE_SIZE)}>
            Older orders
          </a>
        )}
      </div>
    </Shell>
  );
}

function OrderPage(props: { ctx: DashboardContext; detail: OrderDetail; history: StatusChange[]; deliveries: Delivery[] | undefined; flash?: string; error?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const order = props.detail.order!;
  const payment = props.detail.payment!;
  const bank = payment.sellerBank;
  const base = storePath(store.id, `orders/${order.id}`);
  return (
    <Shell title={`Order ${order.paymentReference}`} member={member} store={store} section="orders" csrf={csrf} flash={props.flash} error={props.error}>
      <div class="card">
        <dl class="details">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={order.status} />
          </dd>
          <dt>Payment reference</dt>
          <dd class="mono">{order.paymentReference}</dd>
          <dt>Order id</dt>
          <dd class="mono">{order.id}</dd>
          {order.externalId !== undefined && (
            <>
              <dt>External id</dt>
              <dd class="mono">{order.externalId}</dd>
            </>
          )}
          <dt>Buyer</dt>
          <dd>
            {order.buyer?.name} <span class="muted mono">{order.buyer?.email}</span> <span class="muted">{order.buyer?.phone}</span>
          </dd>
          <dt>Created</dt>
          <dd>
            <Time iso={order.createdAt} />
          </dd>
          <dt>Pay before</dt>
          <dd>
            <Time iso={order.expiresAt} />
          </dd>
        </dl>
        {(canMarkPaid(order) || canCancel(order)) && (
          <div class="actions">
            {canMarkPaid(order) && (
              <a class="button" href={`${base}/mark-paid`}>
                Mark as paid
              </a>
            )}
            {canCancel(order) && (
              <a class="button danger" href={`${base}/cancel`}>
                Cancel order
              </a>
            )}
          </div>
        )}
      </div>

      <h2>Items</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Item</th>
              <th>Quantity</th>
              <th>Unit price</th>
              <th>Total</th>
            </tr>
          </thead>
          <tbody>
            {order.items.map((item) => (
              <tr>
                <td>{item.title}</td>
                <td class="num">{String(item.quantity)}</td>
                <td>
                  <Money amount={item.unitPrice} />
                </td>
                <td>
                  <Money amount={item.lineTotal} />
                </td>
              </tr>
            ))}
            <tr>
              <td colSpan={3}>Subtotal</td>
              <td>
                <Money amount={order.subtotal} />
              </td>
            </tr>
            {bank && bank.uniqueAmountCode > 0n && (
              <tr>
                <td colSpan={3}>Unique transfer code</td>
                <td>
                  <Money amount={bank.uniqueAmountCode} />
                </td>
              </tr>
            )}
            <tr>
              <td colSpan={3}>
                <strong>Total</strong>
              </td>
              <td>
                <strong>
                  <Money amount={order.amount} />
                </strong>
              </td>
            </tr>
          </tbody>
        </table>
      </div>

      <h2>Payment</h2>
      <div class="card">
        <dl class="details">
          <dt>Method</dt>
          <dd>{methodName(order.paymentMethod)}</dd>
          {bank && (
            <>
              <dt>Transfer exactly</dt>
              <dd>
                <Money amount={bank.transferAmount} />
              </dd>
              <dt>To</dt>
              <dd>
                {bank.bankName} <span class="mono">{bank.accountNumber}</span> ({bank.accountHolder})
              </dd>
            </>
          )}
          <dt>Checkout page</dt>
          <dd class="mono">
            <a href={order.checkoutUrl}>{order.checkoutUrl}</a>
          </dd>
        </dl>
      </div>

      <h2>Status history</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Time</th>
              <th>Change</th>
              <th>Cause</th>
            </tr>
          </thead>
          <tbody>
            {props.history.map((change) => (
              <tr>
                <td>
                  <Time iso={change.at} />
                </td>
                <td class="nowrap">{change.fromStatus ? `${change.fromStatus} → ${change.toStatus}` : change.toStatus}</td>
                <td>
                  {change.cause}
                  {change.detail && <div class="muted small mono">{change.detail}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2>Webhook deliveries</h2>
      {props.deliveries === undefined ? (
        <p class="muted">Deliveries cannot be shown: the webhook service is not part of this deployment.</p>
      ) : props.deliveries.length === 0 ? (
        <Empty title="No deliveries for this order">
          <p>
            Add an endpoint on the <a href={storePath(store.id, "webhooks")}>Webhooks</a> page to receive this order's events.
          </p>
        </Empty>
      ) : (
        <DeliveriesTable storeId={store.id} deliveries={props.deliveries} />
      )}
    </Shell>
  );
}

const ACTIONS = {
  "mark-paid": {
    title: "Mark this order as paid?",
    explain: "Do this only when the exact transfer amount has arrived in the store's account. The buyer's order turns paid and your systems are told.",
    button: "Mark as paid",
    allowed: canMarkPaid,
    done: "paid",
  },
  cancel: {
    title: "Cancel this order?",
    explain: "The buyer can no longer pay it, and your systems are told it was cancelled. This cannot be undone.",
    button: "Cancel order",
    allowed: canCancel,
    done: "cancelled",
  },
} as const;

type ActionName = keyof typeof ACTIONS;

function ConfirmPage(props: { ctx: DashboardContext; order: Order; action: ActionName }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const action = ACTIONS[props.action];
  const base = storePath(store.id, `orders/${props.order.id}`);
  return (
    <Shell title={action.title} member={member} store={store} section="orders" csrf={csrf}>
      <div class="card">
        <p>
          Order <strong class="mono">{props.order.paymentReference}</strong> for <Money amount={props.order.amount} />, now{" "}
          <StatusBadge status={props.order.status} />.
        </p>
        <p>{action.explain}</p>
        <div class="actions">
          <form method="post" action={`${base}/${props.action}`}>
            <Csrf token={csrf} />
            <button type="submit" class={props.action === "cancel" ? "danger" : undefined}>
              {action.button}
            </button>
          </form>
          <a class="button secondary" href={base}>
            Back to the order
          </a>
        </div>
      </div>
    </Shell>
  );
}

export function orderPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope, change } = kit;
  const base = "/dashboard/stores/:storeId/orders";

  router.get(
    base,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const status = typeof ctx.query.status === "string" && (ORDER_STATUSES as readonly string[]).includes(ctx.query.status) ? ctx.query.status : "";
      const search = typeof ctx.query.q === "string" ? ctx.query.q.trim() : "";
      const offset = Math.max(0, Math.min(1_000_000, Number.parseInt(String(ctx.query.offset ?? "0"), 10) || 0));
      try {
        const page = await clients.order.listOrders({ storeId: ctx.state.scope.store.id, limit: PAGE_SIZE, offset, status, search });
        sendPage(ctx, <OrdersPage ctx={ctx} orders={page.orders} hasMore={page.hasMore} status={status} search={search} offset={offset} />);
      } catch (error) {
        const problem = problemText(error);
        if (!problem) throw error;
        sendPage(ctx, <OrdersPage ctx={ctx} orders={[]} hasMore={false} status={status} search={search} offset={0} error={problem} />, 400);
      }
    }),
  );

  /** The order of this store, or undefined (a malformed id or another store's order is simply not found). */
  async function load(ctx: DashboardContext, includeHistory: boolean) {
    const orderId = (ctx.params.orderId ?? "").toLowerCase();
    if (!isUuid(orderId)) return undefined;
    return clients.order.getOrder({ storeId: ctx.state.scope.store.id, orderId, includeHistory });
  }

  /** The order page as it is now: the order with its history, and its deliveries when the webhook service is here. */
  async function showOrder(ctx: DashboardContext, extra: { flash?: string; error?: string }, status = 200) {
    const found = await load(ctx, true);
    if (!found) return notFoundPage(ctx);
    const order = found.detail!.order!;
    const deliveries = clients.webhook ? (await clients.webhook.listDeliveries({ storeId: order.storeId, orderId: order.id })).deliveries : undefined;
    sendPage(ctx, <OrderPage ctx={ctx} detail={found.detail!} history={found.history} deliveries={deliveries} {...extra} />, status);
  }

  router.get(
    `${base}/:orderId`,
    storeScope,
    handle((ctx: DashboardContext) => showOrder(ctx, { flash: DONE[String(ctx.query.done)] })),
  );

  for (const name of Object.keys(ACTIONS) as ActionName[]) {
    const action = ACTIONS[name];
    router.get(
      `${base}/:orderId/${name}`,
      storeScope,
      handle(async (ctx: DashboardContext) => {
        const found = await load(ctx, false);
        if (!found) return notFoundPage(ctx);
        const order = found.detail!.order!;
        if (!action.allowed(order)) return seeOther(ctx, storePath(order.storeId, `orders/${order.id}`));
        sendPage(ctx, <ConfirmPage ctx={ctx} order={order} action={name} />);
      }),
    );

    router.post(
      `${base}/:orderId/${name}`,
      storeScope,
      handle(async (ctx: DashboardContext) => {
        const found = await load(ctx, false);
        if (!found) return notFoundPage(ctx);
        const { storeId, id: orderId } = found.detail!.order!;
        if (!action.allowed(found.detail!.order!)) {
          // A stale tab, or a hand-made post: only what the order page offers may be done.
          const why = name === "mark-paid" ? "only a pending or expired bank-transfer order can be marked as paid here" : "only a pending order can be cancelled";
          return showOrder(ctx, { error: `Not changed: ${why}.` }, 409);
        }
        const target = auditTarget("order", orderId);
        try {
          if (name === "mark-paid") await change(ctx, "order.marked_paid", target, () => clients.order.markOrderPaid({ storeId, orderId }));
          else await change(ctx, "order.cancelled", target, () => clients.order.cancelOrder({ storeId, orderId }));
          seeOther(ctx, `${storePath(storeId, `orders/${orderId}`)}?done=${action.done}`);
        } catch (error) {
          const problem = problemText(error);
          if (!problem) throw error;
          await showOrder(ctx, { error: `Not changed: ${problem}` }, 409);
        }
      }),
    );
  }
}
