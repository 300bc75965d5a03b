import type { RouterInstance as Router } from "@koa/router";
import { isUuid } from "../../common/ids.js";
import { methodIn, statusIn, type Language } from "../../common/i18n/index.js";
import type { OrderDetail } from "../../gen/order/v1/order_pb.js";
import type { Logger } from "../../platform/logger.js";
import type { ServiceClients } from "../clients.js";
import type { RouteContext } from "../context.js";
import { groupDigits, rupiah, safeHttpUrl } from "../html/format.js";
import { sendHtml } from "../html/render.js";
import { notFoundPage, pageHandler } from "./errors.js";
import { HostedPage } from "./frame.js";
import { pageLanguage } from "./language.js";
import { BuyerStatus, BuyerTime, ItemLines, speaking, type Speaking } from "./speaking.js";

function ItemsSection({ detail, text }: { detail: OrderDetail } & Speaking) {
  const order = detail.order!;
  const payment = detail.payment!;
  const uniqueCode = payment.sellerBank && payment.sellerBank.uniqueAmountCode > 0n ? payment.sellerBank.uniqueAmountCode : undefined;
  return (
    <section aria-labelledby="items-title">
      <h2 id="items-title">{text.orderSummary}</h2>
      <ItemLines items={order.items} />
      <table class="sum">
        <tr>
          <td class="muted">{text.subtotal}</td>
          <td class="num">{rupiah(order.subtotal)}</td>
        </tr>
        {uniqueCode !== undefined && (
          <tr>
            <td class="muted">{text.uniqueCode}</td>
            <td class="num">+ {rupiah(uniqueCode)}</td>
          </tr>
        )}
        <tr class="total">
          <td>{text.total}</td>
          <td class="num">{rupiah(order.amount)}</td>
        </tr>
      </table>
    </section>
  );
}

function BankTransferSection({ detail, language, text }: { detail: OrderDetail } & Speaking) {
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
      <h2 id="pay-title">{text.payByTransfer}</h2>
      <p class="amount-label">{text.transferExactly}</p>
      <p class="amount transfer-amount">
        Rp {head}
        <span class="code">{codeDigits}</span>
      </p>
      <p class="muted">
        {text.amountToType} <span class="copy transfer-digits">{amount.toString()}</span>
      </p>
      <p class="note">
        <strong>{text.transferExactlyStrong}</strong>
        {text.transferExactlyWhy(code.toString(), rupiah(code))}
      </p>
      <dl class="details" style="margin-top:18px">
        <dt>{text.bank}</dt>
        <dd>
          {bank.bankName}
          {bank.bankCode ? (
            <>
              {" "}
              <span class="muted">({bank.bankCode})</span>
            </>
          ) : null}
        </dd>
        <dt>{text.accountNumber}</dt>
        <dd>
          <span class="copy account-number">{bank.accountNumber}</span>
        </dd>
        <dt>{text.accountHolder}</dt>
        <dd>{bank.accountHolder}</dd>
        <dt>{text.paymentReference}</dt>
        <dd>
          <span class="copy">{bank.paymentReference}</span>
          <div class="muted small">{text.referenceNote}</div>
        </dd>
        <dt>{text.payBefore}</dt>
        <dd>
          <BuyerTime iso={order.expiresAt} language={language} />
        </dd>
      </dl>
      <p class="muted small" style="margin:16px 0 0">
        {text.afterTransfer} <a href="">{text.refreshStatus}</a>
      </p>
    </section>
  );
}

function GatewaySection({ detail, language, text }: { detail: OrderDetail } & Speaking) {
  const order = detail.order!;
  const paymentUrl = safeHttpUrl(order.paymentUrl);
  // Until the gateway has made its session, payment_url points back at this page.
  const ready = paymentUrl !== undefined && order.paymentUrl !== order.checkoutUrl;
  return (
    <section aria-labelledby="pay-title">
      <h2 id="pay-title">{text.payOnline}</h2>
      <p class="amount-label">{text.amountDue}</p>
      <p class="amount">{rupiah(order.amount)}</p>
      <dl class="details">
        <dt>{text.method}</dt>
        <dd>{methodIn(language, order.paymentMethod)}</dd>
        <dt>{text.paymentReference}</dt>
        <dd class="mono">{order.paymentReference}</dd>
        <dt>{text.payBefore}</dt>
        <dd>
          <BuyerTime iso={order.expiresAt} language={language} />
        </dd>
      </dl>
      {ready ? (
        <>
          <a class="button button-primary pay-button" href={paymentUrl} rel="noreferrer">
            {text.payNow(rupiah(order.amount))}
          </a>
          <p class="muted small" style="margin:10px 0 0;text-align:center">
            {text.continueSecure}
          </p>
        </>
      ) : (
        <p class="note">
          {text.preparing} <a href="">{text.refreshInMoment}</a>
          {text.preparingAfter}
        </p>
      )}
    </section>
  );
}

function StatusSection({ detail, language, text }: { detail: OrderDetail } & Speaking) {
  const order = detail.order!;
  const bankTransfer = detail.payment!.kind === "bank_transfer";
  const messages: Record<string, [string, string]> = {
    paid: [text.paidTitle, text.paidText],
    failed: [text.failedTitle, text.failedText],
    expired: [text.expiredTitle, bankTransfer ? text.expiredTransferText(order.paymentReference) : text.expiredText],
    cancelled: [text.cancelledTitle, text.cancelledText],
    refunded: [text.refundedTitle, text.refundedText],
  };
  const [title, explanation] = messages[order.status] ?? [statusIn(language, order.status), ""];
  return (
    <section>
      <div class={`notice notice-${order.status}`} role="status">
        <strong>{title}</strong>
        {explanation}
      </div>
    </section>
  );
}

/** The hosted checkout page of one order. */
export function CheckoutPage({ detail, storeName, language }: { detail: OrderDetail; storeName: string; language: Language }) {
  const order = detail.order!;
  const payment = detail.payment!;
  const say = speaking(language);
  const { text } = say;
  const action =
    order.status === "pending" && payment.kind === "bank_transfer" && payment.sellerBank ? (
      <BankTransferSection detail={detail} {...say} />
    ) : order.status === "pending" && payment.kind === "gateway" ? (
      <GatewaySection detail={detail} {...say} />
    ) : (
      <StatusSection detail={detail} {...say} />
    );
  return (
    <HostedPage title={`${statusIn(language, order.status)} · ${rupiah(order.amount)} · ${storeName}`} language={language}>
      <main class="card">
        <section>
          <header class="top">
            <div>
              <p class="muted" style="margin:0">
                {text.checkout}
              </p>
              <h1 class="store">{storeName}</h1>
              <p class="muted small mono" style="margin:4px 0 0">
                {text.orderRef(order.paymentReference)}
              </p>
            </div>
            <div class="status">
              <BuyerStatus status={order.status} language={language} />
            </div>
          </header>
        </section>
        {action}
        <ItemsSection detail={detail} {...say} />
        <section>
          <dl class="details">
            <dt>{text.billedTo}</dt>
            <dd>{order.buyer?.name ?? ""}</dd>
            <dt>{text.ordered}</dt>
            <dd>
              <BuyerTime iso={order.createdAt} language={language} />
            </dd>
          </dl>
        </section>
      </main>
      <footer>
        <p>{text.keepPrivate}</p>
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
    sendHtml(ctx, 200, <CheckoutPage detail={detail!} storeName={storeName} language={pageLanguage(ctx)} />);
  }
}
