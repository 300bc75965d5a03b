// Every JSON shape the public API answers with (docs/api.md, docs/webhooks.md#body, docs/reconciliation.md, docs/refunds.md), defined
// once. The OpenAPI document is generated from these (gateway/openapi.ts), and the
// renderers' return types are these shapes' outputs (public-json.ts, the gateway's
// routes, the order service's event payloads), so a field renamed, added or dropped in
// one place fails to compile until the document says the same. Nothing parses a
// response with them at run time: the type tie and the tests that validate every
// response against the served document keep them honest, at no cost per request.
//
// `.meta({ id })` makes a shape a named component of the document, referenced by
// `$ref`; a shape without one is written inline wherever it is used.
import { z } from "zod";
import { UNMATCHED_REASONS } from "./bank-mutations.js";
import { PAYMENT_REFERENCE } from "./ids.js";
import {
  BUYER_PHONE,
  MAX_BUYER_NAME_LENGTH,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_ITEM_QUANTITY,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_LENGTH,
  MAX_REFUND_REASON_LENGTH,
  MAX_UNIQUE_CODE,
} from "./order-limits.js";
import { ORDER_EVENT_TYPES, ORDER_STATUS_EVENT_TYPES, ORDER_STATUSES, REFUND_EVENT_TYPES, TEST_EVENT_TYPE } from "./order-status.js";
import { BANK_TRANSFER, GATEWAY_METHODS } from "./payment-methods.js";

export const uuidShape = z.guid();
const time = z.iso.datetime().meta({ description: "UTC, ISO 8601 with Z" });
const idr = z.int().min(0).meta({ description: "IDR, whole rupiah" });
const url = z.url();
export const orderStatusShape = z.enum(ORDER_STATUSES);
const itemType = z.enum(["product", "bundle"]);

/** `{"success":true,"data":…}`: every answer that is not an error (docs/api.md#envelope). */
export const successShape = <T extends z.ZodType>(data: T) => z.strictObject({ success: z.literal(true), data });

/** A page of a list: `{items, has_more}`. */
const pageShape = <T extends z.ZodType>(item: T) => z.strictObject({ items: z.array(item), has_more: z.boolean() });

