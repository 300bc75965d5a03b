// The merchant's developer-settings dashboard (docs/dashboard.md) at /dashboard: server-
// rendered pages over the same gRPC clients as the public API; it never touches a
// service's tables.
import type { RouterInstance as Router } from "@koa/router";
import { signInRoutes, type SignInLimits } from "./sign-in.js";
import { createKit, type DashboardDeps } from "./kit.js";
import { apiKeyPages } from "./pages/api-keys.js";
import { auditLogPages } from "./pages/audit-log.js";
import { bankMutationPages } from "./pages/bank-mutations.js";
import { deliveryPages } from "./pages/deliveries.js";
import { eventPages } from "./pages/events.js";
import { orderPages } from "./pages/orders/routes.js";
import { overviewPages } from "./pages/overview.js";
import { productPages } from "./pages/products/routes.js";
import { paymentLinkPages } from "./pages/payment-links.js";
import { settingsPages } from "./pages/settings.js";
import { teamPages } from "./pages/team.js";
import { webhookPages } from "./pages/webhooks/routes.js";
import { createSessionCookies } from "./session-cookie.js";

export function dashboardRoutes(router: Router, deps: DashboardDeps & { signIn: SignInLimits }) {
  // The Secure flag (and the __Host- prefix) when the public origin is https.
  const sessions = createSessionCookies({ clients: deps.clients, secure: deps.publicBaseUrl.startsWith("https:") });
  const kit = createKit(deps, sessions);
  signInRoutes(router, kit, sessions, deps.signIn);
  overviewPages(router, kit);
  orderPages(router, kit);
  productPages(router, kit);
  paymentLinkPages(router, kit);
  apiKeyPages(router, kit);
  teamPages(router, kit);
  settingsPages(router, kit);
  auditLogPages(router, kit);
  bankMutationPages(router, kit);
  webhookPages(router, kit);
  deliveryPages(router, kit);
  eventPages(router, kit);
}
