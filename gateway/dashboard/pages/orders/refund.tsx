// Refunding an order: a form rather than a bare confirmation, since it asks how much
// and why (docs/refunds.md). The order service decides whether it may be done, makes
// it at the payment gateway or records a manual one, and audits it.
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Order } from "../../../../gen/order/v1/order_pb.js";
import type { ServiceClients } from "../../../clients.js";
import { Money, StatusBadge } from "../../../html/components.js";
import { requestHash } from "../../../idempotency-key.js";
import { field, parseWholeNumber } from "../../forms.js";
import { dashboardMode, notFoundPage, problemText, seeOther, seeOtherWith, sendPage, type DashboardContext } from "../../kit.js";
import { Csrf, Shell, storePath } from "../../views/layout.js";
import { load, showOrder, type RefundMade } from "./detail.js";
import { withMode } from "../../views/test-data.js";

/** What is left to refund: the amount less succeeded and pending refunds (docs/refunds.md). */
function refundable(order: Order): bigint {
  const pending = order.refunds.filter((refund) => refund.status === "pending").reduce((sum, refund) => sum + refund.amount, 0n);
  const left = order.amount - order.refundedAmount - pending;
  return left > 0n ? left : 0n;
}

interface RefundValues {
  amount: string;
  reason: string;
  reference: string;
  /** Put the units the order sold back into stock once the refund succeeds. */
  restock: boolean;
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
  const mode = dashboardMode(props.ctx);
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
        <form class="stack" method="post" action={withMode(`${base}/refund`, mode.testMode)}>
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
          <fieldset aria-describedby="restock-hint">
            <legend>Stock</legend>
            <label>
              <input type="checkbox" name="restock" value="1" checked={props.values.restock} />
              Restock
            </label>
            <p id="restock-hint" class="muted small" style="margin:4px 0 0">
              Puts the units this order sold back into stock once the refund succeeds, for goods that came back. Products whose stock is not counted are not
              affected.
            </p>
          </fieldset>
          <div class="actions">
            <button type="submit" class="danger">
              Refund order
            </button>
            <a class="button secondary" href={withMode(base, mode.testMode)}>
              Back to the order
            </a>
          </div>
        </form>
      </div>
    </Shell>
  );
}

/** GET …/:orderId/refund: the form with all that is left, or back to the order when it may not be refunded now. */
export async function refundForm(ctx: DashboardContext, clients: ServiceClients) {
  const found = await load(ctx, clients, false);
  if (!found) return notFoundPage(ctx);
  const order = found.detail!.order!;
  if (!found.allowedActions.includes("refund")) return seeOther(ctx, withMode(storePath(order.storeId, `orders/${order.id}`), dashboardMode(ctx).testMode));
  sendPage(ctx, <RefundPage ctx={ctx} order={order} values={{ amount: String(refundable(order)), reason: "", reference: "", restock: false }} />);
}

/** POST …/:orderId/refund: the refund, then the order with what became of it; a wrong amount or reason is the form again. */
export async function refundOrder(ctx: DashboardContext, clients: ServiceClients) {
  const found = await load(ctx, clients, false);
  if (!found) return notFoundPage(ctx);
  const order = found.detail!.order!;
  const { storeId, id: orderId } = order;
  const { form } = ctx.state.scope;
  const values: RefundValues = { amount: field(form, "amount"), reason: field(form, "reason"), reference: field(form, "reference"), restock: field(form, "restock") === "1" };
  const again = (error: string) => sendPage(ctx, <RefundPage ctx={ctx} order={order} values={values} error={error} />, 400);
  // Empty: all that is left.
  const amount = parseWholeNumber(values.amount);
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
      restock: values.restock,
      idempotencyKey,
      ...dashboardMode(ctx),
      requestHash: requestHash({
        refund: { order_id: orderId, amount: amount === undefined ? null : String(amount), reason: values.reason.trim(), reference: reference ?? null, restock: values.restock },
      }),
    });
    seeOtherWith(ctx, withMode(storePath(storeId, `orders/${orderId}`), dashboardMode(ctx).testMode), { shown: { kind: "refund", refundId: refund!.id } satisfies RefundMade });
  } catch (error) {
    // A wrong amount or reason: the form again, with what was typed.
    if (error instanceof ConnectError && error.code === Code.InvalidArgument) return again(error.rawMessage);
    // The same form sent twice (a double click): the first one is being made.
    const duplicate = error instanceof ConnectError && error.code === Code.AlreadyExists;
    const problem = duplicate ? "this refund was already sent and is being made; see the order's refunds." : problemText(error);
    if (!problem) throw error;
    await showOrder(ctx, clients, { error: `Not refunded: ${problem}` }, 409);
  }
}
