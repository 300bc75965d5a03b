import type { RouterInstance as Router } from "@koa/router";
import type { Config } from "../../platform/config.js";
import type { Logger } from "../../platform/logger.js";
import type { ServiceClients } from "../clients.js";
import type { GatewayContext } from "../context.js";
import { checkoutRoutes } from "./checkout.js";
import { sandboxRoutes } from "./sandbox.js";
import { paymentLinkPageRoutes } from "./payment-link.js";
import type { PerAddressLimit } from "../per-address.js";

export interface PageDeps {
  clients: ServiceClients;
  logger: Logger;
  /** PAYMENT_GATEWAY: with "midtrans" the sandbox pages serve test orders only (the order service decides). */
  paymentGateway?: Config["PAYMENT_GATEWAY"];
  midtransServerKey: string;
  /** This gateway's own loopback origin, once it listens (the sandbox posts to it). */
  selfUrl?: () => string | undefined;
  /** PUBLIC_BASE_URL is https: the payment link page's form cookie is Secure. */
  secure: boolean;
  /** Orders through payment link pages, per client address (PAYMENT_LINK_ORDERS_PER_MINUTE). */
  paymentLinkOrders: PerAddressLimit;
}

/**
 * The hosted pages (docs/payments.md#sandbox-pages): outside /v1, no API key, HTML. The sandbox's
 * payment pages pay an order by a button. Test orders always pay there
 * (docs/payments.md#test-orders), so they are served whatever PAYMENT_GATEWAY says; with
 * real Midtrans the order service opens them for test orders only, so a live order's
 * Snap token (every buyer has one) pays nothing there.
 */
export function pageRoutes(router: Router, deps: PageDeps) {
  checkoutRoutes(router, deps);
  paymentLinkPageRoutes(router, { clients: deps.clients, logger: deps.logger, secure: deps.secure, orders: deps.paymentLinkOrders });
  sandboxRoutes(router, {
    clients: deps.clients,
    logger: deps.logger,
    midtransServerKey: deps.midtransServerKey,
    // Before startGateway knows its address (an app served some other way), the
    // socket the request came in on is this very server.
    selfUrl: (ctx: GatewayContext) => deps.selfUrl?.() ?? `http://127.0.0.1:${ctx.req.socket.localPort}`,
  });
}
