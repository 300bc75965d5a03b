import type { RouterInstance as Router } from "@koa/router";
import type { Config } from "../../platform/config.js";
import type { Logger } from "../../platform/logger.js";
import type { ServiceClients } from "../clients.js";
import type { GatewayContext } from "../context.js";
import { checkoutRoutes } from "./checkout.js";
import { sandboxRoutes } from "./sandbox.js";

export interface PageDeps {
  clients: ServiceClients;
  logger: Logger;
  /** PAYMENT_GATEWAY: the sandbox pages are served only for "sandbox". */
  paymentGateway?: Config["PAYMENT_GATEWAY"];
  midtransServerKey: string;
  /** This gateway's own loopback origin, once it listens (the sandbox posts to it). */
  selfUrl?: () => string | undefined;
}

/**
 * The hosted pages (docs/payments.md#sandbox-pages): outside /v1, no API key, HTML. The sandbox's
 * payment pages, which pay an order by a button, exist only in sandbox mode: with real
 * Midtrans every /sandbox/… path falls through to the JSON 404.
 */
export function pageRoutes(router: Router, deps: PageDeps) {
  checkoutRoutes(router, deps);
  if (deps.paymentGateway !== "sandbox") return;
  sandboxRoutes(router, {
    clients: deps.clients,
    logger: deps.logger,
    midtransServerKey: deps.midtransServerKey,
    // Before startGateway knows its address (an app served some other way), the
    // socket the request came in on is this very server.
    selfUrl: (ctx: GatewayContext) => deps.selfUrl?.() ?? `http://127.0.0.1:${ctx.req.socket.localPort}`,
  });
}
