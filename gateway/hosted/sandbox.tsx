import { randomUUID } from "node:crypto";
import type { RouterInstance as Router } from "@koa/router";
import type { OrderDetail } from "../../gen/order/v1/order_pb.js";
import type { ServiceClients } from "../clients.js";
import type { GatewayContext, RouteContext } from "../context.js";
import type { Logger } from "../../platform/logger.js";
import { jakartaWallClock } from "../../common/jakarta-time.js";
import { midtransSignature } from "../../common/midtrans.js";
import { snapPaymentType } from "../../common/payment-methods.js";
import { methodIn, statusIn, type Language } from "../../common/i18n/index.js";
import { rupiah, safeHttpUrl } from "../html/format.js";
import { sendHtml } from "../html/render.js";
import { notFoundPage, pageHandler } from "./errors.js";
import { HostedPage, MessagePage } from "./frame.js";
import { pageLanguage } from "./language.js";
import { BuyerStatus, BuyerTime, speaking } from "./speaking.js";

// The sandbox payment gateway's pages (docs/payments.md#sandbox-pages). Pay and Fail send a
// Midtrans-format HTTP notification to this gateway's own notification endpoint, so a
// sandbox payment takes exactly the path a real Midtrans payment takes.

const TOKEN = /^[A-Za-z0-9_-]{1,200}$/;

type Outcome = "pay" | "fail";

/** The notification Midtrans would send for this outcome, signed with the server key. */
export function sandboxNotification(detail: OrderDetail, outcome: Outcome, serverKey: string) {
  const order = detail.order!;
  const statusCode = outcome === "pay" ? "200" : "202";
  const grossAmount = `${order.amount.toString()}.00`;
  return {
    transaction_time: jakartaWallClock(new Date()),
    transaction_status: outcome === "pay" ? "settlement" : "deny",
    transaction_id: randomUUID(),
    status_message: outcome === "pay" ? "midtrans payment notification" : "payment denied (sandbox)",
    status_code: statusCode,
    signature_key: midtransSignature({ order_id: order.paymentReference, status_code: statusCode, gross_amount: grossAmount }, serverKey),
    payment_type: snapPaymentType(order.paymentMethod) ?? "other_qris",
    order_id: order.paymentReference,
    merchant_id: "SANDBOX",
    gross_amount: grossAmount,
    fraud_status: "accept",
    currency: "IDR",
  };
}

/** Origins a form on the sandbox page may end up at (it answers with a redirect there). */
function redirectOrigins(detail: OrderDetail): string[] {
  const origins = new Set<string>();
  for (const url of [detail.redirect?.successUrl, detail.redirect?.errorUrl]) {
    const safe = url ? safeHttpUrl(url) : undefined;
    if (safe) origins.add(new URL(safe).origin);
  }
  return [...origins];
}

function SandboxPage({ detail, storeName, token, language }: { detail: OrderDetail; storeName: string; token: string; language: Language }) {
  const order = detail.order!;
  const { text } = speaking(language);
  // Relative to this page (/sandbox/pay/{token}), so it also works behind a path prefix.
  const base = `./${encodeURIComponent(token)}`;
  const checkout = safeHttpUrl(order.checkoutUrl);
  return (
    <HostedPage title={`${text.sandboxTitle} · ${rupiah(order.amount)} · ${storeName}`} language={language}>
      <main class="card">
        <div class="sandbox">{text.sandboxBanner}</div>
        <section>
          <header class="top">
            <div>
              <p class="muted" style="margin:0">
                {text.payTo}
              </p>
              <h1 class="store">{storeName}</h1>
            </div>
            <div class="status">
              <BuyerStatus status={order.status} language={language} />
            </div>
          </header>
          <p class="amount-label" style="margin-top:16px">
            {text.amount}
          </p>
          <p class="amount">{rupiah(order.amount)}</p>
          <dl class="details">
            <dt>{text.method}</dt>
            <dd>{methodIn(language, order.paymentMethod)}</dd>
            <dt>{text.order}</dt>
            <dd class="mono">{order.paymentReference}</dd>
            <dt>{text.payBefore}</dt>
            <dd>
              <BuyerTime iso={order.expiresAt} language={language} />
            </dd>
          </dl>
        </section>
        {order.status === "pending" ? (
          <section>
            <form method="post" action={`${base}/pay`} class="pay-form">
              <button type="submit" class="button button-primary">
                {text.pay}
              </button>
            </form>
            <form method="post" action={`${base}/fail`} class="fail-form">
              <button type="submit" class="button button-danger">
                {text.fail}
              </button>
            </form>
            <p class="muted small" style="margin:12px 0 0">
              Pay sends a <span class="mono">settlement</span> notification, Fail a <span class="mono">deny</span> notification, both signed like
              Midtrans' and sent to <span class="mono">POST /v1/payments/notifications/midtrans</span>.
            </p>
          </section>
        ) : (
          <section>
            <div class={`notice notice-${order.status}`} role="status">
              <strong>{text.nothingToPay}</strong>
              {text.orderIs(statusIn(language, order.status))}
              {checkout ? (
                <>
                  {" "}
                  <a href={checkout}>{text.seeOrder}</a>
                </>
              ) : null}
            </div>
          </section>
        )}
      </main>
    </HostedPage>
  );
}

