// The public page of a payment link, /pay/{slug} (docs/payments.md#payment-links): no key,
// the slug is the capability. It shows the store, the items and the total, asks the buyer
// for name, email and phone and a method, and makes the order through the order service's
// PayPaymentLink, then sends the buyer to the order's checkout page (303). Same headers,
// CSP and language as the other hosted pages; the form is double-submit protected as the
// dashboard's sign-in form is, and each order is limited per client address, the token
// taken before the work (gateway/per-address.ts).
import type { RouterInstance as Router } from "@koa/router";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Language } from "../../common/i18n/index.js";
import { methodIn } from "../../common/i18n/index.js";
import type { GetPaymentLinkPageResponse } from "../../gen/order/v1/order_pb.js";
import { fieldViolations } from "../../platform/field-errors.js";
import type { Logger } from "../../platform/logger.js";
import { outOfStockLines } from "../../platform/out-of-stock.js";
import { linkClosedState } from "../../platform/payment-link-errors.js";
import type { LinkState } from "../../common/payment-links.js";
import type { ServiceClients } from "../clients.js";
import type { RouteContext } from "../context.js";
import { field, readForm } from "../dashboard/forms.js";
import { doubleSubmitOk, doubleSubmitToken } from "../dashboard/session-cookie.js";
import { rupiah } from "../html/format.js";
import { sendHtml } from "../html/render.js";
import type { PerAddressLimit } from "../per-address.js";
import { notFoundPage, pageHandler } from "./errors.js";
import { HostedPage, MessagePage } from "./frame.js";
import { pageLanguage } from "./language.js";
import { ItemLines, speaking } from "./speaking.js";

/** What the buyer typed, shown again with what was wrong. */
interface Filled {
  name: string;
  email: string;
  phone: string;
  method: string;
  /** The field at fault ("buyer.email") and what to say. */
  problem?: { field: string; message: string };
}

const SLUG = /^[a-z0-9]{1,64}$/;

export function PaymentLinkPage(props: { page: GetPaymentLinkPageResponse; slug: string; csrf: string; language: Language; filled?: Filled }) {
  const { page, language, filled } = props;
  const { text } = speaking(language);
  const t = text.payLink;
  const problem = filled?.problem;
  const input = (name: "name" | "email" | "phone", path: string, type: string, autocomplete: string) => (
    <p>
      <label for={`buyer-${name}`}>{t[name]}</label>
      <br />
      <input
        id={`buyer-${name}`}
        name={name}
        type={type}
        autocomplete={autocomplete}
        required
        value={filled?.[name] ?? ""}
        aria-invalid={problem?.field === path ? "true" : undefined}
        aria-describedby={problem?.field === path ? "problem" : undefined}
        style="width:100%;font:inherit;padding:10px 12px;border:1px solid #b8c0cc;border-radius:10px"
      />
    </p>
  );
  const methodInvalid = problem?.field === "payment_method";
  return (
    <HostedPage title={`${page.storeName} · ${rupiah(page.total)}`} language={language}>
      <main class="card">
        <section>
          <p class="muted" style="margin:0">
            {t.order}
          </p>
          <h1 class="store">{page.storeName}</h1>
        </section>
        <section aria-labelledby="items-title">
          <h2 id="items-title">{text.orderSummary}</h2>
          <ItemLines items={page.items} />
          <table class="sum">
            <tr class="total">
              <td>{text.total}</td>
              <td class="num">{rupiah(page.total)}</td>
            </tr>
          </table>
        </section>
        <section aria-labelledby="details-title">
          <h2 id="details-title">{t.yourDetails}</h2>
          {problem && (
            <div class="notice notice-failed" role="alert" id="problem">
              <strong>{t.problem}</strong>
              {problem.message}
            </div>
          )}
          <form method="post" action={`/pay/${props.slug}`}>
            <input type="hidden" name="csrf" value={props.csrf} />
            {input("name", "buyer.name", "text", "name")}
            {input("email", "buyer.email", "email", "email")}
            {input("phone", "buyer.phone", "tel", "tel")}
            {page.total > 0n && (
              <fieldset style="border:0;padding:0;margin:0" aria-invalid={methodInvalid ? "true" : undefined}>
                <legend style="font-weight:600;margin-bottom:6px">{t.method}</legend>
                {page.methods.map((method, n) => (
                  <label style="display:block;padding:6px 0">
                    <input type="radio" name="payment_method" value={method.code} required checked={filled ? filled.method === method.code : n === 0} />{" "}
                    {methodIn(language, method.code)}
                  </label>
                ))}
              </fieldset>
            )}
            <button class="button button-primary" type="submit">
              {t.continue}
            </button>
          </form>
        </section>
      </main>
    </HostedPage>
  );
}

