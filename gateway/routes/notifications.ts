import type { RouterInstance as Router } from "@koa/router";
import type { NotificationAck } from "../../common/api-shapes.js";
import type { ServiceClients } from "../clients.js";
import { readRawJsonBody } from "../body.js";
import { ok, type GatewayContext } from "../context.js";
import { ApiError } from "../errors.js";

/**
 * POST /v1/payments/notifications/midtrans: no API key; the order service verifies the
 * notification's own signature. The body goes on byte for byte.
 */
export function notificationRoutes(router: Router, clients: ServiceClients) {
  router.post("/v1/payments/notifications/midtrans", midtransNotification);

  async function midtransNotification(ctx: GatewayContext) {
    const body = await readRawJsonBody(ctx);
    // No body is no JSON: 415, as this route has always answered it.
    if (body === undefined) throw new ApiError(415, "INVALID_REQUEST", "request body must be application/json");
    const result = await clients.order.handlePaymentNotification({ provider: "midtrans", body });
    ok(ctx, { order_id: result.orderId, status: result.status as NotificationAck["status"], changed: result.changed } satisfies NotificationAck);
  }
}
