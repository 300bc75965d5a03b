import Router from "@koa/router";
import Koa from "koa";
import type { CatalogChangeFeed } from "../platform/catalog-changes.js";
import type { Config } from "../platform/config.js";
import type { Sql } from "../platform/db.js";
import type { Logger } from "../platform/logger.js";
import { createAuthenticator } from "./auth.js";
import { createCatalogPageCache } from "./catalog-cache.js";
import type { ServiceClients } from "./clients.js";
import { requestContext, type GatewayContext } from "./context.js";
import { ApiError, notFound } from "./errors.js";
import { clientAddress } from "./client-address.js";
import { perAddress } from "./per-address.js";
import { createGuards } from "./guards.js";
import { traceRequests } from "./request-tracing.js";
import { createMemoryRateLimiter, createPostgresRateLimiter } from "./rate-limit.js";
import { dashboardRoutes } from "./dashboard/index.js";
import { notFoundPage as dashboardNotFound } from "./dashboard/kit.js";
import { pageRoutes } from "./hosted/index.js";
import { bankMutationRoutes } from "./routes/bank-mutations.js";
import { docsRoutes } from "./routes/docs.js";
import { healthRoutes } from "./routes/health.js";
import { notificationRoutes } from "./routes/notifications.js";
import { eventRoutes } from "./routes/events.js";
import { orderRoutes } from "./routes/orders.js";
import { testOrderRoutes } from "./routes/test-orders.js";
import { paymentLinkRoutes } from "./routes/payment-links.js";
import { paymentMethodRoutes } from "./routes/payment-methods.js";
import { productRoutes } from "./routes/products.js";

export interface GatewayDeps {
  sql: Sql;
  clients: ServiceClients;
  logger: Logger;
  ratePerMinute: number;
  authFailuresPerMinute: number;
  /** Orders per client address and minute through payment links' pages (PAYMENT_LINK_ORDERS_PER_MINUTE, default 5). */
  paymentLinkOrdersPerMinute?: number;
  /** Reverse proxies whose X-Forwarded-For names the client (TRUST_PROXY); default none. */
  trustProxy?: readonly string[];
  authCacheMs?: number;
  /** More readiness checks by name (NATS, when it is configured). */
  readinessChecks?: Record<string, () => Promise<void>>;
  /** The public origin (PUBLIC_BASE_URL): dashboard cookies are Secure when it is https. */
  publicBaseUrl: string;
  /**
   * PAYMENT_GATEWAY. The sandbox payment pages exist only when this is "sandbox"
   * (docs/payments.md#sandbox-pages); otherwise, or unset, every /sandbox/… path is a 404.
   */
  paymentGateway?: Config["PAYMENT_GATEWAY"];
  /** Signs the sandbox payment page's notifications (MIDTRANS_SERVER_KEY). */
  midtransServerKey: string;
  /** This gateway's own origin over loopback, once it listens (startGateway sets it). */
  selfUrl?: () => string | undefined;
  /**
   * The catalog's change hints. Given, published catalog pages are cached
   * (gateway/catalog-cache.ts); without them nothing would drop a page, so nothing is.
   */
  catalogChanges?: CatalogChangeFeed;
  /** The cached pages' TTL (default CATALOG_PAGE_TTL_MS). */
  catalogCacheTtlMs?: number;
}

/** The public HTTP surface. Middleware runs top to bottom as written here. */
export function createGatewayApp(deps: GatewayDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // every error is rendered and logged by requestContext

  // Per-address limits (failed API authentications, dashboard sign-ins, reset requests,
  // orders through payment link pages),
  // each in its own bucket of the same size; gateway/per-address.ts takes their tokens.
  const failureLimiter = createMemoryRateLimiter();
  const guards = createGuards({
    authenticator: createAuthenticator(deps.clients, deps.authCacheMs),
    storeLimiter: createPostgresRateLimiter(deps.sql),
    failureLimiter,
    ratePerMinute: deps.ratePerMinute,
    authFailuresPerMinute: deps.authFailuresPerMinute,
  });

  const catalogPages = deps.catalogChanges ? createCatalogPageCache({ ttlMs: deps.catalogCacheTtlMs }) : undefined;
  if (catalogPages) deps.catalogChanges!.subscribe(catalogPages);

  const router = new Router();
  healthRoutes(router, { sql: deps.sql, clients: deps.clients, logger: deps.logger, extraChecks: deps.readinessChecks });
  docsRoutes(router);
  productRoutes(router, guards, deps.clients, catalogPages);
  paymentMethodRoutes(router, guards, deps.clients);
  orderRoutes(router, guards, deps.clients);
  bankMutationRoutes(router, guards, deps.clients);
  eventRoutes(router, guards, deps.clients);
  testOrderRoutes(router, guards, deps.clients);
  paymentLinkRoutes(router, guards, deps.clients);
  notificationRoutes(router, deps.clients);
  pageRoutes(router, {
    clients: deps.clients,
    logger: deps.logger,
    paymentGateway: deps.paymentGateway,
    midtransServerKey: deps.midtransServerKey,
    selfUrl: deps.selfUrl,
    secure: deps.publicBaseUrl.startsWith("https:"),
    paymentLinkOrders: perAddress(failureLimiter, "payment-link-orders", deps.paymentLinkOrdersPerMinute ?? 5),
  });

  dashboardRoutes(router, {
    clients: deps.clients,
    logger: deps.logger,
    publicBaseUrl: deps.publicBaseUrl,
    signIn: { limiter: failureLimiter, perMinute: deps.authFailuresPerMinute },
  });

  // Who the client is, before the log line or a per-address limit reads ctx.ip.
  app.use(clientAddress(deps.trustProxy ?? []));
  // The request's trace span (a no-op unless tracing is on), around everything it does.
  app.use(traceRequests());
  app.use(requestContext(deps.logger));
  app.use(router.routes());
  // Whatever the router did not answer: a wrong method on a known path, or no such path.
  app.use(async (ctx: GatewayContext) => {
    if ((ctx as { routeMatched?: boolean }).routeMatched) return;
    const match = router.match(ctx.path, ctx.method);
    const allowed = [...new Set(match.path.flatMap((layer) => layer.methods))];
    // People reach the dashboard with a browser: they get a page, not the API's JSON.
    if (ctx.path === "/dashboard" || ctx.path.startsWith("/dashboard/")) {
      if (allowed.length > 0) ctx.set("Allow", allowed.join(", "));
      return dashboardNotFound(ctx, allowed.length > 0 ? 405 : 404);
    }
    if (allowed.length > 0) {
      throw new ApiError(405, "METHOD_NOT_ALLOWED", `${ctx.method} is not allowed here`, [], {
        Allow: allowed.join(", "),
      });
    }
    throw notFound(`no route for ${ctx.method} ${ctx.path}`);
  });
  return app;
}
