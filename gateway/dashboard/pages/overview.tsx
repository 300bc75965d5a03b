// Overview (CONTRACT §10): the store, its plan, what waits for payment, and how its
// webhooks are doing: failed attempts in the last 24 h and endpoints failing now.
import type { RouterInstance as Router } from "@koa/router";
import { planHasApiAccess, planName } from "../../../common/plans.js";
import { sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Shell, storePath } from "../views/layout.js";
import { endpointState } from "./webhooks.js";

export function overviewPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  router.get(
    "/dashboard/stores/:storeId/overview",
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const { member, store, csrf } = ctx.state.scope;
      const [pending, review, health, endpoints] = await Promise.all([
        clients.order.countOrders({ storeId: store.id, status: "pending" }),
        clients.bank.countUnreviewed({ storeId: store.id }),
        clients.webhook?.getWebhookHealth({ storeId: store.id }),
        clients.webhook?.listEndpoints({ storeId: store.id }),
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
    }),
  );
}
