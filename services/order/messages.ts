// Rows → protobuf messages (orders, refunds, status history, bank mutations): the one
// place the two vocabularies meet, with the URLs an order's message carries.
import { create } from "@bufbuild/protobuf";
import { BankMutationSchema, type BankMutation } from "../../gen/order/v1/bank_pb.js";
import { OrderDetailSchema, OrderSchema, RefundSchema, StatusChangeSchema, type Order, type OrderDetail, type Refund, type StatusChange } from "../../gen/order/v1/order_pb.js";
import { gatewayFor, type Gateways } from "./test-mode.js";
import type { BankMutationRow } from "./db/bank-mutations.js";
import type { HistoryRow, OrderItemRow, OrderRow } from "./db/orders.js";
import type { RefundRow } from "./db/refunds.js";
import type { SessionRow } from "./db/sessions.js";

export interface RenderContext extends Gateways {
  publicBaseUrl: string;
}

const iso = (date: Date) => date.toISOString();

export function checkoutUrl(ctx: RenderContext, orderId: string): string {
  return `${ctx.publicBaseUrl}/checkout/${orderId}`;
}

/** The page the buyer pays on now: the gateway's live session, else our checkout. */
function paymentUrl(ctx: RenderContext, row: OrderRow, session: SessionRow | undefined): string {
  if (row.payment_kind === "gateway" && row.status === "pending" && session) return session.redirect_url;
  return checkoutUrl(ctx, row.id);
}

export function renderRefund(row: Pick<RefundRow, "id" | "amount" | "reason" | "reference" | "status" | "failure_message" | "method" | "restock" | "created_at">): Refund {
  return create(RefundSchema, {
    id: row.id,
    amount: BigInt(row.amount),
    reason: row.reason,
    reference: row.reference ?? undefined,
    status: row.status,
    failureMessage: row.failure_message ?? undefined,
    method: row.method,
    createdAt: iso(row.created_at),
    restock: row.restock,
  });
}

export function renderOrder(ctx: RenderContext, row: OrderRow, items: OrderItemRow[], session?: SessionRow, refunds: RefundRow[] = []): Order {
  return create(OrderSchema, {
    id: row.id,
    storeId: row.store_id,
    status: row.status,
    paymentReference: row.payment_reference,
    amount: BigInt(row.amount),
    subtotal: BigInt(row.subtotal),
    currency: row.currency,
    settlementChannel: row.settlement_channel,
    paymentProvider: row.payment_provider,
    paymentMethod: row.payment_method,
    buyer: { name: row.buyer_name, email: row.buyer_email, phone: row.buyer_phone },
    items: items.map((item) => ({
      type: item.type,
      title: item.title,
      quantity: item.quantity,
      unitPrice: BigInt(item.unit_price),
      lineTotal: BigInt(item.line_total),
      ...(item.type === "bundle" ? { bundleId: item.item_id } : { productId: item.item_id }),
    })),
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    checkoutUrl: checkoutUrl(ctx, row.id),
    paymentUrl: paymentUrl(ctx, row, session),
    requiresPayment: row.status === "pending" && row.amount > 0,
    externalId: row.external_id ?? undefined,
    refundedAmount: BigInt(row.refunded_amount ?? 0),
    refunds: refunds.map(renderRefund),
    metadata: row.metadata ?? {},
    livemode: row.livemode,
    paymentLinkId: row.payment_link_id ?? undefined,
  });
}

export function renderDetail(ctx: RenderContext, row: OrderRow, items: OrderItemRow[], session?: SessionRow, refunds: RefundRow[] = []): OrderDetail {
  const order = renderOrder(ctx, row, items, session, refunds);
  const liveSession = row.payment_kind === "gateway" && row.status === "pending" ? session : undefined;
  return create(OrderDetailSchema, {
    order,
    payment: {
      kind: row.payment_kind,
      sellerBank:
        row.payment_kind === "bank_transfer"
          ? {
              bankName: row.bank_name ?? "",
              bankCode: row.bank_code ?? "",
              accountNumber: row.account_number ?? "",
              accountHolder: row.account_holder ?? "",
              paymentReference: row.payment_reference,
              uniqueAmountCode: BigInt(row.unique_amount_code ?? 0),
              transferAmount: BigInt(row.amount),
            }
          : undefined,
      snap: liveSession
        ? { token: liveSession.token, clientKey: gatewayFor(ctx, row.livemode).clientKey, snapScriptUrl: gatewayFor(ctx, row.livemode).snapScriptUrl }
        : undefined,
      provider: row.payment_provider,
      method: row.payment_method,
      amount: BigInt(row.amount),
      currency: row.currency,
      checkoutUrl: order.checkoutUrl,
      paymentUrl: order.paymentUrl,
      expiresAt: order.expiresAt,
    },
    redirect: { successUrl: row.success_url, returnUrl: row.return_url, errorUrl: row.error_url },
  });
}

export function renderHistory(rows: HistoryRow[]): StatusChange[] {
  return rows.map((row) =>
    create(StatusChangeSchema, {
      fromStatus: row.from_status ?? "",
      toStatus: row.to_status,
      cause: row.cause,
      at: iso(row.created_at),
      detail: row.detail ?? "",
      amountReceived: BigInt(row.amount_received ?? 0),
    }),
  );
}

export function renderMutation(row: BankMutationRow): BankMutation {
  return create(BankMutationSchema, {
    id: row.mutation_id,
    amount: BigInt(row.amount),
    type: row.type,
    occurredAt: iso(row.occurred_at),
    description: row.description,
    status: row.status,
    reason: row.reason,
    orderId: row.order_id ?? "",
    paymentReference: row.payment_reference ?? "",
    receivedAt: iso(row.received_at),
    reviewedAt: row.reviewed_at ? iso(row.reviewed_at) : "",
    livemode: row.livemode,
  });
}
