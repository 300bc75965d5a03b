// The order service's gRPC handlers: argument checks (validation.ts), one domain call,
// the response. The rules are in the domain modules (domain.ts wires them); SQL is in
// db/, which this file never touches.
import type { ConnectRouter } from "@connectrpc/connect";
import { actorFromHeaders, actorMay } from "../../common/actor.js";
import { orderDetailJson } from "../../common/public-json.js";
import { auditEntryMessage, auditQuery, type AuditQuery, type AuditRow } from "../../platform/audit-log.js";
import { requireStoreId, requireUuid } from "../../platform/field-errors.js";
import { requireOrderChange, requirePermission } from "../../platform/rpc-actor.js";
import { BankReconciliationService } from "../../gen/order/v1/bank_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import type { Notifications } from "./notifications.js";
import type { Sales } from "./sales.js";
import type { Orders } from "./orders.js";
import type { PaymentLinks } from "./payment-links.js";
import type { Reconciliation } from "./reconciliation.js";
import type { Refunds } from "./refunds.js";
import {
  requireMutationId,
  validateCountOrders,
  validateChangesPage,
  validateCreateOrder,
  validateListMutations,
  validateListOrders,
  validateOrderKey,
  validateReconcileMutations,
  validateRefundOrder,
} from "./validation.js";

export interface OrderRouteDeps {
  orders: Pick<Orders, "paymentMethods" | "createOrder" | "getOrder" | "listOrders" | "listChanges" | "countOrders" | "markPaid" | "cancel" | "updateMetadata" | "checkout" | "simulate">;
  notifications: Pick<Notifications, "handle">;
  bank: Pick<Reconciliation, "reconcile" | "list" | "countUnreviewed" | "assign" | "dismiss">;
  refunds: Pick<Refunds, "refund">;
  audit: { list(storeId: string, query: AuditQuery): Promise<AuditRow[]> };
  sales: Pick<Sales, "summary">;
  paymentLinks: PaymentLinks;
}

