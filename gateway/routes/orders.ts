import type { RouterInstance as Router, RouterMiddleware } from "@koa/router";
import type { ServiceClients } from "../clients.js";
import { ok, type GatewayContext } from "../context.js";
import { invalidField } from "../errors.js";
import { idempotencyKeyOf, requestHash } from "../idempotency-key.js";
import { parseBody, parseCreateOrderBody, refundOrderBody } from "../order-request.js";
import { queryEnum, queryInt } from "../query.js";
import { orderDetailJson, orderJson, refundJson } from "../../common/public-json.js";
import { isUuid } from "../../common/ids.js";
import { ORDER_STATUSES } from "../../common/order-status.js";

/** The `:order_id` of the path, or INVALID_REQUEST naming it. */
function orderIdOf(ctx: GatewayContext): string {
  const orderId = (ctx as unknown as { params: { order_id: string } }).params.order_id;
  if (!isUuid(orderId)) throw invalidField("order_id", "must be a UUID");
  return orderId;
}

/** POST /v1/orders, GET /v1/orders, GET /v1/orders/{order_id}, POST /v1/orders/{order_id}/refunds. */
export function orderRoutes(router: Router, guards: RouterMiddleware<any, any>[], clients: ServiceClients) {
  router.post("/v1/orders", ...guards, async (ctx: GatewayContext) => {
    const idempotencyKey = idempotencyKeyOf(ctx);
    const body = parseCreateOrderBody(ctx.state.body);
    const response = await clients.order.createOrder({
      storeId: ctx.state.principal!.storeId,
      items: body.items.map((item) => ({
        ref:
          item.product_id !== undefined && item.bundle_id === undefined
            ? { case: "productId" as const, value: item.product_id }
            : item.bundle_id !== undefined && item.product_id === undefined
              ? { case: "bundleId" as const, value: item.bundle_id }
              : { case: undefined },
        quantity: item.quantity,
      })),
      buyer: body.buyer,
      paymentMethod: body.payment_method ?? "",
      redirect: body.redirect
        ? {
            successUrl: body.redirect.success_url ?? "",
            returnUrl: body.redirect.return_url ?? "",
            errorUrl: body.redirect.error_url ?? "",
          }
        : undefined,
      externalId: body.external_id,
      idempotencyKey,
      requestHash: requestHash(body),
    });
    if (response.replayed) ctx.set("Idempotent-Replayed", "true");
    ok(ctx, orderDetailJson(response.detail!), 201);
  });

  router.get("/v1/orders", ...guards, async (ctx: GatewayContext) => {
    const limit = queryInt(ctx.query, "limit", { min: 1, max: 50, fallback: 20 });
    const offset = queryInt(ctx.query, "offset", { min: 0, max: 1_000_000_000, fallback: 0 });
    const status = queryEnum(ctx.query, "status", ORDER_STATUSES);
    const page = await clients.order.listOrders({ storeId: ctx.state.principal!.storeId, limit, offset, status: status ?? "" });
    ok(ctx, { items: page.orders.map(orderJson), has_more: page.hasMore });
  });

  // The one read that prepares a payment session (CONTRACT §4, §7): the dashboard and
  // the CLI read orders without it.
  router.get("/v1/orders/:order_id", ...guards, async (ctx: GatewayContext) => {
    const orderId = orderIdOf(ctx);
    const { detail } = await clients.order.getOrder({ storeId: ctx.state.principal!.storeId, orderId, prepareSession: true });
    ok(ctx, orderDetailJson(detail!));
  });

  // CONTRACT §12: 201 whatever the refund's status (a gateway refund may be pending).
  router.post("/v1/orders/:order_id/refunds", ...guards, async (ctx: GatewayContext) => {
    const orderId = orderIdOf(ctx);
    const idempotencyKey = idempotencyKeyOf(ctx);
    const body = parseBody(refundOrderBody, ctx.state.body);
    const response = await clients.order.refundOrder({
      storeId: ctx.state.principal!.storeId,
      orderId,
      amount: body.amount === undefined ? undefined : BigInt(body.amount),
      reason: body.reason,
      reference: body.reference,
      idempotencyKey,
      // The order is part of what the key stands for: the same key and body for another order is a conflict.
      requestHash: requestHash({ refund: { order_id: orderId, ...body } }),
    });
    if (response.replayed) ctx.set("Idempotent-Replayed", "true");
    ok(ctx, { refund: refundJson(response.refund!), order: orderJson(response.order!) }, 201);
  });
}