export const ERROR_CODES = [
  "INVALID_REQUEST",
  "UNAUTHORIZED",
  "PLAN_REQUIRED",
  "FORBIDDEN",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "CONFLICT",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * How many fields one error lists at most: enough to fix any honest request by, while a
 * hostile body of thousands of wrong fields does not get an answer larger than itself.
 */
export const MAX_FIELD_ERRORS = 100;

export const fieldErrorShape = z.strictObject({ field: z.string(), message: z.string() });

export const errorEnvelopeShape = z
  .strictObject({
    success: z.literal(false),
    error: z.strictObject({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z
        .array(fieldErrorShape)
        .max(MAX_FIELD_ERRORS)
        .optional()
        .meta({
          description:
            `Every field the request got wrong, in the order the request has them (at most ${MAX_FIELD_ERRORS}); \`message\` names the first. On \`/readyz\`, one entry per failing check.`,
        }),
    }),
  })
  .meta({ id: "ErrorEnvelope" });

export const catalogItemShape = z
  .strictObject({
    id: uuidShape.meta({ description: "Use as `product_id` or `bundle_id` in an order." }),
    type: itemType,
    title: z.string(),
    slug: z.string(),
    price: idr,
    status: z.literal("published"),
  })
  .meta({ id: "CatalogItem" });

export const catalogPageShape = pageShape(catalogItemShape);

export const paymentMethodShape = z
  .strictObject({
    code: z.string().meta({ examples: [BANK_TRANSFER.code, ...GATEWAY_METHODS.map((method) => method.code)] }),
    name: z.string(),
    kind: z.enum(["bank_transfer", "gateway"]),
    provider: z.enum(["manual", "sandbox", "midtrans"]),
    settlement_channel: z.enum(["seller_bank", "gateway"]),
  })
  .meta({ id: "PaymentMethod" });

export const paymentMethodListShape = z.strictObject({ items: z.array(paymentMethodShape) });

/**
 * The buyer as POST /v1/orders takes it and every order shows it. The gateway checks
 * only its shape; the bounds in `.meta()` are the order service's rules (from
 * order-limits.ts), stated here for the document.
 */
export const buyerShape = z
  .strictObject({
    name: z.string().meta({ minLength: 1, maxLength: MAX_BUYER_NAME_LENGTH }),
    email: z.string().meta({ format: "email" }),
    phone: z.string().meta({ pattern: BUYER_PHONE.source }),
  })
  .meta({ id: "Buyer" });

export const redirectShape = z
  .strictObject({ success_url: url, return_url: url, error_url: url })
  .meta({ id: "Redirect", description: "The request's URLs, else the store's, else `checkout_url`." });

export const orderItemShape = z
  .strictObject({
    type: itemType,
    title: z.string(),
    quantity: z.int().min(1).max(MAX_ITEM_QUANTITY),
    unit_price: idr.meta({ description: "The catalog price when the order was made." }),
    line_total: idr,
    product_id: uuidShape.optional(),
    bundle_id: uuidShape.optional(),
  })
  .meta({ id: "OrderItem", oneOf: [{ required: ["product_id"] }, { required: ["bundle_id"] }] });

export const refundShape = z
  .strictObject({
    id: uuidShape.meta({ description: "Also the refund key sent to the payment gateway, the same on every retry." }),
    amount: z.int().min(1).meta({ description: "IDR, whole rupiah." }),
    reason: z.string().meta({
      description: `As given (1–${MAX_REFUND_REASON_LENGTH} characters); for a refund the gateway reported on its own, what it said.`,
    }),
    reference: z.string().nullable().meta({ description: "The store's own reference, if it gave one." }),
    status: z.enum(["pending", "succeeded", "failed"]).meta({
      description: "`pending` while the payment gateway has not answered (retried with the same refund key); a `manual` refund is `succeeded` at once.",
    }),
    failure_message: z.string().nullable().meta({ description: "Why the payment gateway refused it (`failed` only)." }),
    method: z.enum(["gateway", "manual"]).meta({
      description: "`gateway`: given back through the payment gateway. `manual`: a bank-transfer order's refund, sent back by the store and recorded here.",
    }),
    created_at: time,
  })
  .meta({ id: "Refund" });

/** An order's metadata (docs/orders.md#metadata): the client's own keys and values, `{}` when none. */
export const metadataShape = z.record(z.string(), z.string()).meta({
  id: "Metadata",
  maxProperties: MAX_METADATA_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_METADATA_KEY_LENGTH },
  additionalProperties: { type: "string", maxLength: MAX_METADATA_VALUE_LENGTH },
  description: `Up to ${MAX_METADATA_KEYS} keys of 1 to ${MAX_METADATA_KEY_LENGTH} characters, each a string of at most ${MAX_METADATA_VALUE_LENGTH} characters. Never searched.`,
});

export const orderShape = z
  .strictObject({
    id: uuidShape,
    status: orderStatusShape,
    payment_reference: z.string().meta({ pattern: PAYMENT_REFERENCE.source, description: "Unique; the gateway's order id." }),
    amount: idr.meta({ description: "What the buyer pays." }),
    subtotal: idr,
    currency: z.literal("IDR"),
    settlement_channel: z.enum(["seller_bank", "gateway", "none"]),
    payment_provider: z.enum(["manual", "sandbox", "midtrans", "none"]),
    payment_method: z.string(),
    buyer: buyerShape,
    items: z.array(orderItemShape).min(1),
    external_id: z.string().max(MAX_EXTERNAL_ID_LENGTH).nullable(),
    expires_at: time.meta({ description: "created_at + ORDER_PAYMENT_WINDOW" }),
    created_at: time,
    updated_at: time,
    checkout_url: url.meta({ description: "PUBLIC_BASE_URL/checkout/{id}" }),
    payment_url: url.meta({ description: "The gateway's current page, else checkout_url." }),
    requires_payment: z.boolean().meta({ description: "status == pending and amount > 0" }),
    refunded_amount: idr.meta({ description: "What the succeeded refunds add up to; the order is `refunded` when it reaches `amount`." }),
    refunds: z.array(refundShape).meta({ description: "Every refund of the order, oldest first." }),
    metadata: metadataShape,
    livemode: z.boolean().meta({ description: "False for a test order, made with a test key: it moves no money and only test keys see it." }),
    payment_link_id: uuidShape.nullable().meta({ description: "The payment link the order was made through; null when none." }),
  })
  .meta({ id: "Order" });

