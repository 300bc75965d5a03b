import type { RouterInstance as Router } from "@koa/router";
import { isUuid } from "../../common/ids.js";
import { methodName } from "../../common/payment-methods.js";
import type { OrderDetail } from "../../gen/order/v1/order_pb.js";
import type { Logger } from "../../platform/logger.js";
import type { ServiceClients } from "../clients.js";
import type { RouteContext } from "../context.js";
import { StatusBadge, Time } from "../html/components.js";
import { groupDigits, rupiah, safeHttpUrl, STATUS_LABELS } from "../html/format.js";
import { sendHtml } from "../html/render.js";
import { notFoundPage, pageHandler } from "./errors.js";
import { HostedPage } from "./frame.js";

function ItemsSection({ detail }: { detail: OrderDetail }) {
  const order = detail.order!;
  const payment = detail.payment!;
  const uniqueCode = payment.sellerBank && payment.sellerBank.uniqueAmountCode > 0n ? payment.sellerBank.uniqueAmountCode : undefined;
  return (
    <section aria-labelledby="items-title">
      <h2 id="items-title">Order summary</h2>
      <ul class="items">
        {order.items.map((item) => (
          <li>
            <div>
              <div class="item-title">{item.title}</div>
              <div class="muted">
                <span class="qty">{item.quantity}</span> × <span class="unit-price">{rupiah(item.unitPrice)}</span>
              </div>
            </div>
            <div class="num line-total">{rupiah(item.lineTotal)}</div>
          </li>
        ))}
      </ul>
      <table class="sum">
        <tr>
          <td class="muted">Subtotal</td>
          <td class="num">{rupiah(order.subtotal)}</td>
        </tr>
        {uniqueCode !== undefined && (
          <tr>
            <td class="muted">Unique transfer code</td>
            <td class="num">+ {rupiah(uniqueCode)}</td>
          </tr>
        )}
        <tr class="total">
          <td>Total</td>
          <td class="num">{rupiah(order.amount)}</td>
        </tr>
      </table>
    </section>
  );
}

function BankTransferSection({ detail }: { detail: OrderDetail }) {
  const order = detail.order!;
  const bank = detail.payment!.sellerBank!;
  const amount = bank.transferAmount;
  const code = bank.uniqueAmountCode;
  const grouped = groupDigits(amount);
  // The last three digits carry the unique code: underline them in the big amount.
  const codeDigits = grouped.length > 3 ? grouped.slice(-3) : grouped;
  const head = grouped.length > 3 ? grouped.slice(0, -3) : "";
  return (
    <section aria-labelledby="pay-title">
      <h2 id="pay-title">Pay by bank transfer</h2>
      <p class="amount-label">Transfer exactly</p>
      <p class="amount transfer-amount">
        Rp {head}
        <span class="code">{codeDigits}</span>
      </p>
      <p class="muted">
        Amount to type in your banking app: <span class="copy transfer-digits">{amount.toString()}</span>
      </p>
      <p class="note">
        <strong>Transfer exactly this amount, including the last 3 digits.</strong> The last digits (unique code {code.toString()}, {rupiah(code)}) are
        how the store recognises your payment. A rounded amount cannot be matched to your order.
      </p>
      <dl class="details" style="margin-top:18px">
        <dt>Bank</dt>
        <dd>
          {bank.bankName}
          {bank.bankCode ? (
            <>
              {" "}
              <span class="muted">({bank.bankCode})</span>
            </>
          ) : null}
        </dd>
        <dt>Account number</dt>
        <dd>
          <span class="copy account-number">{bank.accountNumber}</span>
        </dd>
        <dt>Account holder</dt>
        <dd>{bank.accountHolder}</dd>
        <dt>Payment reference</dt>
        <dd>
          <span class="copy">{bank.paymentReference}</span>
          <div class="muted small">Put it in the transfer note if your bank allows one.</div>
        </dd>
        <dt>Pay before</dt>
        <dd>
          <Time iso={order.expiresAt} />
        </dd>
      </dl>
      <p class="muted small" style="margin:16px 0 0">
        After you transfer, the store confirms your payment and this page shows it as paid. <a href="">Refresh status</a>
      </p>
    </section>
  );
}