export interface PaymentLinkPageDeps {
  clients: ServiceClients;
  logger: Logger;
  /** Cookies are Secure (and __Host-) when PUBLIC_BASE_URL is https. */
  secure: boolean;
  /** PAYMENT_LINK_ORDERS_PER_MINUTE per client address. */
  orders: PerAddressLimit;
}

/** GET and POST /pay/{slug}. */
export function paymentLinkPageRoutes(router: Router, deps: PaymentLinkPageDeps) {
  router.get("/pay/:slug", pageHandler(deps.logger, "payment link", showPage));
  router.post("/pay/:slug", pageHandler(deps.logger, "payment link", placeOrder));

  function closedPage(ctx: RouteContext, state: Exclude<LinkState, "open">) {
    const language = pageLanguage(ctx);
    const t = speaking(language).text.payLink;
    sendHtml(ctx, 410, <MessagePage title={t.closedTitle[state]} message={t.closedText} language={language} />);
  }

  function busyPage(ctx: RouteContext, retryAfterSeconds: number) {
    const language = pageLanguage(ctx);
    const t = speaking(language).text.payLink;
    ctx.set("Retry-After", String(Math.max(1, retryAfterSeconds)));
    sendHtml(ctx, 429, <MessagePage title={t.busyTitle} message={t.busyText} language={language} />);
  }

  /** The link's page, or the page saying it is closed; undefined when the answer was sent. */
  async function load(ctx: RouteContext, slug: string): Promise<GetPaymentLinkPageResponse | undefined> {
    const page = await deps.clients.order.getPaymentLinkPage({ slug });
    const state = page.link!.state as LinkState;
    if (state !== "open") {
      closedPage(ctx, state);
      return undefined;
    }
    return page;
  }

  async function showPage(ctx: RouteContext) {
    const slug = ctx.params.slug ?? "";
    if (!SLUG.test(slug)) return notFoundPage(ctx, "payment link");
    const page = await load(ctx, slug);
    if (!page) return;
    sendHtml(ctx, 200, <PaymentLinkPage page={page} slug={slug} csrf={doubleSubmitToken(ctx, deps.secure)} language={pageLanguage(ctx)} />);
  }

  async function placeOrder(ctx: RouteContext) {
    const slug = ctx.params.slug ?? "";
    if (!SLUG.test(slug)) return notFoundPage(ctx, "payment link");
    const form = await readForm(ctx);
    const language = pageLanguage(ctx);
    const t = speaking(language).text.payLink;
    if (!doubleSubmitOk(ctx, deps.secure, field(form, "csrf"))) {
      return sendHtml(ctx, 403, <MessagePage title={t.expiredFormTitle} message={t.expiredFormText} language={language} />);
    }
    // The token before any work: requests already under way cannot all pass one check.
    const decision = await deps.orders.take(ctx.ip);
    if (!decision.allowed) return busyPage(ctx, decision.retryAfterSeconds);
    const filled: Filled = { name: field(form, "name"), email: field(form, "email"), phone: field(form, "phone"), method: field(form, "payment_method") };
    try {
      const { detail } = await deps.clients.order.payPaymentLink({
        slug,
        buyer: { name: filled.name, email: filled.email, phone: filled.phone },
        paymentMethod: filled.method,
      });
      // Our own checkout page, same origin whatever PUBLIC_BASE_URL says: it offers the gateway's page.
      ctx.set("Cache-Control", "no-store");
      ctx.redirect(`/checkout/${detail!.order!.id}`);
      ctx.status = 303;
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const closed = linkClosedState(error);
      if (closed) return closedPage(ctx, closed);
      if (error.code === Code.ResourceExhausted) return busyPage(ctx, 60);
      const short = outOfStockLines(error);
      const violation = short ? undefined : error.code === Code.InvalidArgument ? fieldViolations(error)[0] : undefined;
      if (!short && !violation) throw error;
      const page = await load(ctx, slug);
      if (!page) return;
      const problem = violation
        ? { field: violation.field, message: t.invalid[violation.field] ?? `${violation.field}: ${violation.description}` }
        : { field: "items", message: short!.map((line) => t.short(page.items[Number(/\d+/.exec(line.field)?.[0] ?? 0)]?.title ?? "", line.available)).join(" ") };
      sendHtml(
        ctx,
        short ? 409 : 400,
        <PaymentLinkPage page={page} slug={slug} csrf={doubleSubmitToken(ctx, deps.secure)} language={language} filled={{ ...filled, problem }} />,
      );
    }
  }
}
