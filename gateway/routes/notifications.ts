import type { RouterInstance as Router } from "@koa/router";
import getRawBody from "raw-body";
import type { ServiceClients } from "../clients.js";
import { MAX_BODY_BYTES } from "../body.js";
import { ok, type GatewayContext } from "../context.js";
import { ApiError, invalidRequest } from "../errors.js";

/**
 * POST /v1/payments/notifications/midtrans: no API key; the order service verifies the
 * notification's own signature. The body goes on byte for byte.
 */
export function notificationRoutes(router: Router, clients: ServiceClients) {
  router.post("/v1/payments/notifications/midtrans", async (ctx: GatewayContext) => {
    if (Number(ctx.get("content-length") || "0") > MAX_BODY_BYTES) {
      throw invalidRequest("request body is larger than 64 KiB", [], 413);
    }
    if (!ctx.is("application/json")) throw new ApiError(415, "INVALID_REQUEST", "request body must be application/json");
    const body = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES });
    const result = await clients.order.handlePaymentNotification({ provider: "midtrans", body });
    ok(ctx, { order_id: result.orderId, status: result.status, changed: result.changed });
  });
}
