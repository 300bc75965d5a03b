import type { Order, OrderDetail, Payment, Redirect, Refund } from "../gen/order/v1/order_pb.js";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { ItemStatus, ItemType, type Item } from "../gen/catalog/v1/catalog_pb.js";
import type { CatalogItemJson, ItemStatusName, OrderDetailJson, OrderJson, PaymentJson, RedirectJson, RefundJson } from "./api-shapes.js";

// An order as the public API shows it (docs/api.md#the-order-object). The gateway renders REST responses
// with it and the order service renders webhook event payloads with it, so the two
// can never disagree about what an order looks like. The shapes, and the document's
// schemas of them, are api-shapes.ts's; the casts name values the order service only
// ever writes from those shapes' lists.

export type { OrderJson, RefundJson };

export function orderJson(order: Order): OrderJson {
  return {
    id: order.id,
    status: order.status as OrderJson["status"],
    payment_reference: order.paymentReference,
    amount: Number(order.amount),
    subtotal: Number(order.subtotal),
    currency: order.currency as OrderJson["currency"],
    settlement_channel: order.settlementChannel as OrderJson["settlement_channel"],
    payment_provider: order.paymentProvider as OrderJson["payment_provider"],
    payment_method: order.paymentMethod,
    buyer: { name: order.buyer?.name ?? "", email: order.buyer?.email ?? "", phone: order.buyer?.phone ?? "" },
    items: order.items.map((item) => ({
      type: item.type as OrderJson["items"][number]["type"],
      title: item.title,
      quantity: item.quantity,
      unit_price: Number(item.unitPrice),
      line_total: Number(item.lineTotal),
      ...(item.productId !== undefined ? { product_id: item.productId } : {}),
      ...(item.bundleId !== undefined ? { bundle_id: item.bundleId } : {}),
    })),
    external_id: order.externalId ?? null,
    expires_at: order.expiresAt,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
    checkout_url: order.checkoutUrl,
    payment_url: order.paymentUrl,
    requires_payment: order.requiresPayment,
    // Added with refunds (docs/refunds.md#the-order): last, so the keys before them keep their place
    // in webhook bodies that receivers may already compare byte for byte.
    refunded_amount: Number(order.refundedAmount),
    refunds: order.refunds.map(refundJson),
    // Added with metadata (docs/orders.md#metadata), last for the same reason.
    metadata: { ...order.metadata },
    // Test mode (docs/keys.md#test-mode): after the keys receivers already compare.
    livemode: order.livemode,
    // Payment links (docs/payments.md#payment-links): after the keys receivers already compare.
    payment_link_id: order.paymentLinkId ?? null,
  };
}

/** One refund of an order (docs/refunds.md#the-order), in `order.refunds` and in POST /v1/orders/{id}/refunds. */
export function refundJson(refund: Refund): RefundJson {
  return {
    id: refund.id,
    amount: Number(refund.amount),
    reason: refund.reason,
    reference: refund.reference ?? null,
    status: refund.status as RefundJson["status"],
    failure_message: refund.failureMessage ?? null,
    method: refund.method as RefundJson["method"],
    created_at: refund.createdAt,
    restock: refund.restock,
  };
}

export function paymentJson(payment: Payment): PaymentJson {
  return {
    kind: payment.kind as PaymentJson["kind"],
    seller_bank: payment.sellerBank
      ? {
          bank_name: payment.sellerBank.bankName,
          bank_code: payment.sellerBank.bankCode,
          account_number: payment.sellerBank.accountNumber,
          account_holder: payment.sellerBank.accountHolder,
          payment_reference: payment.sellerBank.paymentReference,
          unique_amount_code: Number(payment.sellerBank.uniqueAmountCode),
          transfer_amount: Number(payment.sellerBank.transferAmount),
        }
      : null,
    snap: payment.snap
      ? { token: payment.snap.token, client_key: payment.snap.clientKey, snap_script_url: payment.snap.snapScriptUrl }
      : null,
    provider: payment.provider,
    method: payment.method,
    amount: Number(payment.amount),
    currency: payment.currency as PaymentJson["currency"],
    checkout_url: payment.checkoutUrl,
    payment_url: payment.paymentUrl,
    expires_at: payment.expiresAt,
  };
}

export function redirectJson(redirect: Redirect | undefined): RedirectJson {
  return {
    success_url: redirect?.successUrl ?? "",
    return_url: redirect?.returnUrl ?? "",
    error_url: redirect?.errorUrl ?? "",
  };
}

export function orderDetailJson(detail: OrderDetail): OrderDetailJson {
  return {
    order: orderJson(detail.order!),
    payment: paymentJson(detail.payment!),
    redirect: redirectJson(detail.redirect),
  };
}

const ITEM_STATUS_NAMES: Partial<Record<ItemStatus, ItemStatusName>> = {
  [ItemStatus.DRAFT]: "draft",
  [ItemStatus.PUBLISHED]: "published",
  [ItemStatus.ARCHIVED]: "archived",
};

/** The name the API, the dashboard and the CLI give a catalog status; undefined for none of them. */
export function itemStatusNameOf(status: ItemStatus): ItemStatusName | undefined {
  return ITEM_STATUS_NAMES[status];
}

/** The catalog's status of a name the API, the dashboard and the CLI take. */
export function itemStatusOf(name: ItemStatusName): ItemStatus {
  return { draft: ItemStatus.DRAFT, published: ItemStatus.PUBLISHED, archived: ItemStatus.ARCHIVED }[name];
}

/**
 * A product or bundle as the public API shows it (docs/api.md#products): GET
 * /v1/products and the answers of GET, POST and PATCH /v1/products/{product_id}.
 */
export function catalogItemJson(item: Item): CatalogItemJson {
  return {
    id: item.id,
    type: item.type === ItemType.BUNDLE ? "bundle" : "product",
    title: item.title,
    slug: item.slug,
    price: Number(item.price),
    status: ITEM_STATUS_NAMES[item.status] ?? "draft",
    stock: item.stock === undefined ? null : Number(item.stock),
    available: item.available === undefined ? null : Number(item.available),
    // A catalog that predates quantities sends only product_ids: one of each.
    items:
      item.bundleItems.length > 0
        ? item.bundleItems.map((line) => ({ product_id: line.productId, quantity: line.quantity || 1 }))
        : item.productIds.map((productId) => ({ product_id: productId, quantity: 1 })),
    // The catalog sets both on every item; created_at stands in only for a catalog of the release before.
    updated_at: timestampDate((item.updatedAt ?? item.createdAt)!).toISOString(),
  };
}
