import type { RouterInstance as Router, RouterMiddleware } from "@koa/router";
import type { ServiceClients } from "../clients.js";
import { ok, type GatewayContext } from "../context.js";

/** GET /v1/payment-methods. */
export function paymentMethodRoutes(router: Router, guards: RouterMiddleware<any, any>[], clients: ServiceClients) {
  router.get("/v1/payment-methods", ...guards, async (ctx: GatewayContext) => {
    const { methods } = await clients.order.listPaymentMethods({ storeId: ctx.state.principal!.storeId });
    ok(ctx, {
      items: methods.map((m) => ({
        code: m.code,
        name: m.name,
        kind: m.kind,
        provider: m.provider,
        settlement_channel: m.settlementChannel,
      })),
    });
  });
}
