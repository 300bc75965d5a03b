import type { RouterInstance as Router } from "@koa/router";
import type { ServiceClients } from "../clients.js";
import type { KeyedGuards } from "../guards.js";
import { ok, okData, type GatewayContext, type RouteContext } from "../context.js";
import { invalidField } from "../errors.js";
import { idempotencyKeyOf, requestHash } from "../idempotency-key.js";
import {
  cancelOrderBody,
  createOrderFields,
  parseBody,
  parseCreateOrderBody,
  refundOrderBody,
  refundOrderFields,
  updateOrderBody,
  updateOrderFields,
} from "../order-request.js";
import { PAGE_LIMIT, PAGE_OFFSET, queryReader } from "../query.js";
import type { OrderList, RefundResult } from "../../common/api-shapes.js";
import { orderDetailJson, orderJson, refundJson } from "../../common/public-json.js";
import { isUuid } from "../../common/ids.js";
import { parseChangeCursor } from "../../common/change-cursor.js";
import { ORDER_STATUSES } from "../../common/order-status.js";

/** The `:order_id` of the path, or INVALID_REQUEST naming it. */
function orderIdOf(ctx: RouteContext): string {
  const orderId = ctx.params.order_id ?? "";
  if (!isUuid(orderId)) throw invalidField("order_id", "must be a UUID");
  return orderId;
}

/**
 * POST /v1/orders, GET /v1/orders, GET /v1/orders/{order_id}, PATCH /v1/orders/{order_id},
 * POST /v1/orders/{order_id}/cancel, POST /v1/orders/{order_id}/refunds.
 * Each handler bears its operation's operationId (orders.openapi.ts), so one search finds both.
 */
export function orderRoutes(router: Router, guards: KeyedGuards, clients: ServiceClients) {
  router.post("/v1/orders", ...guards.for("POST /v1/orders"), createOrder);
  router.get("/v1/orders", ...guards.for("GET /v1/orders"), listOrders);
  router.get("/v1/orders/:order_id", ...guards.for("GET /v1/orders/{order_id}"), getOrder);
  router.patch("/v1/orders/:order_id", ...guards.for("PATCH /v1/orders/{order_id}"), updateOrder);
  router.post("/v1/orders/:order_id/cancel", ...guards.for("POST /v1/orders/{order_id}/cancel"), cancelOrder);
  router.post("/v1/orders/:order_id/refunds", ...guards.for("POST /v1/orders/{order_id}/refunds"), refundOrder);

  async function createOrder(ctx: GatewayContext) {
    const idempotencyKey = idempotencyKeyOf(ctx);
    const body = parseCreateOrderBody(ctx.state.body);
    const response = await clients.order.createOrder({
      storeId: ctx.state.principal!.storeId,
      testMode: !ctx.state.principal!.livemode,
      ...createOrderFields(body),
      idempotencyKey,
      requestHash: requestHash(body),
    });
    if (response.replayed) ctx.set("Idempotent-Replayed", "true");
    ok(ctx, orderDetailJson(response.detail!), 201);
  }

  async function listOrders(ctx: GatewayContext) {
    const query = queryReader(ctx.query);
    const limit = query.int("limit", PAGE_LIMIT);
    const offset = query.int("offset", PAGE_OFFSET);
    const status = query.oneOf("status", ORDER_STATUSES);
    const startingAfter = query.uuid("starting_after");
    // A sync (docs/orders.md#syncing): the order service checks both and names them.
    const updatedSince = query.text("updated_since");
    const cursor = query.text("cursor");
    query.check();
    if (cursor !== undefined && !parseChangeCursor(cursor)) throw invalidField("cursor", "is not a cursor this service gave");
    const principal = ctx.state.principal!;
    const page = await clients.order.listOrders({
      storeId: principal.storeId,
      limit,
      offset,
      status: status ?? "",
      startingAfter: startingAfter ?? "",
      updatedSince: updatedSince ?? "",
      // Only a sync takes a cursor here: the order service's other cursor is not a query parameter.
      cursor: cursor ?? "",
      testMode: !principal.livemode,
    });
    const sync = updatedSince !== undefined || cursor !== undefined;
    ok(ctx, { items: page.orders.map(orderJson), has_more: page.hasMore, ...(sync ? { next_cursor: page.nextCursor } : {}) } satisfies OrderList);
  }

  // The one read that prepares a payment session (docs/api.md, docs/payments.md): the
  // dashboard and the CLI read orders without it.
  async function getOrder(ctx: RouteContext) {
    const orderId = orderIdOf(ctx);
    const answer = await clients.order.getOrder({
      storeId: ctx.state.principal!.storeId,
      testMode: !ctx.state.principal!.livemode,
      orderId,
      prepareSession: true,
      publicJson: true,
    });
    // An order service of the release before ignores public_json and sends the detail.
    if (answer.publicJson.length > 0) okData(ctx, answer.publicJson);
    else ok(ctx, orderDetailJson(answer.detail!));
  }

  // Metadata only (docs/orders.md#metadata); no Idempotency-Key: the same PATCH twice leaves the same metadata.
  async function updateOrder(ctx: RouteContext) {
    const orderId = orderIdOf(ctx);
    const body = parseBody(updateOrderBody, ctx.state.body);
    const principal = ctx.state.principal!;
    const response = await clients.order.updateOrderMetadata({ storeId: principal.storeId, orderId, testMode: !principal.livemode, ...updateOrderFields(body) });
    ok(ctx, { order: orderJson(response.order!) });
  }

  // Only a pending order: one cancelled already is a CONFLICT too (docs/api.md#cancelling-an-order).
  async function cancelOrder(ctx: RouteContext) {
    const orderId = orderIdOf(ctx);
    if (ctx.state.body !== undefined) parseBody(cancelOrderBody, ctx.state.body);
    const principal = ctx.state.principal!;
    const response = await clients.order.cancelOrder({ storeId: principal.storeId, orderId, onlyPending: true, testMode: !principal.livemode });
    ok(ctx, { order: orderJson(response.order!) });
  }

  // 201 whatever the refund's status: a gateway refund may be pending (docs/refunds.md).
  async function refundOrder(ctx: RouteContext) {
    const orderId = orderIdOf(ctx);
    const idempotencyKey = idempotencyKeyOf(ctx);
    const body = parseBody(refundOrderBody, ctx.state.body);
    const response = await clients.order.refundOrder({
      storeId: ctx.state.principal!.storeId,
      testMode: !ctx.state.principal!.livemode,
      orderId,
      ...refundOrderFields(body),
      idempotencyKey,
      // The order is part of what the key stands for: the same key and body for another order is a conflict.
      requestHash: requestHash({ refund: { order_id: orderId, ...body } }),
    });
    if (response.replayed) ctx.set("Idempotent-Replayed", "true");
    ok(ctx, { refund: refundJson(response.refund!), order: orderJson(response.order!) } satisfies RefundResult, 201);
  }
}
