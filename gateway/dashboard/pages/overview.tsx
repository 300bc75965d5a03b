// Overview (docs/dashboard.md#overview): sales (paid today, this month, awaiting payment, 30 days as a
// chart), the store's plan, what waits for a person, and how its webhooks are doing:
// failed attempts in the last 24 h and endpoints failing now.
import type { RouterInstance as Router } from "@koa/router";
import { planHasApiAccess, planName } from "../../../common/plans.js";
import { sendPage, type DashboardContext, type Kit } from "../kit.js";
import type { SalesDay, SalesTotal } from "../../../gen/order/v1/order_pb.js";
import { Money } from "../../html/components.js";
import { rupiah } from "../../html/format.js";
import { Shell, storePath } from "../views/layout.js";
import { endpointState } from "./webhooks/health.js";

// Made once: toLocaleDateString builds a formatter on every call, and the chart labels
// 32 days per view (it was a tenth of the gateway's CPU on the overview).
const dayLabel = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });

function SalesCard(props: { id: string; title: string; total: SalesTotal | undefined }) {
  const count = Number(props.total?.count ?? 0n);
  return (
    <section class="card" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      <p class="stat">
        <Money amount={props.total?.amount ?? 0n} />
      </p>
      <p class="muted small" style="margin:0">
        {count} {count === 1 ? "order" : "orders"}
      </p>
    </section>
  );
}

/**
 * 30 bars of paid amounts, drawn on the server as SVG (no script), stretching to the
 * card's width so it reads at 360 px; each bar's title gives its day and amount. The
 * first and last day are HTML under it, not SVG text, which would grow with the chart
 * (28 px tall on a desktop); with nothing paid in the 30 days the box says so.
 */
function SalesChart({ days }: { days: SalesDay[] }) {
  const width = 300;
  const height = 110;
  const top = Math.max(1, ...days.map((day) => Number(day.amount)));
  const slot = width / Math.max(1, days.length);
  const label = (day: string) => (day === "" ? "" : dayLabel.format(new Date(`${day}T00:00:00Z`)));
  const total = days.reduce((sum, day) => sum + day.amount, 0n);
  return (
    <figure class="chart">
      {total === 0n && <p class="chart-empty">No sales yet</p>}
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" role="img" aria-label={`Paid each day, ${label(days[0]?.day ?? "")} to ${label(days.at(-1)?.day ?? "")}: ${rupiah(total)} in all`}>
        <line x1="0" y1={height} x2={width} y2={height} stroke="#c4cbd6" stroke-width="1" />
        {days.map((day, i) => {
          const barHeight = Math.round((Number(day.amount) / top) * (height - 4));
          return (
            <rect x={(i * slot + 1).toFixed(1)} y={height - barHeight} width={(slot - 2).toFixed(1)} height={barHeight} fill="#1556d6" rx="1">
              <title>{`${label(day.day)}: ${rupiah(day.amount)}`}</title>
            </rect>
          );
        })}
      </svg>
      <div class="chart-days small muted" aria-hidden="true">
        <span>{label(days[0]?.day ?? "")}</span>
        <span>{label(days.at(-1)?.day ?? "")}</span>
      </div>
      <figcaption class="muted small">
        Highest day {rupiah(BigInt(top === 1 && total === 0n ? 0 : top))}; {rupiah(total)} in 30 days.
      </figcaption>
    </figure>
  );
}

export function overviewPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  router.get("/dashboard/stores/:storeId/overview", storeScope, handle(overviewPage));

  async function overviewPage(ctx: DashboardContext) {
    const { member, store, csrf } = ctx.state.scope;
    // Pending orders are the sales' "awaiting payment" count (orders waiting, not past
    // their expiry): one call less per view.
    const [review, health, endpoints, sales] = await Promise.all([
      clients.bank.countUnreviewed({ storeId: store.id }),
      clients.webhook?.getWebhookHealth({ storeId: store.id }),
      clients.webhook?.listEndpoints({ storeId: store.id }),
      clients.order.getSalesSummary({ storeId: store.id }),
    ]);
    // Attempts, not exhausted deliveries: an endpoint failing every attempt shows at once,
    // not after the ~28 h of retries it takes a delivery to end as failed.
    const failing = endpoints?.endpoints.filter((endpoint) => endpointState(endpoint) === "failing" || endpointState(endpoint) === "disabled by the system").length;
    const plan = planName(store.plan) ?? "starter";
    sendPage(
      ctx,
      <Shell title="Overview" member={member} store={store} section="overview" csrf={csrf}>
        {!planHasApiAccess(plan) && (
          <p class="warning" role="alert">
            The {plan} plan has no API access: requests with this store's keys are refused with 403 PLAN_REQUIRED. Ask for the Growth or Scale plan to use the
            API.
          </p>
        )}
        <div class="grid">
          <SalesCard id="today" title="Paid today" total={sales.paidToday} />
          <SalesCard id="month" title="Paid this month" total={sales.paidThisMonth} />
          <SalesCard id="pending-value" title="Awaiting payment" total={sales.pending} />
        </div>
        <section class="card" aria-labelledby="chart-title">
          <h2 id="chart-title" style="margin-top:0">
            Paid, last 30 days
          </h2>
          <SalesChart days={sales.days} />
        </section>
        <div class="grid">
          <section class="card" aria-labelledby="plan-title">
            <h2 id="plan-title">Plan</h2>
            <p class="stat">{plan}</p>
          </section>
          <section class="card" aria-labelledby="pending-title">
            <h2 id="pending-title">Pending orders</h2>
            <p class="stat">{String(sales.pending?.count ?? 0n)}</p>
            <a href={`${storePath(store.id, "orders")}?status=pending`}>Review pending</a>
          </section>
          <section class="card" aria-labelledby="review-title">
            <h2 id="review-title">Transfers to review</h2>
            <p class="stat">{String(review.count)}</p>
            <a href={storePath(store.id, "bank-mutations")}>Review transfers</a>
          </section>
          <section class="card" aria-labelledby="failed-title">
            <h2 id="failed-title">Failed attempts (24 h)</h2>
            <p class="stat">{health === undefined ? "—" : String(health.failedAttempts24h)}</p>
            <a href={storePath(store.id, "webhooks")}>Review deliveries</a>
          </section>
          <section class="card" aria-labelledby="failing-title">
            <h2 id="failing-title">Endpoints failing</h2>
            <p class="stat">{failing === undefined ? "—" : String(failing)}</p>
            <a href={storePath(store.id, "webhooks")}>See endpoints</a>
          </section>
        </div>
      </Shell>,
    );
  }
}
