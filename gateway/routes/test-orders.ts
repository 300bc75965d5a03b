import { Code, ConnectError } from "@connectrpc/connect";
import type { RouterInstance as Router } from "@koa/router";
import type { ServiceClients } from "../clients.js";
import type { KeyedGuards } from "../guards.js";
import { ok, type RouteContext } from "../context.js";
import { invalidField } from "../errors.js";
import { parseBody, simulateTestOrderBody } from "../order-request.js";
import type { OrderResult } from "../../common/api-shapes.js";
import { orderJson } from "../../common/public-json.js";
import { isUuid } from "../../common/ids.js";

/**
 * POST /v1/test/orders/{order_id}/simulate (docs/payments.md#test-orders): a test key
 * pays, fails or expires its pending test order as the gateway would. The order service
 * refuses a live order as not found, so a live key (whose orders are all live) gets 404.
 */
export function testOrderRoutes(router: Router, guards: KeyedGuards, clients: ServiceClients) {
  router.post("/v1/test/orders/:order_id/simulate", ...guards.for("POST /v1/test/orders/{order_id}/simulate"), simulateTestOrder);

  async function simulateTestOrder(ctx: RouteContext) {
    const orderId = ctx.params.order_id ?? "";
    if (!isUuid(orderId)) throw invalidField("order_id", "must be a UUID");
    const body = parseBody(simulateTestOrderBody, ctx.state.body);
    const principal = ctx.state.principal!;
    // A live key has no test orders: whatever id it names is not found.
    if (principal.livemode) throw new ConnectError(`order ${orderId} not found`, Code.NotFound);
    const { order } = await clients.order.simulateTestOrder({ storeId: principal.storeId, orderId, outcome: body.outcome });
    ok(ctx, { order: orderJson(order!) } satisfies OrderResult);
  }
}