const SNAP_JS = `// Sandbox stand-in for Midtrans Snap: snap.pay(token) opens the sandbox payment page.
(function () {
  var script = document.currentScript;
  var base = script && script.src ? script.src.replace(/\\/sandbox\\/snap\\.js(?:[?#].*)?$/, "") : "";
  function url(token) {
    return base + "/sandbox/pay/" + encodeURIComponent(token);
  }
  window.snap = {
    pay: function (token) {
      window.location.href = url(token);
    },
    embed: function (token) {
      window.location.href = url(token);
    },
    hide: function () {},
  };
})();
`;

export interface SandboxPageDeps {
  clients: ServiceClients;
  logger: Logger;
  midtransServerKey: string;
  /** Where this gateway answers over loopback, e.g. http://127.0.0.1:8080. */
  selfUrl(ctx: GatewayContext): string;
}

/** GET /sandbox/pay/{token}, POST …/pay and …/fail, GET /sandbox/snap.js. */
export function sandboxRoutes(router: Router, deps: SandboxPageDeps) {
  async function load(ctx: RouteContext): Promise<{ detail: OrderDetail; storeName: string; token: string } | undefined> {
    const token = ctx.params.token ?? "";
    if (!TOKEN.test(token)) return undefined;
    const { detail, storeName } = await deps.clients.order.getCheckout({ key: { case: "sessionToken", value: token } });
    return { detail: detail!, storeName, token };
  }

  router.get("/sandbox/snap.js", snapScript);
  router.get("/sandbox/pay/:token", pageHandler(deps.logger, "payment page", sandboxPaymentPage));
  router.post("/sandbox/pay/:token/pay", pageHandler(deps.logger, "payment page", payInSandbox));
  router.post("/sandbox/pay/:token/fail", pageHandler(deps.logger, "payment page", failInSandbox));

  function snapScript(ctx: GatewayContext) {
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.type = "application/javascript; charset=utf-8";
    ctx.body = SNAP_JS;
  }

  async function sandboxPaymentPage(ctx: RouteContext) {
    const found = await load(ctx);
    if (!found) return notFoundPage(ctx, "payment page");
    sendHtml(ctx, 200, <SandboxPage detail={found.detail} storeName={found.storeName} token={found.token} language={pageLanguage(ctx)} />, {
      formAction: redirectOrigins(found.detail),
    });
  }

  function payInSandbox(ctx: RouteContext) {
    return complete(ctx, "pay");
  }

  function failInSandbox(ctx: RouteContext) {
    return complete(ctx, "fail");
  }

  /** Sends the notification for `outcome`, then sends the buyer where the store asked. */
  async function complete(ctx: RouteContext, outcome: Outcome) {
    const found = await load(ctx);
    if (!found) return notFoundPage(ctx, "payment page");
    const notification = sandboxNotification(found.detail, outcome, deps.midtransServerKey);
    const response = await fetch(`${deps.selfUrl(ctx)}/v1/payments/notifications/midtrans`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-request-id": ctx.state.requestId },
      body: JSON.stringify(notification),
      signal: AbortSignal.timeout(15_000),
      redirect: "error",
    });
    const answer = (await response.json().catch(() => undefined)) as { success?: boolean; error?: { message?: string } } | undefined;
    if (!response.ok || answer?.success !== true) {
      const language = pageLanguage(ctx);
      const { text } = speaking(language);
      const reason = text.sandboxAnswered(response.status, answer?.error?.message ?? text.noDetails);
      return sendHtml(ctx, 502, <MessagePage title={text.sandboxNotAccepted} message={reason} language={language} />);
    }
    const redirect = found.detail.redirect;
    const target =
      safeHttpUrl((outcome === "pay" ? redirect?.successUrl : redirect?.errorUrl) ?? "") ??
      safeHttpUrl(found.detail.order!.checkoutUrl) ??
      "/";
    ctx.set("Cache-Control", "no-store");
    ctx.redirect(target);
    ctx.status = 303;
  }
}