export function createOrderRoutes({ orders, notifications, bank, refunds, audit, sales, paymentLinks }: OrderRouteDeps) {
  return (router: ConnectRouter) => {
    router.service(BankReconciliationService, {
      async reconcileMutations(request, context) {
        const storeId = requireStoreId(request);
        const mutations = validateReconcileMutations(request);
        return { results: await bank.reconcile(storeId, mutations, requirePermission(context, "payments"), !request.testMode) };
      },

      async listMutations(request) {
        const storeId = requireStoreId(request);
        return { mutations: await bank.list(storeId, { ...validateListMutations(request), livemode: !request.testMode }) };
      },

      async countUnreviewed(request) {
        return { count: BigInt(await bank.countUnreviewed(requireStoreId(request), !request.testMode)) };
      },

      async assignMutation(request, context) {
        const storeId = requireStoreId(request);
        const mutationId = requireMutationId(request.mutationId, "mutation_id");
        const key = validateOrderKey(request);
        const actor = requirePermission(context, "payments");
        return { mutation: await bank.assign(storeId, mutationId, key, actor, !request.testMode, request.acceptAmountDifference) };
      },

      async dismissMutation(request, context) {
        const storeId = requireStoreId(request);
        const mutationId = requireMutationId(request.mutationId, "mutation_id");
        return { mutation: await bank.dismiss(storeId, mutationId, requirePermission(context, "payments"), !request.testMode) };
      },
    });
    router.service(OrderService, {
      async listPaymentMethods(request) {
        const methods = await orders.paymentMethods(requireStoreId(request));
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
        const storeId = requireStoreId(request);
        const items = validateCreateOrder(request);
        // The request as it came, with its store id and items as checked: a field a client
        // sends passes through here unnamed (new-order.ts reads it).
        return orders.createOrder({ ...request, storeId, items, buyer: request.buyer! });
      },

      async getOrder(request, context) {
        const storeId = requireStoreId(request);
        const found = await orders.getOrder(storeId, requireUuid(request.orderId, "order_id"), {
          includeHistory: request.includeHistory,
          prepareSession: request.prepareSession,
          testMode: request.testMode,
        });
        if (request.publicJson) return { publicJson: Buffer.from(JSON.stringify(orderDetailJson(found.detail))) };
        // What the order allows, less what the actor may not do (every order action moves money).
        const actor = actorFromHeaders(context.requestHeader);
        return actor && !actorMay(actor, "payments") ? { ...found, allowedActions: [] } : found;
      },

      async listOrders(request) {
        const storeId = requireStoreId(request);
        // updated_since (or a change cursor) pages a sync instead (docs/orders.md#syncing).
        const changes = validateChangesPage(request);
        if (changes) return orders.listChanges(storeId, changes, request.testMode);
        return orders.listOrders(storeId, { ...validateListOrders(request), testMode: request.testMode });
      },

      async countOrders(request) {
        const storeId = requireStoreId(request);
        const { status } = validateCountOrders(request);
        return { count: BigInt(await orders.countOrders(storeId, status, request.testMode)) };
      },

      async getSalesSummary(request) {
        const summary = await sales.summary(requireStoreId(request));
        const total = (value: { count: number; amount: number }) => ({ count: BigInt(value.count), amount: BigInt(value.amount) });
        return {
          paidToday: total(summary.paidToday),
          paidThisMonth: total(summary.paidThisMonth),
          pending: total(summary.pending),
          days: summary.days.map((day) => ({ day: day.day, amount: BigInt(day.amount) })),
        };
      },

      async markOrderPaid(request, context) {
        const orderId = requireUuid(request.orderId, "order_id");
        const storeId = requireStoreId(request);
        return { order: await orders.markPaid(storeId, orderId, requirePermission(context, "payments"), request.testMode) };
      },

      async cancelOrder(request, context) {
        const orderId = requireUuid(request.orderId, "order_id");
        const storeId = requireStoreId(request);
        const options = { onlyPending: request.onlyPending, testMode: request.testMode };
        return { order: await orders.cancel(storeId, orderId, requireOrderChange(context), options) };
      },

      async updateOrderMetadata(request, context) {
        const orderId = requireUuid(request.orderId, "order_id");
        const storeId = requireStoreId(request);
        requireOrderChange(context);
        return { order: await orders.updateMetadata(storeId, orderId, { set: request.set, remove: request.remove }, { testMode: request.testMode }) };
      },

      async refundOrder(request, context) {
        const storeId = requireStoreId(request);
        const orderId = requireUuid(request.orderId, "order_id");
        const input = { storeId, orderId, ...validateRefundOrder(request), requestHash: request.requestHash, testMode: request.testMode, restock: request.restock };
        return refunds.refund(input, requirePermission(context, "payments"));
      },

      async listAudit(request) {
        const storeId = requireStoreId(request);
        return { entries: (await audit.list(storeId, auditQuery(request))).map(auditEntryMessage) };
      },

      async handlePaymentNotification(request) {
        return notifications.handle(request.provider, request.body);
      },

      async getCheckout(request) {
        return orders.checkout(request.key);
      },

      async simulateTestOrder(request, context) {
        const storeId = requireStoreId(request);
        const orderId = requireUuid(request.orderId, "order_id");
        requireOrderChange(context);
        return { order: await orders.simulate(storeId, orderId, request.outcome) };
      },

      async createPaymentLink(request, context) {
        const storeId = requireStoreId(request);
        return { link: await paymentLinks.createLink({ ...request, storeId }, requirePermission(context, "payment_links")) };
      },

      async listPaymentLinks(request) {
        return { links: await paymentLinks.listLinks(requireStoreId(request), request.testMode) };
      },

      async deactivatePaymentLink(request, context) {
        const storeId = requireStoreId(request);
        const linkId = requireUuid(request.linkId, "link_id");
        return { link: await paymentLinks.deactivate(storeId, linkId, request.testMode, requirePermission(context, "payment_links")) };
      },

      // The public page's two calls: the slug is the capability, as an order id is for checkout.
      async getPaymentLinkPage(request) {
        return paymentLinks.page(request.slug);
      },

      async payPaymentLink(request) {
        return { detail: await paymentLinks.pay(request.slug, request.buyer, request.paymentMethod) };
      },
    });
  };
}
