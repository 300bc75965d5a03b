// An order's page: its items, payment, refunds, status history and webhook deliveries,
// with what may be done to it now as the order service answers it (allowed_actions):
// the page offers exactly that and holds no rule of its own. The changes themselves
// are in confirm.tsx and refund.tsx, through the same RPCs as `store-admin order …`.
// Reading an order here never prepares a payment session (docs/dashboard.md).
import { amountReceivedText } from "../../../../common/bank-mutations.js";
import type { ComponentChildren } from "preact";
import { isUuid } from "../../../../common/ids.js";
import { methodName } from "../../../../common/payment-methods.js";
import type { GetOrderResponse, Order, OrderDetail, Refund, StatusChange } from "../../../../gen/order/v1/order_pb.js";
import type { Delivery } from "../../../../gen/webhook/v1/webhook_pb.js";
import type { Item } from "../../../../gen/catalog/v1/catalog_pb.js";
import type { ServiceClients } from "../../../clients.js";
import { Breakable, Money, Reference, StatusBadge, Time } from "../../../html/components.js";
import { rupiah, statusLabel } from "../../../html/format.js";
import { dashboardMode, flashMessage, notFoundPage, sendPage, shownOnce, type DashboardContext } from "../../kit.js";
import { Empty, Shell, storePath } from "../../views/layout.js";
import { DataTable } from "../../views/data-table.js";
import { DeliveriesTable } from "../deliveries.js";
import { whyNoDeliveries, type NoDeliveries } from "./deliveries-empty.js";
import { withMode } from "../../views/test-data.js";

/** The confirmations shown once by an order's page after marking it paid or cancelling it (confirm.tsx). */
export const ORDER_DONE = {
  paid: "The order is marked as paid. Your webhooks get order.paid as usual.",
  cancelled: "The order is cancelled. Your webhooks get order.cancelled as usual.",
} as const;

/** The order service's names for what a person may do (GetOrderResponse.allowed_actions). */
type AllowedAction = "mark_paid" | "cancel" | "refund";

const REFUND_STATUS_LABELS: Record<string, string> = { pending: "Pending", succeeded: "Succeeded", failed: "Failed" };
const REFUND_METHOD_LABELS: Record<string, string> = { gateway: "Payment gateway", manual: "Manual (sent by the store)" };

function RefundStatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{REFUND_STATUS_LABELS[status] ?? status}</span>;
}

/** The flash of the refund form (refund.tsx): the refund whose outcome the order's page shows once. */
export interface RefundMade {
  kind: "refund";
  refundId: string;
}

/** What became of a refund, for the page the refund form redirects to. */
function refundOutcome(refund: Refund): { flash?: string; error?: string } {
  const what = `Refund of ${rupiah(refund.amount)}`;
  if (refund.status === "succeeded") return { flash: `${what} succeeded. Your webhooks get refund.succeeded as usual.` };
  if (refund.status === "pending") return { flash: `${what} is pending at the payment gateway; it is retried until the gateway answers.` };
  return { error: `${what} failed: ${refund.failureMessage ?? "the payment gateway refused it"}.` };
}