export const orderPageShape = pageShape(orderShape);

/** A payment link (docs/api.md#payment-links). */
export const paymentLinkShape = z
  .strictObject({
    id: uuidShape,
    url: url.meta({ description: "PUBLIC_BASE_URL/pay/{slug}: the address to send the buyer." }),
    slug: z.string(),
    active: z.boolean().meta({ description: "False once deactivated (for good)." }),
    livemode: z.boolean().meta({ description: "False for a test link, made with a test key: its orders are test orders." }),
    items: z.array(z.strictObject({ product_id: uuidShape.optional(), bundle_id: uuidShape.optional(), quantity: z.int().min(1) })).min(1),
    payment_methods: z.array(z.string()).meta({ description: "The codes a buyer may pick from; empty: every method the store offers." }),
    usage_limit: z.int().min(1).nullable().meta({ description: "How many PAID orders the link takes; null: no limit." }),
    paid_count: z.int().min(0),
    expires_at: time.nullable(),
    created_at: time,
  })
  .meta({ id: "PaymentLink" });

export const paymentLinkListShape = z.strictObject({ items: z.array(paymentLinkShape) });

/**
 * GET /v1/orders: a page, and with updated_since or cursor (a sync, docs/orders.md#syncing)
 * the cursor of the next page too.
 */
export const orderListShape = orderPageShape.extend({
  next_cursor: z.string().optional().meta({
    description:
      "Only with `updated_since` or `cursor`: pass it as `cursor` for the next page, and keep the last one to go on from later. Always given in a sync, also on its last page.",
  }),
});

/** An order on its own: `data` of PATCH /v1/orders/{id}, POST /v1/orders/{id}/cancel and POST /v1/test/orders/{id}/simulate. */
export const orderResultShape = z.strictObject({ order: orderShape }).meta({ id: "OrderResult" });

export const refundResultShape = z.strictObject({ refund: refundShape, order: orderShape }).meta({ id: "RefundResult" });

export const sellerBankShape = z
  .strictObject({
    bank_name: z.string(),
    bank_code: z.string(),
    account_number: z.string(),
    account_holder: z.string(),
    payment_reference: z.string(),
    unique_amount_code: z.int().min(1).max(MAX_UNIQUE_CODE),
    transfer_amount: idr.meta({ description: "Exactly what to transfer: subtotal + unique_amount_code." }),
  })
  .meta({ id: "SellerBank" });

export const snapShape = z.strictObject({ token: z.string(), client_key: z.string(), snap_script_url: url }).meta({ id: "Snap" });

export const paymentShape = z
  .strictObject({
    kind: z.enum(["none", "bank_transfer", "gateway"]),
    seller_bank: sellerBankShape.nullable().meta({ description: "Present for bank_transfer, else null." }),
    snap: snapShape.nullable().meta({ description: "A live gateway session, else null." }),
    provider: z.string(),
    method: z.string(),
    amount: idr,
    currency: z.literal("IDR"),
    checkout_url: url,
    payment_url: url,
    expires_at: time,
  })
  .meta({ id: "Payment" });

export const orderDetailShape = z
  .strictObject({ order: orderShape, payment: paymentShape, redirect: redirectShape })
  .meta({ id: "OrderDetail" });

export const bankMutationResultsShape = z
  .strictObject({
    results: z.array(
      z.strictObject({
        id: z.string(),
        result: z.enum(["matched", "unmatched", "duplicate", "ignored"]),
        order_id: uuidShape.nullable().meta({ description: "The order paid (matched), or the first result's order (duplicate)." }),
        reason: z
          .enum(Object.values(UNMATCHED_REASONS))
          .nullable()
          .meta({ description: "Why an unmatched credit did not match." }),
      }),
    ),
  })
  .meta({ id: "BankMutationResults" });

/** Midtrans's own notification body, passed on byte for byte: the fields the order service reads. */
export const midtransNotificationShape = z
  .looseObject({
    order_id: z.string(),
    status_code: z.string(),
    gross_amount: z.string().meta({ examples: ["150000.00"] }),
    signature_key: z.string(),
    transaction_status: z.string(),
    fraud_status: z.string().optional(),
  })
  .meta({ id: "MidtransNotification" });

