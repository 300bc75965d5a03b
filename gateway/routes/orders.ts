import { createHash } from "node:crypto";
import type { RouterInstance as Router, RouterMiddleware } from "@koa/router";
import type { ServiceClients } from "../clients.js";
import { ok, type GatewayContext } from "../context.js";
import { invalidField } from "../errors.js";
import { parseCreateOrderBody } from "../order-request.js";
import { queryEnum, queryInt } from "../query.js";
import { orderDetailJson, orderJson } from "../../common/public-json.js";
import { isUuid } from "../../common/ids.js";
import { ORDER_STATUSES } from "../../common/order-status.js";
import { textProblem } from "../../common/text.js";

/** JSON with keys sorted, so two bodies that mean the same hash the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** POST /v1/orders, GET /v1/orders, GET /v1/orders/{order_id}. */
export function orderRoutes(router: Router, guards: RouterMiddleware<any, any>[], clients: ServiceClients) {
  router.post("/v1/orders", ...guards, async (ctx: GatewayContext) => {
    const idempotencyKey = ctx.get("idempotency-key");
    if (ctx.headers["idempotency-key"] !== undefined && (idempotencyKey.length < 1 || idempotencyKey.length > 255)) {
      throw invalidField("Idempotency-Key", "must be 1 to 255 characters");
    }
    const keyProblem = textProblem(idempotencyKey);
    if (keyProblem) throw invalidField("Idempotency-Key", keyProblem);
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
      idempotencyKey: idempotencyKey === "" ? undefined : idempotencyKey,
      requestHash: createHash("sha256").update(canonical(body)).digest("hex"),
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

  router.get("/v1/orders/:order_id", ...guards, async (ctx: GatewayContext) => {
    const orderId = (ctx as unknown as { params: { order_id: string } }).params.order_id;
    if (!isUuid(orderId)) throw invalidField("order_id", "must be a UUID");
    const { detail } = await clients.order.getOrder({ storeId: ctx.state.principal!.storeId, orderId });
    ok(ctx, orderDetailJson(detail!));
  });
}