function OrderPage(props: {
  ctx: DashboardContext;
  detail: OrderDetail;
  history: StatusChange[];
  allowed: string[];
  deliveries: Delivery[] | undefined;
  /** Why there are no deliveries (undefined while there are some). */
  noDeliveries: NoDeliveries | undefined;
  /** The products this order took after its hold had been released, with how many (empty: none). */
  oversold: OversoldLine[];
  flash?: string;
  error?: string;
}) {
  const { member, store, csrf } = props.ctx.state.scope;
  const order = props.detail.order!;
  const allowed = (action: AllowedAction) => props.allowed.includes(action);
  const payment = props.detail.payment!;
  const bank = payment.sellerBank;
  const base = storePath(store.id, `orders/${order.id}`);
  const mode = dashboardMode(props.ctx);
  return (
    <Shell
      title={`Order ${order.paymentReference}`}
      // The hyphen in "SO-…" is a break opportunity: on a phone the line must break at the space instead.
      heading={
        <>
          Order <Reference value={order.paymentReference} />
        </>
      }
      member={member}
      store={store}
      section="orders"
      csrf={csrf}
      flash={props.flash}
      error={props.error}
    >
      {props.oversold.length > 0 && <OversoldNotice storeId={store.id} lines={props.oversold} />}
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
            {order.buyer?.name} <Breakable class="muted mono" text={order.buyer?.email ?? ""} /> <span class="muted">{order.buyer?.phone}</span>
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
        {(allowed("mark_paid") || allowed("cancel") || allowed("refund")) && (
          <div class="actions">
            {allowed("mark_paid") && (
              <a class="button" href={withMode(`${base}/mark-paid`, mode.testMode)}>
                Mark as paid
              </a>
            )}
            {allowed("refund") && (
              <a class="button secondary" href={withMode(`${base}/refund`, mode.testMode)}>
                Refund
              </a>
            )}
            {allowed("cancel") && (
              <a class="button danger" href={withMode(`${base}/cancel`, mode.testMode)}>
                Cancel order
              </a>
            )}
          </div>
        )}
      </div>

      <h2>Items</h2>
      <DataTable head={["Item", "Quantity", "Unit price", "Total"]}>
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
        {order.refundedAmount > 0n && (
          <tr>
            <td colSpan={3}>Refunded</td>
            <td>
              <Money amount={order.refundedAmount} />
            </td>
          </tr>
        )}
      </DataTable>

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
            <a href={order.checkoutUrl}>
              <Breakable text={order.checkoutUrl} />
            </a>
          </dd>
        </dl>
      </div>

      {order.refunds.length > 0 && (
        <>
          <h2>Refunds</h2>
          <RefundsTable refunds={order.refunds} />
        </>
      )}

      <h2>Status history</h2>
      <DataTable head={["Time", "Change", "Cause"]}>
        {props.history.map((change) => (
          <tr>
            <td>
              <Time iso={change.at} />
            </td>
            <td class="nowrap">{change.fromStatus ? `${statusLabel(change.fromStatus)} → ${statusLabel(change.toStatus)}` : statusLabel(change.toStatus)}</td>
            <td>
              {change.cause}
              {change.detail && <div class="muted small mono">{change.detail}</div>}
              {change.amountReceived > 0n && <div class="small">{amountReceivedText(change.amountReceived, order.amount)}</div>}
            </td>
          </tr>
        ))}
      </DataTable>

      <h2>Webhook deliveries</h2>
      {props.deliveries === undefined ? (
        <p class="muted">Deliveries cannot be shown: the webhook service is not part of this deployment.</p>
      ) : props.deliveries.length === 0 ? (
        <Empty title="No deliveries for this order">
          <NoDeliveriesText why={props.noDeliveries ?? { kind: "no-events" }} webhooks={withMode(storePath(store.id, "webhooks"), mode.testMode)} />
        </Empty>
      ) : (
        <DeliveriesTable storeId={store.id} deliveries={props.deliveries} />
      )}
    </Shell>
  );
}

/** Event types as a list: "order.created", "order.created and order.paid", "a, b and c". */
function typesText(types: readonly string[]): ComponentChildren {
  return types.map((type, i) => (
    <>
      {i === 0 ? "" : i === types.length - 1 ? " and " : ", "}
      <code class="nowrap">{type}</code>
    </>
  ));
}

/** What is true of an order without deliveries (deliveries-empty.ts). */
function NoDeliveriesText({ why, webhooks }: { why: NoDeliveries; webhooks: string }) {
  const page = <a href={webhooks}>Webhooks</a>;
  switch (why.kind) {
    case "no-endpoint":
      return <p>The store has no webhook endpoint. Add one on the {page} page to receive this order's events.</p>;
    case "none-enabled":
      return <p>{why.endpoints === 1 ? "The store's endpoint is disabled" : `All ${why.endpoints} of the store's endpoints are disabled`}, so no event is sent. Enable one on the {page} page.</p>;
    case "no-events":
      return <p>No event of this order is in the event log yet: its deliveries show here within seconds of each event.</p>;
    case "not-subscribed":
      return (
        <p>
          So far this order has had {typesText(why.events)}, and no enabled endpoint takes {why.events.length === 1 ? "it" : "any of them"}
          {why.subscribed.length > 0 && <> (they take {typesText(why.subscribed)})</>}. Its later events are sent as they happen; change what an endpoint receives on the {page} page.
        </p>
      );
    case "not-delivered":
      return (
        <p>
          This order's {typesText(why.events)} happened before any enabled endpoint took {why.events.length === 1 ? "it" : "them"} (it was added or enabled later), so {why.events.length === 1 ? "it was" : "they were"} not sent. Its later events are sent as they happen; "Resend failed since" on an endpoint's page sends missed ones.
        </p>
      );
  }
}

interface OversoldLine {
  productId: string;
  quantity: bigint;
  /** The product as the catalog has it now; undefined when it is gone. */
  product?: Item;
}

/**
 * The order was paid after its hold on the stock had been released (it expired, say)
 * and the units had gone to other orders: the sale went through and took the stock
 * below zero (docs/catalog.md#stock). The merchant must find the goods or refund.
 */
