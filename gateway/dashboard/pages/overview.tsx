// Overview (CONTRACT §10): the store, its plan, what waits for payment and what failed
// to reach the merchant's systems in the last 24 h.
import type { RouterInstance as Router } from "@koa/router";
import { planHasApiAccess, planName } from "../../../common/plans.js";
import { sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Shell, storePath } from "../views/layout.js";

const DAY_MS = 24 * 3_600_000;

export function overviewPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  router.get(
    "/dashboard/stores/:storeId/overview",
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const { member, store, csrf } = ctx.state.scope;
      const [pending, review, failed] = await Promise.all([
        clients.order.countOrders({ storeId: store.id, status: "pending" }),
        clients.bank.countUnreviewed({ storeId: store.id }),
        clients.webhook ? clients.webhook.listDeliveries({ storeId: store.id, status: "failed", limit: 500 }) : undefined,
      ]);
      const since = Date.now() - DAY_MS;
      const failedRecently = failed?.deliveries.filter((d) => Date.parse(d.updatedAt || d.createdAt) >= since).length;
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
            <section class="card" aria-labelledby="plan-title">
              <h2 id="plan-title">Plan</h2>
              <p class="stat">{plan}</p>
            </section>
            <section class="card" aria-labelledby="pending-title">
              <h2 id="pending-title">Pending orders</h2>
              <p class="stat">{String(pending.count)}</p>
              <a href={`${storePath(store.id, "orders")}?status=pending`}>Review pending</a>
            </section>
            <section class="card" aria-labelledby="review-title">
              <h2 id="review-title">Transfers to review</h2>
              <p class="stat">{String(review.count)}</p>
              <a href={storePath(store.id, "bank-mutations")}>Review transfers</a>
            </section>
            <section class="card" aria-labelledby="failed-title">
              <h2 id="failed-title">Failed deliveries (24 h)</h2>
              <p class="stat">{failedRecently === undefined ? "—" : failedRecently >= 500 ? "500+" : String(failedRecently)}</p>
              <a href={storePath(store.id, "webhooks")}>Review deliveries</a>
            </section>
          </div>
        </Shell>,
      );
    }),
  );
}