function GatewaySection({ detail }: { detail: OrderDetail }) {
  const order = detail.order!;
  const paymentUrl = safeHttpUrl(order.paymentUrl);
  // Until the gateway has made its session, payment_url points back at this page.
  const ready = paymentUrl !== undefined && order.paymentUrl !== order.checkoutUrl;
  return (
    <section aria-labelledby="pay-title">
      <h2 id="pay-title">Pay online</h2>
      <p class="amount-label">Amount due</p>
      <p class="amount">{rupiah(order.amount)}</p>
      <dl class="details">
        <dt>Method</dt>
        <dd>{methodName(order.paymentMethod)}</dd>
        <dt>Payment reference</dt>
        <dd class="mono">{order.paymentReference}</dd>
        <dt>Pay before</dt>
        <dd>
          <Time iso={order.expiresAt} />
        </dd>
      </dl>
      {ready ? (
        <>
          <a class="button button-primary pay-button" href={paymentUrl} rel="noreferrer">
            Pay {rupiah(order.amount)} now
          </a>
          <p class="muted small" style="margin:10px 0 0;text-align:center">
            You will continue on the secure payment page.
          </p>
        </>
      ) : (
        <p class="note">
          The payment page is being prepared. <a href="">Refresh this page</a> in a moment to continue.
        </p>
      )}
    </section>
  );
}

function StatusSection({ detail }: { detail: OrderDetail }) {
  const order = detail.order!;
  const bankTransfer = detail.payment!.kind === "bank_transfer";
  const messages: Record<string, [string, string]> = {
    paid: ["Payment received", "Thank you! This order is paid. The store has been notified."],
    failed: [
      "The payment did not go through",
      "No payment was taken for this order. Contact the store if you would like to try again.",
    ],
    expired: [
      "This order has expired",
      bankTransfer
        ? "It was not paid in time. If you already transferred the money, contact the store with the payment reference " +
          `${order.paymentReference}.`
        : "It was not paid in time. Please place a new order with the store.",
    ],
    cancelled: ["This order was cancelled", "The store cancelled this order. Nothing more needs to be paid."],
    refunded: ["This order was refunded", "The payment for this order has been returned."],
  };
  const [title, text] = messages[order.status] ?? [STATUS_LABELS[order.status] ?? order.status, ""];
  return (
    <section>
      <div class={`notice notice-${order.status}`} role="status">
        <strong>{title}</strong>
        {text}
      </div>
    </section>
  );
}

/** The hosted checkout page of one order. */
export function CheckoutPage({ detail, storeName }: { detail: OrderDetail; storeName: string }) {
  const order = detail.order!;
  const payment = detail.payment!;
  const action =
    order.status === "pending" && payment.kind === "bank_transfer" && payment.sellerBank ? (
      <BankTransferSection detail={detail} />
    ) : order.status === "pending" && payment.kind === "gateway" ? (
      <GatewaySection detail={detail} />
    ) : (
      <StatusSection detail={detail} />
    );
  return (
    <HostedPage title={`${STATUS_LABELS[order.status] ?? order.status} · ${rupiah(order.amount)} · ${storeName}`}>
      <main class="card">
        <section>
          <header class="top">
            <div>
              <p class="muted" style="margin:0">
                Checkout
              </p>
              <h1 class="store">{storeName}</h1>
              <p class="muted small mono" style="margin:4px 0 0">
                Order {order.paymentReference}
              </p>
            </div>
            <div class="status">
              <StatusBadge status={order.status} />
            </div>
          </header>
        </section>
        {action}
        <ItemsSection detail={detail} />
        <section>
          <dl class="details">
            <dt>Billed to</dt>
            <dd>{order.buyer?.name ?? ""}</dd>
            <dt>Ordered</dt>
            <dd>
              <Time iso={order.createdAt} />
            </dd>
          </dl>
        </section>
      </main>
      <footer>
        <p>Keep this link private: anyone who has it can see this order.</p>
        <p class="mono">{order.id}</p>
      </footer>
    </HostedPage>
  );
}

/** GET /checkout/{order_id}: no key; the order id is the capability. */
export function checkoutRoutes(router: Router, deps: { clients: ServiceClients; logger: Logger }) {
  router.get("/checkout/:order_id", pageHandler(deps.logger, "order", checkoutPage));

  async function checkoutPage(ctx: RouteContext) {
    const orderId = ctx.params.order_id ?? "";
    if (!isUuid(orderId)) return notFoundPage(ctx, "order");
    const { detail, storeName } = await deps.clients.order.getCheckout({ key: { case: "orderId", value: orderId } });
    sendHtml(ctx, 200, <CheckoutPage detail={detail!} storeName={storeName} />);
  }
}
