// The orders and refunds of the OpenAPI document, beside their routes (orders.ts). The
// request bodies are the zod schemas the routes validate with (order-request.ts).
import { orderDetailShape, orderPageShape, orderStatusShape, refundResultShape } from "../../common/api-shapes.js";
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_UNIQUE_CODE } from "../../common/order-limits.js";
import { keyedErrorResponse, keyedErrors, rateHeaders, request, schemaOf, strictInt, success, uuid, type PathItems } from "../openapi-parts.js";
import { createOrderBody, refundOrderBody } from "../order-request.js";
import { PAGE_LIMIT, PAGE_OFFSET } from "../query.js";

/** The `Idempotency-Key` header of the POSTs that take one (orders, refunds). */
const idempotencyKeyHeader = (what: string) => ({
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: `1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters, per store. The same key with the same body within 24 h returns the first response again with \`Idempotent-Replayed: true\` (${what}); another body, or a request still in flight, is 409 CONFLICT. A request that fails validation does not use up its key.`,
  schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
});

const idempotentReplayed = {
  description: "`true` when this is the stored first response to the same Idempotency-Key.",
  schema: { type: "string", enum: ["true"] },
};

export function orderPaths(): PathItems {
  return {
    "/v1/orders": {
      get: {
        operationId: "listOrders",
        tags: ["Orders"],
        summary: "Orders of the store, newest first (never calls the payment gateway)",
        parameters: [
          strictInt("limit", PAGE_LIMIT, "Page size."),
          strictInt("offset", PAGE_OFFSET, "Orders to skip. Its cost grows with it: to walk many pages, use `starting_after`."),
          { name: "status", in: "query", required: false, schema: schemaOf(orderStatusShape) },
          {
            name: "starting_after",
            in: "query",
            required: false,
            description:
              "An order id, usually the last `items[].id` of the previous page: the page starts with the next older order. Every page costs the same however deep the walk. Not with a non-zero `offset`; an id that is not one of the store's orders is 404 NOT_FOUND.",
            schema: { type: "string", format: "uuid" },
          },
        ],
        responses: {
          "200": {
            description: "A page of orders.",
            headers: rateHeaders,
            content: {
              "application/json": {
                schema: success(orderPageShape),
              },
            },
          },
          "404": { $ref: "#/components/responses/NotFound" },
          ...keyedErrors,
        },
      },
      post: {
        operationId: "createOrder",
        tags: ["Orders"],
        summary: "Create a checkout order",
        description: [
          "Prices come from the catalog at creation (`unit_price`), `line_total = unit_price × quantity`,",
          `\`subtotal = Σ line_total\`. Bank transfer: \`amount = subtotal + unique_amount_code\` (1–${MAX_UNIQUE_CODE}), reserved to the order`,
          "while it is pending and for BANK_MATCH_GRACE (7 days) after it expires or is cancelled (409 CONFLICT when all codes for an amount are taken).",
          "Gateway: `amount = subtotal`, the payment session is prepared now; if the gateway fails the order is",
          "still created with `snap: null`. Total 0: paid at once, `payment.kind = \"none\"`.",
          "Every referenced item must be published and belong to the key's store. Bodies over 64 KiB are 413,",
          "bodies that are not `application/json` 415. Unknown fields are rejected.",
        ].join(" "),
        parameters: [idempotencyKeyHeader("one order per key")],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: request(createOrderBody),
              examples: {
                bankTransfer: {
                  summary: "Two products and a bundle, paid by bank transfer",
                  value: {
                    items: [
                      { product_id: "32d96ce8-805d-4d60-acbc-e53a630e2019", quantity: 2 },
                      { bundle_id: "ff6f5be0-b61b-4400-a26c-a3f5f4c39863", quantity: 1 },
                    ],
                    buyer: { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" },
                    payment_method: "bank_transfer",
                    redirect: { success_url: "https://shop.example/thanks" },
                    external_id: "INV-1001",
                  },
                },
                qris: {
                  summary: "One product, paid through the gateway with QRIS",
                  value: {
                    items: [{ product_id: "32d96ce8-805d-4d60-acbc-e53a630e2019", quantity: 1 }],
                    buyer: { name: "Siti Rahma", email: "siti@example.co.id", phone: "081234567890" },
                    payment_method: "qris",
                  },
                },
              },
            },
          },
        },
        responses: {
          "201": {
            description: "The order, its payment and its redirect addresses.",
            headers: { ...rateHeaders, "Idempotent-Replayed": idempotentReplayed },
            content: { "application/json": { schema: success(orderDetailShape) } },
          },
          "409": { $ref: "#/components/responses/Conflict" },
          ...keyedErrors,
        },
      },
    },
    "/v1/orders/{order_id}": {
      get: {
        operationId: "getOrder",
        tags: ["Orders"],
        summary: "One order; prepares or reuses the gateway session of a pending gateway order",
        description:
          "The only read that prepares a payment session: `GET /v1/orders`, the dashboard and `store-admin` never do. The order carries its `refunds` and `refunded_amount` (succeeded refunds only).",
        parameters: [{ name: "order_id", in: "path", required: true, schema: uuid }],
        responses: {
          "200": {
            description:
              "The order. For a pending gateway order the live session is reused, or exactly one new one is prepared; if the gateway is down the answer is still 200 with `snap: null` and `payment_url = checkout_url`.",
            headers: rateHeaders,
            content: { "application/json": { schema: success(orderDetailShape) } },
          },
          "404": { $ref: "#/components/responses/NotFound" },
          ...keyedErrors,
        },
      },
    },
    "/v1/orders/{order_id}/refunds": {
      post: {
        operationId: "refundOrder",
        tags: ["Orders"],
        summary: "Refund a paid order, in part or in full",
        description: [
          "Only a `paid` order (or one already partly refunded) can be refunded; anything else is 409 CONFLICT. `amount`",
          "defaults to what is left: `amount − refunded_amount −` the pending refunds; more than that is 400 naming `amount`.",
          "Concurrent refunds, pending ones included, never add up to more than the order's amount.",
          "A gateway order (`settlement_channel: gateway`) is refunded through the payment gateway (`method: gateway`) with the",
          "refund's `id` as the gateway's refund key: the gateway's answer settles it (`succeeded`, or `failed` with its",
          "`failure_message` when it refuses), and while the gateway cannot be reached the refund stays `pending` and is retried",
          "with the same refund key, so the money moves once. A bank-transfer order's refund is `manual`: it records money the",
          "store has already sent back (optionally with your `reference`) and is `succeeded` at once.",
          "Every refund emits `refund.succeeded` or `refund.failed`; when `refunded_amount` reaches `amount` the order turns",
          "`refunded` with the usual `order.refunded` and `orderUpdated`. The answer is 201 whatever the refund's status.",
          "Unknown fields are rejected.",
        ].join(" "),
        parameters: [{ name: "order_id", in: "path", required: true, schema: uuid }, idempotencyKeyHeader("one refund per key")],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: request(refundOrderBody),
              examples: {
                partial: { summary: "Part of the order", value: { amount: 50_000, reason: "One item was out of stock", reference: "BCA-TRF-20261121-0042" } },
                rest: { summary: "Everything that is left", value: { reason: "Order cancelled by the buyer" } },
              },
            },
          },
        },
        responses: {
          "201": {
            description: "The refund (pending, succeeded or failed) and the order as it is now.",
            headers: { ...rateHeaders, "Idempotent-Replayed": idempotentReplayed },
            content: { "application/json": { schema: success(refundResultShape) } },
          },
          "404": { $ref: "#/components/responses/NotFound" },
          "409": keyedErrorResponse(
            "CONFLICT: the order cannot be refunded (it is not paid, or already fully refunded), or the Idempotency-Key was reused with another body or is still in flight.",
          ),
          ...keyedErrors,
        },
      },
    },
  };
}
