// The orders and refunds of the OpenAPI document, beside their routes (orders.ts). The
// request bodies are the zod schemas the routes validate with (order-request.ts).
import { orderDetailShape, orderListShape, orderResultShape, orderStatusShape, refundResultShape } from "../../common/api-shapes.js";
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_UNIQUE_CODE } from "../../common/order-limits.js";
import { keyedErrorResponse, keyedErrors, rateHeaders, request, schemaOf, strictInt, success, uuid, type PathItems } from "../openapi-parts.js";
import { createOrderBody, refundOrderBody, updateOrderBody } from "../order-request.js";
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
        summary: "Orders of the store, newest first, or changed since a time for syncing (never calls the payment gateway)",
        description: [
          "Without `updated_since` or `cursor`: newest first, paged by `offset` or `starting_after`.",
          "With `updated_since` (a sync, docs/orders.md#syncing): the orders changed at or after it, oldest change first,",
          "each once as it is now; the page carries `next_cursor`, passed as `cursor` for the next page. The walk never",
          "skips an order changed while paging, a change still being written included: it comes on a later page. An order",
          "changed again comes again, later: upsert by `id`. `next_cursor` is given on the last page too; keep it to ask",
          "later for what changed since. `status` filters a sync too; `offset`, `starting_after` and `search` do not go with it (400).",
        ].join(" "),
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
          {
            name: "updated_since",
            in: "query",
            required: false,
            description:
              "RFC 3339 with an offset (`2026-11-28T08:00:00Z`): start a sync with the orders changed at or after it, oldest change first. Not with `starting_after` or a non-zero `offset`.",
            schema: { type: "string", format: "date-time" },
          },
          {
            name: "cursor",
            in: "query",
            required: false,
            description:
              "The `next_cursor` of a sync's previous page (opaque): the page goes on from there, whatever `updated_since` says. Anything else, an edited cursor too, is 400 naming `cursor`.",
            schema: { type: "string", pattern: "^[A-Za-z0-9_-]+$" },
          },
        ],
        responses: {
          "200": {
            description: "A page of orders; with `updated_since` or `cursor`, with `next_cursor`.",
            headers: rateHeaders,
            content: {
              "application/json": {
                schema: success(orderListShape),
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
          "Every referenced item must be published and belong to the key's store. An item that tracks stock (a bundle: its",
          "products too) holds the order's units while it is pending; when one line asks for more than is `available`, the",
          "order is not made, nothing is held, and the answer is 409 OUT_OF_STOCK naming each short line. Bodies over 64 KiB are 413,",
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
          "409": keyedErrorResponse(
            "CONFLICT: Idempotency-Key reused with another body or still in flight, or no unique amount code left. OUT_OF_STOCK: a line asks for more units than are available; `details` names each such line (`items[i].quantity`) with the units it could have (`available`). Nothing was held or made.",
            {},
            {
              outOfStock: {
                summary: "The first line asks for 5 units of a product with 3 left",
                value: {
                  success: false,
                  error: {
                    code: "OUT_OF_STOCK",
                    message: "items[0].quantity: only 3 available",
                    details: [{ field: "items[0].quantity", message: "only 3 available", available: 3 }],
                  },
                },
              },
              idempotencyKey: {
                summary: "The Idempotency-Key was used with another body",
                value: { success: false, error: { code: "CONFLICT", message: "Idempotency-Key was already used with a different request" } },
              },
            },
          ),
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
      patch: {
        operationId: "updateOrder",
        tags: ["Orders"],
        summary: "Set or remove metadata keys of an order, in any status",
        description: [
          "Keys given with a string are set, keys given with `null` removed, keys not given kept (docs/orders.md#metadata).",
          "At most 20 keys after the change; a wrong key or value is 400 naming `metadata.<key>`, too many keys 400 naming `metadata`.",
          "A change announces `orderUpdated` (its `previous_status` is the order's status, unchanged); a change that changes",
          "nothing announces nothing. No Idempotency-Key: the same request twice leaves the same metadata. Unknown fields are rejected.",
        ].join(" "),
        parameters: [{ name: "order_id", in: "path", required: true, schema: uuid }],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: request(updateOrderBody),
              examples: { setAndRemove: { summary: "Set one key, remove another", value: { metadata: { erp_id: "SO-991", channel: null } } } },
            },
          },
        },
        responses: {
          "200": {
            description: "The order as it is now.",
            headers: rateHeaders,
            content: { "application/json": { schema: success(orderResultShape) } },
          },
          "404": { $ref: "#/components/responses/NotFound" },
          ...keyedErrors,
        },
      },
    },
    "/v1/orders/{order_id}/cancel": {
      post: {
        operationId: "cancelOrder",
        tags: ["Orders"],
        summary: "Cancel a pending order",
        description: [
          "No body. A `pending` order becomes `cancelled`, with the usual `orderUpdated` and `order.cancelled` events; its bank-transfer",
          "code stays reserved for BANK_MATCH_GRACE, as for any cancelled order. Any other status, one already cancelled",
          "included, is 409 CONFLICT. The audit log names the key.",
        ].join(" "),
        parameters: [{ name: "order_id", in: "path", required: true, schema: uuid }],
        responses: {
          "200": {
            description: "The cancelled order.",
            headers: rateHeaders,
            content: { "application/json": { schema: success(orderResultShape) } },
          },
          "404": { $ref: "#/components/responses/NotFound" },
          "409": keyedErrorResponse("CONFLICT: the order is not pending (paid, expired, failed, refunded or cancelled already)."),
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
          "With `restock: true` the order's sold units go back into stock once the refund succeeds (each unit once, however",
          "many refunds ask); without it stock is left as it is.",
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
                restock: { summary: "Everything, and the goods came back", value: { reason: "Returned unopened", restock: true } },
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
