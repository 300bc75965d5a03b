import { fromBinary, toBinary, create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  CreateOrderResponseSchema,
  OrderService,
  type OrderDetail,
} from "../../gen/order/v1/order_pb.js";
import type { Logger } from "../lib/logger.js";
import { verifyMidtransSignature } from "../../common/midtrans.js";
import { parseGrossAmount, parseMidtransNotification, statusFromMidtrans } from "./notifications.js";
import type { OrderDomain } from "./orders.js";
import { renderDetail, renderOrder } from "./render.js";
import { ORDER_STATUSES, type OrderStatus } from "./status-machine.js";
import * as store from "./store.js";
import type { Sql } from "../lib/db.js";
import { isPaymentReference, isUuid } from "../../common/ids.js";
import { textProblem } from "../../common/text.js";
import { fieldError, validateCreateOrder } from "./validation.js";

export interface OrderRouteDeps {
  sql: Sql;
  domain: OrderDomain;
  logger: Logger;
  midtransServerKey: string;
}

function requireUuid(value: string, field: string): string {
  if (!isUuid(value)) throw fieldError(field, "must be a UUID");
  return value.toLowerCase();
}

/** The order service's gRPC handlers: request checks here, rules in orders.ts, SQL in store.ts. */
export function createOrderRoutes({ sql, domain, logger, midtransServerKey }: OrderRouteDeps) {
  async function detailOf(row: store.OrderRow, prepareSession: boolean, knownItems?: store.OrderItemRow[]): Promise<OrderDetail> {
    const session = prepareSession ? await domain.ensureSession(row) : (await store.liveSessionsOf(sql, [row.id])).get(row.id);
    const items = knownItems ?? (await store.itemsOf(sql, [row.id])).get(row.id)!;
    return renderDetail(domain.ctx, row, items, session);
  }

  async function requireOrder(orderId: string, storeId?: string): Promise<store.OrderRow> {
    const row = await domain.readOrder(requireUuid(orderId, "order_id"), storeId);
    if (!row) throw new ConnectError(`order ${orderId} not found`, Code.NotFound);
    return row;
  }

  return (router: ConnectRouter) =>
    router.service(OrderService, {
      async listPaymentMethods(request) {
        const { methods } = await domain.methodsFor(requireUuid(request.storeId, "store_id"));
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
        const key = request.idempotencyKey;
        if (key !== undefined) {
          const claim = await store.claimIdempotencyKey(sql, storeId, key, request.requestHash);
          if (claim.kind === "mismatch") {
            throw new ConnectError("Idempotency-Key was already used with a different request", Code.AlreadyExists);
          }
          if (claim.kind === "done") {
            return { ...fromBinary(CreateOrderResponseSchema, claim.response), replayed: true };
          }
          if (claim.kind === "in_flight") {
            if (!(claim.stale && claim.orderId)) {
              throw new ConnectError("a request with this Idempotency-Key is still in flight", Code.AlreadyExists);
            }
            // The first request made its order and died before answering: answer for it.
            const row = await requireOrder(claim.orderId, storeId);
            const response = create(CreateOrderResponseSchema, { detail: await detailOf(row, true) });
            await store.completeIdempotencyKey(sql, storeId, key, row.id, toBinary(CreateOrderResponseSchema, response));
            return { ...response, replayed: true };
          }
        }
        let created: Awaited<ReturnType<typeof domain.createOrder>>;
        try {
          created = await domain.createOrder({
            storeId,
            items,
            buyer: request.buyer!,
            paymentMethod: request.paymentMethod,
            redirect: request.redirect,
            externalId: request.externalId,
            idempotencyKey: key,
          });
        } catch (error) {
          // Nothing was written: free the key so a corrected retry can use it.
          if (key !== undefined) await store.releaseIdempotencyKey(sql, storeId, key);
          throw error;
        }
        const { row, items: createdItems } = created;
        const response = create(CreateOrderResponseSchema, { detail: await detailOf(row, true, createdItems) });
        if (key !== undefined) {
          await store.completeIdempotencyKey(sql, storeId, key, row.id, toBinary(CreateOrderResponseSchema, response));
        }
        return response;
      },

      async getOrder(request) {
        const row = await requireOrder(request.orderId, requireUuid(request.storeId, "store_id"));
        return { detail: await detailOf(row, true) };
      },

      async listOrders(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        if (request.limit < 1 || request.limit > 50) throw fieldError("limit", "must be an integer from 1 to 50");
        if (request.offset < 0) throw fieldError("offset", "must be 0 or more");
        if (request.status !== "" && !ORDER_STATUSES.includes(request.status as OrderStatus)) {
          throw fieldError("status", `must be one of ${ORDER_STATUSES.join(", ")}`);
        }
        // Reads never show a pending order past its expiry.
        while ((await domain.expireDue(100, storeId)) === 100);
        const page = await store.listOrders(sql, storeId, request.limit, request.offset, (request.status || undefined) as OrderStatus | undefined);
        const ids = page.rows.map((row) => row.id);
        const [items, sessions] = await Promise.all([store.itemsOf(sql, ids), store.liveSessionsOf(sql, ids)]);
        return {
          orders: page.rows.map((row) => renderOrder(domain.ctx, row, items.get(row.id)!, sessions.get(row.id))),
          hasMore: page.hasMore,
        };
      },

      async markOrderPaid(request) {
        const { row } = await domain.changeStatus(
          requireUuid(request.orderId, "order_id"),
          "paid",
          "marked paid by the seller",
          requireUuid(request.storeId, "store_id"),
        );
        return { order: (await detailOf(row, false)).order };
      },

      async cancelOrder(request) {
        const { row } = await domain.changeStatus(
          requireUuid(request.orderId, "order_id"),
          "cancelled",
          "cancelled by the seller",
          requireUuid(request.storeId, "store_id"),
        );
        return { order: (await detailOf(row, false)).order };
      },

      async handlePaymentNotification(request) {
        if (request.provider !== "midtrans") throw new ConnectError(`unknown provider ${request.provider}`, Code.InvalidArgument);
        const notification = parseMidtransNotification(request.body);
        if (!notification) throw new ConnectError("not a Midtrans notification", Code.InvalidArgument);
        if (!verifyMidtransSignature(notification, midtransServerKey)) {
          throw new ConnectError("bad notification signature", Code.Unauthenticated);
        }
        // Signed, so the sender holds our server key; its other text still has to be
        // text. An order_id that cannot be a reference is simply not one of ours.
        for (const field of ["status_code", "gross_amount", "transaction_status", "fraud_status"] as const) {
          const problem = notification[field] === undefined ? undefined : textProblem(notification[field]!);
          if (problem) throw fieldError(field, problem);
        }
        const row = isPaymentReference(notification.order_id) ? await store.findOrderByReference(sql, notification.order_id) : undefined;
        if (!row || row.payment_kind !== "gateway") {
          throw new ConnectError("no gateway order has this order_id", Code.NotFound);
        }
        if (parseGrossAmount(notification.gross_amount) !== row.amount) {
          logger.warn({ orderId: row.id }, "notification amount does not match the order");
          throw new ConnectError("gross_amount does not match the order amount", Code.InvalidArgument);
        }
        const target = statusFromMidtrans(notification);
        if (!target) return { orderId: row.id, status: row.status, changed: false };
        try {
          const result = await domain.changeStatus(row.id, target, `midtrans ${notification.transaction_status}`);
          return { orderId: row.id, status: result.row.status, changed: result.changed };
        } catch (error) {
          // A refused transition is still a delivered notification: acknowledge it, or
          // the gateway would retry it forever.
          if (error instanceof ConnectError && error.code === Code.FailedPrecondition) {
            const current = await store.findOrder(sql, row.id);
            if (target === "paid" && current?.status === "cancelled") {
              // Money arrived for an order the store cancelled: the status machine keeps
              // it cancelled, so a person must refund it.
              logger.error({ orderId: row.id, paymentReference: row.payment_reference }, "payment received for a cancelled order: refund needed");
            } else {
              logger.warn({ orderId: row.id, target }, "notification refused by the status machine");
            }
            return { orderId: row.id, status: current!.status, changed: false };
          }
          throw error;
        }
      },

      async getCheckout(request) {
        let row: store.OrderRow | undefined;
        if (request.key.case === "orderId") {
          if (!isUuid(request.key.value)) throw new ConnectError("order not found", Code.NotFound);
          row = await domain.readOrder(request.key.value.toLowerCase());
        } else if (request.key.case === "sessionToken") {
          const session = await store.findSessionByToken(sql, request.key.value);
          row = session && (await domain.readOrder(session.order_id));
        }
        if (!row) throw new ConnectError("order not found", Code.NotFound);
        return { detail: await detailOf(row, request.key.case === "orderId"), storeName: row.store_name };
      },
    });
}
