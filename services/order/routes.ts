// The order service's gRPC handlers: argument checks (validation.ts), one domain call,
// the response. The rules are in the domain modules (domain.ts wires them); SQL is in
// store.ts, which this file never touches.
import type { ConnectRouter } from "@connectrpc/connect";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import type { Notifications } from "./notifications.js";
import type { Orders } from "./orders.js";
import { requireUuid, validateCountOrders, validateCreateOrder, validateListOrders } from "./validation.js";

export interface OrderRouteDeps {
  orders: Pick<Orders, "paymentMethods" | "createOrder" | "getOrder" | "listOrders" | "countOrders" | "markPaid" | "cancel" | "checkout">;
  notifications: Pick<Notifications, "handle">;
}

export function createOrderRoutes({ orders, notifications }: OrderRouteDeps) {
  return (router: ConnectRouter) =>
    router.service(OrderService, {
      async listPaymentMethods(request) {
        const methods = await orders.paymentMethods(requireUuid(request.storeId, "store_id"));
        return {
          methods: methods.map((m) => ({
            code: m.code,
            name: m.name,
            kind: m.kind,
            provider: m.provider,
            settlementChannel: m.settlement_channel,
          })),
        };
      },

      async createOrder(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const items = validateCreateOrder(request);
        return orders.createOrder({
          storeId,
          items,
          buyer: request.buyer!,
          paymentMethod: request.paymentMethod,
          redirect: request.redirect,
          externalId: request.externalId,
          idempotencyKey: request.idempotencyKey,
          requestHash: request.requestHash,
        });
      },

      async getOrder(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        return orders.getOrder(storeId, requireUuid(request.orderId, "order_id"), { includeHistory: request.includeHistory });
      },

      async listOrders(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        return orders.listOrders(storeId, validateListOrders(request));
      },

      async countOrders(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const { status } = validateCountOrders(request);
        return { count: BigInt(await orders.countOrders(storeId, status)) };
      },

      async markOrderPaid(request) {
        const orderId = requireUuid(request.orderId, "order_id");
        return { order: await orders.markPaid(requireUuid(request.storeId, "store_id"), orderId) };
      },

      async cancelOrder(request) {
        const orderId = requireUuid(request.orderId, "order_id");
        return { order: await orders.cancel(requireUuid(request.storeId, "store_id"), orderId) };
      },

      async handlePaymentNotification(request) {
        return notifications.handle(request.provider, request.body);
      },

      async getCheckout(request) {
        return orders.checkout(request.key);
      },
    });
}