function OversoldNotice(props: { storeId: string; lines: OversoldLine[] }) {
  return (
    <div class="warning" role="alert">
      <p style="margin:0">
        <strong>Oversold.</strong> This order was paid after its hold on the stock had been released, and the units had been sold to other orders meanwhile.
        The sale stands and the stock went below zero: check that you can deliver, or refund the order.
      </p>
      <ul style="margin:6px 0 0;padding-left:18px">
        {props.lines.map((line) => (
          <li>
            {line.product ? <a href={storePath(props.storeId, `products/${line.productId}`)}>{line.product.title}</a> : <span class="mono">{line.productId}</span>}
            {": "}
            {String(line.quantity)} {line.quantity === 1n ? "unit" : "units"}
            {line.product?.stock !== undefined && <span class="muted"> (stock now {String(line.product.stock)})</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * What of this order was oversold, by the catalog's record of its stock. Test orders
 * hold no stock, so they are not asked about.
 */
async function oversoldLines(clients: ServiceClients, order: Order): Promise<OversoldLine[]> {
  if (!order.livemode) return [];
  const { lines } = await clients.catalog.getOrderStock({ storeId: order.storeId, orderId: order.id });
  const oversold = lines.filter((line) => line.oversold);
  if (oversold.length === 0) return [];
  const { items } = await clients.catalog.getItems({ storeId: order.storeId, ids: [...new Set(oversold.map((line) => line.productId))] });
  return oversold.map((line) => ({ productId: line.productId, quantity: line.quantity, product: items.find((item) => item.id === line.productId) }));
}

/** An order's refunds, oldest first as the service lists them. */
function RefundsTable({ refunds }: { refunds: Refund[] }) {
  // Four columns, the details under each: the table stays readable on a phone.
  return (
    <DataTable head={["Time", "Amount", "Status", "Reason"]}>
      {refunds.map((refund) => (
        <tr>
          <td>
            <Time iso={refund.createdAt} />
          </td>
          <td class="nowrap">
            <Money amount={refund.amount} />
          </td>
          <td>
            <RefundStatusBadge status={refund.status} />
            <div class="muted small">{REFUND_METHOD_LABELS[refund.method] ?? refund.method}</div>
            {refund.failureMessage !== undefined && <div class="muted small">{refund.failureMessage}</div>}
            {refund.restock && <div class="muted small">Restock</div>}
          </td>
          <td>
            {refund.reason}
            {refund.reference !== undefined && <div class="muted small mono">{refund.reference}</div>}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/**
 * The order's deliveries and, when it has none, why: its mode's endpoints and the types
 * of its events so far (asked only then). Undefined without the webhook service.
 */
async function webhookDeliveries(clients: ServiceClients, order: Order): Promise<[Delivery[] | undefined, NoDeliveries | undefined]> {
  const webhook = clients.webhook;
  if (!webhook) return [undefined, undefined];
  const scope = { storeId: order.storeId, testMode: !order.livemode };
  const { deliveries } = await webhook.listDeliveries({ storeId: order.storeId, orderId: order.id, withoutAttempts: true });
  if (deliveries.length > 0) return [deliveries, undefined];
  const [{ endpoints }, { events }] = await Promise.all([
    webhook.listEndpoints(scope),
    webhook.listEvents({ ...scope, orderId: order.id, withoutBodies: true, limit: 100 }),
  ]);
  // The log is newest first; the sentence reads in the order they happened.
  return [deliveries, whyNoDeliveries(endpoints, events.map((event) => event.type).reverse())];
}

/**
 * The order of this store with what may be done to it, or undefined (a malformed id
 * or another store's order is simply not found). Never prepares a payment session.
 */
export async function load(ctx: DashboardContext, clients: ServiceClients, includeHistory: boolean): Promise<GetOrderResponse | undefined> {
  const orderId = (ctx.params.orderId ?? "").toLowerCase();
  if (!isUuid(orderId)) return undefined;
  return clients.order.getOrder({ storeId: ctx.state.scope.store.id, orderId, includeHistory, prepareSession: false, ...dashboardMode(ctx) });
}

/**
 * The order page as it is now: the order with its history, and its deliveries when
 * the webhook service is here. `extra` may be worked out from the order as it is now.
 */
export async function showOrder(
  ctx: DashboardContext,
  clients: ServiceClients,
  extra: { flash?: string; error?: string } | ((order: Order) => { flash?: string; error?: string }),
  status = 200,
) {
  const found = await load(ctx, clients, true);
  if (!found) return notFoundPage(ctx);
  const order = found.detail!.order!;
  const [[deliveries, noDeliveries], oversold] = await Promise.all([webhookDeliveries(clients, order), oversoldLines(clients, order)]);
  const messages = typeof extra === "function" ? extra(order) : { ...extra };
  // A service's refusal names the order by its id; a person knows it by its reference.
  if (messages.error) messages.error = messages.error.replaceAll(order.id, order.paymentReference);
  sendPage(
    ctx,
    <OrderPage
      ctx={ctx}
      detail={found.detail!}
      history={found.history}
      allowed={found.allowedActions}
      deliveries={deliveries}
      noDeliveries={noDeliveries}
      oversold={oversold}
      {...messages}
    />,
    status,
  );
}

/** GET …/orders/:orderId, with what became of a refund or the flash of a change. */
export function orderDetail(ctx: DashboardContext, clients: ServiceClients) {
  return showOrder(ctx, clients, (order) => {
    // After a refund: what became of it, as the order says now.
    const made = shownOnce<RefundMade>(ctx, "refund");
    const refund = made && order.refunds.find((r) => r.id === made.refundId);
    return refund ? refundOutcome(refund) : { flash: flashMessage(ctx) };
  });
}