export const notificationAckShape = z.strictObject({ order_id: uuidShape, status: orderStatusShape, changed: z.boolean() });

/** An event's mode, its order's: false for a test order's event, which goes to test endpoints only. */
const eventLivemode = z.boolean().meta({ description: "False for a test order's event (made with a test key); it is sent to test endpoints only." });

export const orderEventShape = z
  .strictObject({
    type: z.enum(ORDER_STATUS_EVENT_TYPES),
    timestamp: time,
    data: z.strictObject({ store_id: uuidShape, order: orderShape, previous_status: orderStatusShape.nullable(), livemode: eventLivemode }),
  })
  .meta({ id: "OrderEvent" });

export const refundEventShape = z
  .strictObject({
    type: z.enum(REFUND_EVENT_TYPES),
    timestamp: time,
    data: z.strictObject({ store_id: uuidShape, order: orderShape, refund: refundShape, livemode: eventLivemode }),
  })
  .meta({
    id: "RefundEvent",
    description:
      "`refund.succeeded` or `refund.failed`: every refund settled, whether asked for with the API, the dashboard or `store-admin`, or reported by the gateway.",
  });

export const testEventShape = z
  .strictObject({
    type: z.literal(TEST_EVENT_TYPE),
    timestamp: time,
    data: z.strictObject({
      store_id: uuidShape,
      endpoint_id: uuidShape.meta({ description: "The endpoint it was sent to." }),
      livemode: z.boolean().meta({ description: "The endpoint's mode: false for a test endpoint." }),
    }),
  })
  .meta({
    id: "TestEvent",
    description:
      "`webhook.test`: sent to one endpoint when asked for (the dashboard's Send test event, `store-admin webhook test`), never by an order. No endpoint subscribes to it and the event log does not keep it.",
  });

export const webhookEventShape = z.discriminatedUnion("type", [orderEventShape, refundEventShape, testEventShape]).meta({
  id: "WebhookEvent",
  description: "Any event: an order's (`order.*`, `orderUpdated`), a refund's (`refund.*`) or a test (`webhook.test`).",
});

/**
 * An event as GET /v1/events lists it (docs/webhooks.md#events-api): `data` is exactly
 * the `data` of the webhook body that carried it.
 */
export const eventItemShape = z
  .strictObject({
    id: uuidShape.meta({ description: "The event's id: the `webhook-id` of every delivery of it." }),
    type: z.enum(ORDER_EVENT_TYPES),
    created_at: time,
    data: z.union([orderEventShape.shape.data, refundEventShape.shape.data]).meta({ description: "The `data` of the webhook body, exactly as it was delivered." }),
  })
  .meta({ id: "Event" });

export const eventPageShape = pageShape(eventItemShape);

export type FieldErrorJson = z.output<typeof fieldErrorShape>;
export type ErrorEnvelope = z.output<typeof errorEnvelopeShape>;
export type CatalogPage = z.output<typeof catalogPageShape>;
export type PaymentMethodJson = z.output<typeof paymentMethodShape>;
export type PaymentMethodList = z.output<typeof paymentMethodListShape>;
export type OrderJson = z.output<typeof orderShape>;
export type OrderPage = z.output<typeof orderPageShape>;
export type OrderList = z.output<typeof orderListShape>;
export type OrderResult = z.output<typeof orderResultShape>;
export type RefundJson = z.output<typeof refundShape>;
export type RefundResult = z.output<typeof refundResultShape>;
export type PaymentJson = z.output<typeof paymentShape>;
export type RedirectJson = z.output<typeof redirectShape>;
export type OrderDetailJson = z.output<typeof orderDetailShape>;
export type BankMutationResults = z.output<typeof bankMutationResultsShape>;
export type NotificationAck = z.output<typeof notificationAckShape>;
export type OrderEventPayload = z.output<typeof orderEventShape>;
export type RefundEventPayload = z.output<typeof refundEventShape>;
export type EventItemJson = z.output<typeof eventItemShape>;
export type EventPage = z.output<typeof eventPageShape>;
export type TestEventPayload = z.output<typeof testEventShape>;
