// Marking a bank transfer paid and cancelling a pending order: each a page that says
// what follows, then the post. The order service decides whether it may be done
// (allowed_actions) and audits it; a stale tab's post is refused with its reason
// (docs/orders.md, docs/dashboard.md).
import type { Order } from "../../../../gen/order/v1/order_pb.js";
import type { ServiceClients } from "../../../clients.js";
import { Money, StatusBadge } from "../../../html/components.js";
import { dashboardMode, notFoundPage, problemText, seeOther, seeOtherWith, sendPage, type DashboardContext } from "../../kit.js";
import { Csrf, Shell, storePath } from "../../views/layout.js";
import { load, ORDER_DONE, showOrder } from "./detail.js";
import { withMode } from "../../views/test-data.js";

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
  const mode = dashboardMode(props.ctx);
  return (
    <Shell title={action.title} member={member} store={store} section="orders" csrf={csrf}>
      <div class="card">
        <p>
          Order <strong class="mono">{props.order.paymentReference}</strong> for <Money amount={props.order.amount} />, now{" "}
          <StatusBadge status={props.order.status} />.
        </p>
        <p>{action.explain}</p>
        <div class="actions">
          <form method="post" action={withMode(`${base}/${props.action}`, mode.testMode)}>
            <Csrf token={csrf} />
            <button type="submit" class={props.action === "cancel" ? "danger" : undefined}>
              {action.button}
            </button>
          </form>
          <a class="button secondary" href={withMode(base, mode.testMode)}>
            Back to the order
          </a>
        </div>
      </div>
    </Shell>
  );
}

/** GET …/:orderId/<action>: the confirmation, or back to the order when it may not be done now. */
function confirmation(name: ActionName) {
  const action = ACTIONS[name];
  return async (ctx: DashboardContext, clients: ServiceClients) => {
    const found = await load(ctx, clients, false);
    if (!found) return notFoundPage(ctx);
    const order = found.detail!.order!;
    if (!found.allowedActions.includes(action.action)) return seeOther(ctx, withMode(storePath(order.storeId, `orders/${order.id}`), dashboardMode(ctx).testMode));
    sendPage(ctx, <ConfirmPage ctx={ctx} order={order} action={name} />);
  };
}

/** POST …/:orderId/<action>: the change, then the order with what became of it. */
function change(name: ActionName) {
  const action = ACTIONS[name];
  return async (ctx: DashboardContext, clients: ServiceClients) => {
    const found = await load(ctx, clients, false);
    if (!found) return notFoundPage(ctx);
    const { storeId, id: orderId } = found.detail!.order!;
    // A stale tab or a hand-made post is simply tried: the order service refuses
    // what may not be done (FAILED_PRECONDITION), and its reason is shown.
    // The order service checks the member's role and writes the audit entry with the change.
    try {
      const { testMode } = dashboardMode(ctx);
      if (name === "mark-paid") await clients.order.markOrderPaid({ storeId, orderId, testMode });
      else await clients.order.cancelOrder({ storeId, orderId, testMode });
      seeOtherWith(ctx, withMode(storePath(storeId, `orders/${orderId}`), testMode), { message: ORDER_DONE[action.done] });
    } catch (error) {
      const problem = problemText(error);
      if (!problem) throw error;
      await showOrder(ctx, clients, { error: `Not changed: ${problem}` }, 409);
    }
  };
}

export const confirmMarkPaid = confirmation("mark-paid");
export const markPaid = change("mark-paid");
export const confirmCancel = confirmation("cancel");
export const cancelOrder = change("cancel");
