import type { RouterInstance as Router } from "@koa/router";
import type { PaymentMethodJson, PaymentMethodList } from "../../common/api-shapes.js";
import type { ServiceClients } from "../clients.js";
import type { KeyedGuards } from "../guards.js";
import { ok, type GatewayContext } from "../context.js";

/** GET /v1/payment-methods. */
export function paymentMethodRoutes(router: Router, guards: KeyedGuards, clients: ServiceClients) {
  router.get("/v1/payment-methods", ...guards.for("GET /v1/payment-methods"), listPaymentMethods);

  async function listPaymentMethods(ctx: GatewayContext) {
    const { methods } = await clients.order.listPaymentMethods({ storeId: ctx.state.principal!.storeId });
    ok(ctx, {
      // The order service names these from the shape's lists (services/order/payment-methods.ts).
      items: methods.map((m) => ({
        code: m.code,
        name: m.name,
        kind: m.kind as PaymentMethodJson["kind"],
        provider: m.provider as PaymentMethodJson["provider"],
        settlement_channel: m.settlementChannel as PaymentMethodJson["settlement_channel"],
      })),
    } satisfies PaymentMethodList);
  }
}
