// Orders (CONTRACT §10, §12): find an order by status or by its payment reference,
// external id or buyer email; see its items, payment, refunds, history and deliveries;
// mark a bank transfer paid, cancel a pending order or refund a paid one, each
// confirmed and audited. What may be done is the order service's answer
// (`allowed_actions`); the page offers exactly that and holds no rule of its own. The
// change goes through the same RPCs as `store-admin order …`, so the API and webhooks
// see it alike. Reading an order here never prepares a payment session.
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { Readable } from "node:stream";
import type { RouterInstance as Router } from "@koa/router";
import { orderCsv } from "../../../../common/order-csv.js";
import { isUuid } from "../../../../common/ids.js";
import { ORDER_STATUSES } from "../../../../common/order-status.js";
import { methodName } from "../../../../common/payment-methods.js";
import type { GetOrderResponse, Order, OrderDetail, Refund, StatusChange } from "../../../../gen/order/v1/order_pb.js";
import type { Delivery } from "../../../../gen/webhook/v1/webhook_pb.js";
import { Money, StatusBadge, Time } from "../../../html/components.js";
import { rupiah } from "../../../html/format.js";
import { requestHash } from "../../../idempotency-key.js";
import { field } from "../../forms.js";
import { notFoundPage, problemText, seeOther, sendPage, type DashboardContext, type Kit } from "../../kit.js";
import { Csrf, Empty, Shell, storePath } from "../../views/layout.js";
import { DataTable } from "../../views/data-table.js";
import { DeliveriesTable } from "../deliveries.js";

const PAGE_SIZE = 50;

const DONE: Record<string, string> = {
  paid: "The order is marked as paid. Your webhooks get order.paid as usual.",
  cancelled: "The order is cancelled. Your webhooks get order.cancelled as usual.",
};

/** The order service's names for what a person may do (GetOrderResponse.allowed_actions). */
type AllowedAction = "mark_paid" | "cancel" | "refund";

/** What is left to refund: the amount less succeeded and pending refunds (CONTRACT §12). */
function refundable(order: Order): bigint {
  const pending = order.refunds.filter((refund) => refund.status === "pending").reduce((sum, refund) => sum + refund.amount, 0n);
  const left = order.amount - order.refundedAmount - pending;
  return left > 0n ? left : 0n;
}

const REFUND_STATUS_LABELS: Record<string, string> = { pending: "Pending", succeeded: "Succeeded", failed: "Failed" };
const REFUND_METHOD_LABELS: Record<string, string> = { gateway: "Payment gateway", manual: "Manual (sent by the store)" };

function RefundStatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{REFUND_STATUS_LABELS[status] ?? status}</span>;
}

/** What became of a refund, for the page the refund form redirects to. */
function refundOutcome(refund: Refund): { flash?: string; error?: string } {
  const what = `Refund of ${rupiah(refund.amount)}`;
  if (refund.status === "succeeded") return { flash: `${what} succeeded. Your webhooks get refund.succeeded as usual.` };
  if (refund.status === "pending") return { flash: `${what} is pending at the payment gateway; it is retried until the gateway answers.` };
  return { error: `${what} failed: ${refund.failureMessage ?? "the payment gateway refused it"}.` };
}

function OrdersPage(props: { ctx: DashboardContext; orders: Order[]; hasMore: boolean; status: string; search: string; after: string; error?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const filtered = props.status !== "" || props.search !== "";
  // Pages go on after the last order shown (keyset): the thousandth page costs what the first does.
  const query = (after?: string) => `?${new URLSearchParams({ status: props.status, q: props.search, ...(after ? { after } : {}) })}`;
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
      {props.orders.length > 0 && (
        <p class="small" style="margin-top:0">
          <a class="button secondary" href={`${storePath(store.id, "orders/export.csv")}?${new URLSearchParams({ status: props.status, q: props.search })}`} download>
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

function OrderPage(props: {
  ctx: DashboardContext;
  detail: OrderDetail;
  history: StatusChange[];
  allowed: string[];
  deliveries: Delivery[] | undefined;
  /** The store's endpoints: "no deliveries" says whether there is none or none takes these events. */
  endpointCount: number;
  flash?: string;
  error?: string;
}) {
  const { member, store, csrf } = props.ctx.state.scope;
  const order = props.detail.order!;
  const allowed = (action: AllowedAction) => props.allowed.includes(action);
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
        {(allowed("mark_paid") || allowed("cancel") || allowed("refund")) && (
          <div class="actions">
            {allowed("mark_paid") && (
              <a class="button" href={`${base}/mark-paid`}>
                Mark as paid
              </a>
            )}
            {allowed("refund") && (
              <a class="button secondary" href={`${base}/refund`}>
                Refund
              </a>
            )}
            {allowed("cancel") && (
              <a class="button danger" href={`${base}/cancel`}>
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
            <a href={order.checkoutUrl}>{order.checkoutUrl}</a>
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
            <td class="nowrap">{change.fromStatus ? `${change.fromStatus} → ${change.toStatus}` : change.toStatus}</td>
            <td>
              {change.cause}
              {change.detail && <div class="muted small mono">{change.detail}</div>}
            </td>
          </tr>
        ))}
      </DataTable>

      <h2>Webhook deliveries</h2>
      {props.deliveries === undefined ? (
        <p class="muted">Deliveries cannot be shown: the webhook service is not part of this deployment.</p>
      ) : props.deliveries.length === 0 ? (
        <Empty title="No deliveries for this order">
          <p>
            {props.endpointCount === 0 ? (
              <>
                The store has no webhook endpoint. Add one on the <a href={storePath(store.id, "webhooks")}>Webhooks</a> page to receive this order's events.
              </>
            ) : (
              <>
                None of the store's endpoints is enabled and subscribed to this order's events. Check their events on the{" "}
                <a href={storePath(store.id, "webhooks")}>Webhooks</a> page.
              </>
            )}
          </p>
        </Empty>
      ) : (
        <DeliveriesTable storeId={store.id} deliveries={props.deliveries} />
      )}
    </Shell>
  );
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

const ACTIONS = {
  "mark-paid": {
    title: "Mark this order as paid?",
    explain: "Do this only when the exact transfer amount has arrived in the store's account. The buyer's order turns paid and your systems are told.",
    button: "Mark as paid",
    action: "mark_paid",
    done: "paid",
  },
  cancel: {
    title: "Cancel this order?",
    explain: "The buyer can no longer pay it, and your systems are told it was cancelled. This cannot be undone.",
    button: "Cancel order",
    action: "cancel",
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

interface RefundValues {
  amount: string;
  reason: string;
  reference: string;
}

/**
 * The refund form: "Amount" (what is left, unless the person typed another), "Reason",
 * an optional "Reference", and "Refund order". A fresh idempotency key per form, so a
 * double click refunds once.
 */
function RefundPage(props: { ctx: DashboardContext; order: Order; values: RefundValues; error?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const order = props.order;
  const base = storePath(store.id, `orders/${order.id}`);
  const manual = order.settlementChannel !== "gateway";
  return (
    <Shell title="Refund this order?" member={member} store={store} section="orders" csrf={csrf} error={props.error}>
      <div class="card">
        <p>
          Order <strong class="mono">{order.paymentReference}</strong> for <Money amount={order.amount} />, now <StatusBadge status={order.status} />.
          {order.refundedAmount > 0n && (
            <>
              {" "}
              Refunded so far: <Money amount={order.refundedAmount} />.
            </>
          )}{" "}
          Left to refund: <Money amount={refundable(order)} />.
        </p>
        <p>
          {manual
            ? "The buyer paid by bank transfer: send the money back from the store's account first, then record it here. The refund succeeds at once and your systems are told."
            : "The payment gateway gives the money back to the buyer. If it cannot be reached, the refund stays pending and is retried with the same refund key, so it is made once."}{" "}
          When everything is refunded, the order turns refunded.
        </p>
        <form class="stack" method="post" action={`${base}/refund`}>
          <Csrf token={csrf} />
          <input type="hidden" name="idempotency_key" value={`dashboard-refund-${randomUUID()}`} />
          <label>
            Amount
            <input type="text" inputMode="numeric" name="amount" value={props.values.amount} autoComplete="off" aria-describedby="amount-hint" />
          </label>
          <p id="amount-hint" class="muted small" style="margin:-6px 0 0">
            Whole rupiah, at most what is left. Empty: everything that is left.
          </p>
          <label>
            Reason
            <input type="text" name="reason" value={props.values.reason} maxLength={200} required autoComplete="off" />
          </label>
          <label>
            Reference
            <input type="text" name="reference" value={props.values.reference} maxLength={100} autoComplete="off" aria-describedby="reference-hint" />
          </label>
          <p id="reference-hint" class="muted small" style="margin:-6px 0 0">
            Optional: your own reference, such as the bank transfer that sent the money back.
          </p>
          <div class="actions">
            <button type="submit" class="danger">
              Refund order
            </button>
            <a class="button secondary" href={base}>
              Back to the order
            </a>
          </div>
        </form>
      </div>
    </Shell>
  );
}

/** "150000" or "150.000" (Indonesian grouping) → 150000n; "" → undefined (all that is left); anything else → null. */
function parseAmount(text: string): bigint | undefined | null {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (/^[0-9]{1,15}$/.test(trimmed)) return BigInt(trimmed);
  if (/^[0-9]{1,3}(\.[0-9]{3}){1,4}$/.test(trimmed)) return BigInt(trimmed.replace(/\./g, ""));
  return null;
}

export function orderPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/orders";

  router.get(
    base,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const status = typeof ctx.query.status === "string" && (ORDER_STATUSES as readonly string[]).includes(ctx.query.status) ? ctx.query.status : "";
      const search = typeof ctx.query.q === "string" ? ctx.query.q.trim() : "";
      const after = typeof ctx.query.after === "string" && isUuid(ctx.query.after) ? ctx.query.after.toLowerCase() : "";
      try {
        const page = await clients.order.listOrders({ storeId: ctx.state.scope.store.id, limit: PAGE_SIZE, status, search, startingAfter: after });
        sendPage(ctx, <OrdersPage ctx={ctx} orders={page.orders} hasMore={page.hasMore} status={status} search={search} after={after} />);
      } catch (error) {
        // The order a page link goes on after is gone from this store's view: start over.
        const problem = error instanceof ConnectError && error.code === Code.NotFound ? "The page link is not valid: start again from the newest orders." : problemText(error);
        if (!problem) throw error;
        sendPage(ctx, <OrdersPage ctx={ctx} orders={[]} hasMore={false} status={status} search={search} after="" error={problem} />, 400);
      }
    }),
  );

  // Registered before `${base}/:orderId`, which would take "export.csv" for an id.
  router.get(
    `${base}/export.csv`,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const status = typeof ctx.query.status === "string" && (ORDER_STATUSES as readonly string[]).includes(ctx.query.status) ? ctx.query.status : "";
      const search = typeof ctx.query.q === "string" ? ctx.query.q.trim() : "";
      const storeId = ctx.state.scope.store.id;
      const rows = orderCsv((request) => clients.order.listOrders(request, { timeoutMs: 30_000 }), { storeId, status, search });
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
    }),
  );

  /**
   * The order of this store with what may be done to it, or undefined (a malformed id
   * or another store's order is simply not found). Never prepares a payment session.
   */
  async function load(ctx: DashboardContext, includeHistory: boolean): Promise<GetOrderResponse | undefined> {
    const orderId = (ctx.params.orderId ?? "").toLowerCase();
    if (!isUuid(orderId)) return undefined;
    return clients.order.getOrder({ storeId: ctx.state.scope.store.id, orderId, includeHistory, prepareSession: false });
  }

  /**
   * The order page as it is now: the order with its history, and its deliveries when
   * the webhook service is here. `extra` may be worked out from the order as it is now.
   */
  async function showOrder(ctx: DashboardContext, extra: { flash?: string; error?: string } | ((order: Order) => { flash?: string; error?: string }), status = 200) {
    const found = await load(ctx, true);
    if (!found) return notFoundPage(ctx);
    const order = found.detail!.order!;
    const [deliveries, endpointCount] = clients.webhook
      ? await Promise.all([
          clients.webhook.listDeliveries({ storeId: order.storeId, orderId: order.id, withoutAttempts: true }).then((answer) => answer.deliveries),
          clients.webhook.listEndpoints({ storeId: order.storeId }).then((answer) => answer.endpoints.length),
        ])
      : [undefined, 0];
    const messages = typeof extra === "function" ? extra(order) : extra;
    sendPage(ctx, <OrderPage ctx={ctx} detail={found.detail!} history={found.history} allowed={found.allowedActions} deliveries={deliveries} endpointCount={endpointCount} {...messages} />, status);
  }

  router.get(
    `${base}/:orderId`,
    storeScope,
    handle((ctx: DashboardContext) =>
      showOrder(ctx, (order) => {
        // After a refund: what became of it, as the order says now.
        const refund = typeof ctx.query.refund === "string" ? order.refunds.find((r) => r.id === ctx.query.refund) : undefined;
        return refund ? refundOutcome(refund) : { flash: DONE[String(ctx.query.done)] };
      }),
    ),
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
        if (!found.allowedActions.includes(action.action)) return seeOther(ctx, storePath(order.storeId, `orders/${order.id}`));
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
        // A stale tab or a hand-made post is simply tried: the order service refuses
        // what may not be done (FAILED_PRECONDITION), and its reason is shown.
        // The order service checks the member's role and writes the audit entry with the change.
        try {
          if (name === "mark-paid") await clients.order.markOrderPaid({ storeId, orderId });
          else await clients.order.cancelOrder({ storeId, orderId });
          seeOther(ctx, `${storePath(storeId, `orders/${orderId}`)}?done=${action.done}`);
        } catch (error) {
          const problem = problemText(error);
          if (!problem) throw error;
          await showOrder(ctx, { error: `Not changed: ${problem}` }, 409);
        }
      }),
    );
  }

  // Refund (CONTRACT §12): a form rather than a bare confirmation, since it asks how much and why.
  router.get(
    `${base}/:orderId/refund`,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const found = await load(ctx, false);
      if (!found) return notFoundPage(ctx);
      const order = found.detail!.order!;
      if (!found.allowedActions.includes("refund")) return seeOther(ctx, storePath(order.storeId, `orders/${order.id}`));
      sendPage(ctx, <RefundPage ctx={ctx} order={order} values={{ amount: String(refundable(order)), reason: "", reference: "" }} />);
    }),
  );

  router.post(
    `${base}/:orderId/refund`,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const found = await load(ctx, false);
      if (!found) return notFoundPage(ctx);
      const order = found.detail!.order!;
      const { storeId, id: orderId } = order;
      const { form } = ctx.state.scope;
      const values: RefundValues = { amount: field(form, "amount"), reason: field(form, "reason"), reference: field(form, "reference") };
      const again = (error: string) => sendPage(ctx, <RefundPage ctx={ctx} order={order} values={values} error={error} />, 400);
      const amount = parseAmount(values.amount);
      if (amount === null) return again("Amount must be a whole number of rupiah, such as 150000.");
      const key = field(form, "idempotency_key");
      const idempotencyKey = /^dashboard-refund-[0-9a-f-]{36}$/.test(key) ? key : undefined;
      const reference = values.reference.trim() === "" ? undefined : values.reference.trim();
      try {
        const { refund } = await clients.order.refundOrder({
          storeId,
          orderId,
          amount,
          reason: values.reason.trim(),
          reference,
          idempotencyKey,
          requestHash: requestHash({ refund: { order_id: orderId, amount: amount === undefined ? null : String(amount), reason: values.reason.trim(), reference: reference ?? null } }),
        });
        seeOther(ctx, `${storePath(storeId, `orders/${orderId}`)}?refund=${encodeURIComponent(refund!.id)}`);
      } catch (error) {
        // A wrong amount or reason: the form again, with what was typed.
        if (error instanceof ConnectError && error.code === Code.InvalidArgument) return again(error.rawMessage);
        // The same form sent twice (a double click): the first one is being made.
        const duplicate = error instanceof ConnectError && error.code === Code.AlreadyExists;
        const problem = duplicate ? "this refund was already sent and is being made; see the order's refunds." : problemText(error);
        if (!problem) throw error;
        await showOrder(ctx, { error: `Not refunded: ${problem}` }, 409);
      }
    }),
  );
}
