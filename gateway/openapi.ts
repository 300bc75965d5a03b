// The public API as OpenAPI 3.1: served at GET /v1/openapi.json and rendered at /docs.
// The tests validate every response the gateway gives against these schemas, so the
// document and the behaviour cannot drift apart.

import { UNMATCHED_REASONS } from "../common/bank-mutations.js";
import { ORDER_EVENT_TYPES as EVENT_TYPES, ORDER_STATUSES } from "../common/order-status.js";

const isRefundEvent = (type: string) => type.startsWith("refund.");
/** The events of an order's status (`data.previous_status`) and of its refunds (`data.refund`). */
const ORDER_STATUS_EVENT_TYPES = EVENT_TYPES.filter((type) => !isRefundEvent(type));
const REFUND_EVENT_TYPES = EVENT_TYPES.filter(isRefundEvent);

const uuid = { type: "string", format: "uuid" } as const;
const time = { type: "string", format: "date-time", description: "UTC, ISO 8601 with Z" } as const;
const idr = { type: "integer", minimum: 0, description: "IDR, whole rupiah" } as const;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const success = (data: object) => ({
  type: "object",
  required: ["success", "data"],
  additionalProperties: false,
  properties: { success: { const: true }, data },
});

/** A page of a list: `{items, has_more}`. */
const page = (item: string) => ({
  type: "object",
  required: ["items", "has_more"],
  additionalProperties: false,
  properties: { items: { type: "array", items: ref(item) }, has_more: { type: "boolean" } },
});

const rateHeaders = {
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
  RateLimit: { $ref: "#/components/headers/RateLimit" },
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
};

const errorResponse = (description: string, headers: Record<string, object> = {}) => ({
  description,
  headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" }, ...headers },
  content: { "application/json": { schema: ref("ErrorEnvelope") } },
});

const keyedErrors = {
  "400": { $ref: "#/components/responses/InvalidRequest" },
  "401": { $ref: "#/components/responses/Unauthorized" },
  "403": { $ref: "#/components/responses/PlanRequired" },
  "429": { $ref: "#/components/responses/RateLimited" },
  "500": { $ref: "#/components/responses/InternalError" },
  "503": { $ref: "#/components/responses/ServiceUnavailable" },
};

/** The `Idempotency-Key` header of the POSTs that take one (orders, refunds). */
const idempotencyKeyHeader = (what: string) => ({
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: `1–255 characters, per store. The same key with the same body within 24 h returns the first response again with \`Idempotent-Replayed: true\` (${what}); another body, or a request still in flight, is 409 CONFLICT. A request that fails validation does not use up its key.`,
  schema: { type: "string", minLength: 1, maxLength: 255 },
});

const idempotentReplayed = {
  description: "`true` when this is the stored first response to the same Idempotency-Key.",
  schema: { type: "string", enum: ["true"] },
};

const strictInt = (name: string, minimum: number, maximum: number, fallback: number, description: string) => ({
  name,
  in: "query",
  required: false,
  description: `${description} A whole number; \`1.5\`, \`10abc\`, \`-1\`, an empty value or a repeated parameter is INVALID_REQUEST.`,
  schema: { type: "integer", minimum, maximum, default: fallback },
});

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Store Order API",
    version: "1.0.0",
    summary: "Catalog, payment methods, checkout orders and signed webhooks for one store.",
    description: [
      "Every call is scoped to the store of its API key. Amounts are integers in IDR.",
      "",
      "Every JSON response is `{\"success\":true,\"data\":…}` or `{\"success\":false,\"error\":{\"code\",\"message\",\"details\"?}}`.",
      "Checks run in this order: authentication, plan, rate limit, validation. An unknown path is 404 and a",
      "wrong method 405 (with `Allow`) before any of them.",
      "",
      "Rate limit: a token bucket per store (all its keys together) of `RATE_LIMIT_PER_MINUTE` (default 300)",
      "with that burst, shared by every gateway instance. Failed authentications are limited per client address.",
      "",
      "Webhooks follow the Standard Webhooks specification; see `webhooks` below.",
      "",
      "Refunds (`POST /v1/orders/{order_id}/refunds`): a gateway order is refunded through the payment gateway and the",
      "refund may be `pending` while the gateway cannot be reached; it is retried with the same refund key, so the gateway",
      "refunds once. A bank-transfer order's refund is `manual`: the store records money it already sent back, and it",
      "succeeds at once. `refund.succeeded` / `refund.failed` tell your systems; the order turns `refunded` (with",
      "`order.refunded`) when everything is refunded.",
      "",
      "When the gateway is silent: a pending gateway order with no notification for `PAYMENT_STATUS_CHECK_AFTER` (default",
      "15 min), and every gateway order just before it would expire, is checked with the gateway's status API and the answer",
      "is applied exactly as a notification would be (history cause `gateway status check`). An order that still expires is",
      "also expired at the gateway, so the buyer cannot pay it afterwards.",
    ].join("\n"),
    license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
  },
  servers: [{ url: "/", description: "this server" }],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: "Catalog" },
    { name: "Payments" },
    { name: "Orders" },
    { name: "Reconciliation" },
    { name: "Meta" },
  ],
  paths: {
    "/v1/products": {
      get: {
        operationId: "listProducts",
        tags: ["Catalog"],
        summary: "Published products and bundles of the store, oldest first",
        description:
          "Served from the gateway's page cache: a change to the catalog (a product or bundle created, a price or status changed) shows within a second, and within 5 s even when the change notice is lost. Orders are always priced from the catalog itself, never from this listing.",
        parameters: [
          strictInt("limit", 1, 50, 20, "Page size."),
          strictInt("offset", 0, 1_000_000_000, 0, "Items to skip."),
        ],
        responses: {
          "200": {
            description: "A page of catalog items.",
            headers: rateHeaders,
            content: {
              "application/json": {
                schema: success(page("CatalogItem")),
                example: {
                  success: true,
                  data: {
                    items: [
                      {
                        id: "32d96ce8-805d-4d60-acbc-e53a630e2019",
                        type: "product",
                        title: "Kopi Arabika Gayo 250g",
                        slug: "kopi-arabika-gayo-250g",
                        price: 85000,
                        status: "published",
                      },
                    ],
                    has_more: true,
                  },
                },
              },
            },
          },
          ...keyedErrors,
        },
      },
    },
    "/v1/payment-methods": {
      get: {
        operationId: "listPaymentMethods",
        tags: ["Payments"],
        summary: "Payment methods usable with POST /v1/orders",
        responses: {
          "200": {
            description: "The store's payment methods. `bank_transfer` appears only when the store has a bank account.",
            headers: rateHeaders,
            content: {
              "application/json": {
                schema: success({
                  type: "object",
                  required: ["items"],
                  additionalProperties: false,
                  properties: { items: { type: "array", items: ref("PaymentMethod") } },
                }),
              },
            },
          },
          ...keyedErrors,
        },
      },
    },
    "/v1/orders": {
      get: {
        operationId: "listOrders",
        tags: ["Orders"],
        summary: "Orders of the store, newest first (never calls the payment gateway)",
        parameters: [
          strictInt("limit", 1, 50, 20, "Page size."),
          strictInt("offset", 0, 1_000_000_000, 0, "Orders to skip."),
          { name: "status", in: "query", required: false, schema: { type: "string", enum: ORDER_STATUSES } },
        ],
        responses: {
          "200": {
            description: "A page of orders.",
            headers: rateHeaders,
            content: {
              "application/json": {
                schema: success(page("Order")),
              },
            },
          },
          ...keyedErrors,
        },
      },
      post: {
        operationId: "createOrder",
        tags: ["Orders"],
        summary: "Create a checkout order",
        description: [
          "Prices come from the catalog at creation (`unit_price`), `line_total = unit_price × quantity`,",
          "`subtotal = Σ line_total`. Bank transfer: `amount = subtotal + unique_amount_code` (1–999), reserved to the order",
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
              schema: ref("CreateOrderRequest"),
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
            content: { "application/json": { schema: success(ref("OrderDetail")) } },
          },
          "409": { $ref: "#/components/responses/Conflict" },
          "413": { $ref: "#/components/responses/PayloadTooLarge" },
          "415": { $ref: "#/components/responses/UnsupportedMediaType" },
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
            content: { "application/json": { schema: success(ref("OrderDetail")) } },
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
              schema: ref("RefundOrderRequest"),
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
            content: { "application/json": { schema: success(ref("RefundResult")) } },
          },
          "404": { $ref: "#/components/responses/NotFound" },
          "409": errorResponse(
            "CONFLICT: the order cannot be refunded (it is not paid, or already fully refunded), or the Idempotency-Key was reused with another body or is still in flight.",
          ),
          "413": { $ref: "#/components/responses/PayloadTooLarge" },
          "415": { $ref: "#/components/responses/UnsupportedMediaType" },
          ...keyedErrors,
        },
      },
    },
    "/v1/bank-mutations": {
      post: {
        operationId: "reconcileBankMutations",
        tags: ["Reconciliation"],
        summary: "Match incoming bank transfers to bank-transfer orders by their unique amount",
        description: [
          "For bank-feed aggregators: 1–500 mutations per call, bodies up to 1 MiB. Each mutation `id` is processed once",
          "per store; sent again it is `duplicate` with the first result's `order_id`. A credit is `matched` when its amount",
          "equals the `transfer_amount` of exactly one bank-transfer order that is `pending`, or `expired` at most",
          "`BANK_MATCH_GRACE` (default 7 days) before `occurred_at`, and was created before `occurred_at`; that order",
          "becomes `paid` (history cause `bank_mutation` with the mutation id) and the usual webhooks follow. Otherwise",
          "`unmatched` with a `reason`: `no order with this amount`, `order cancelled`, `order already paid` (a double",
          "payment to refund), `transfer before order`, or `ambiguous` (another order with this transfer amount was paid",
          "within `BANK_MATCH_GRACE` before it, so it may be a second payment of that order; it is never paid",
          "automatically); it waits in the dashboard's review list. Debits are `ignored`.",
          "A unique amount stays reserved while its order is pending and for `BANK_MATCH_GRACE` after it expires or is",
          "cancelled, so a late transfer never pays a newer order. The whole body is validated first: any invalid",
          "mutation is 400 naming it (`mutations[3].amount`) and nothing of the call is applied. Results come in request order.",
        ].join(" "),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: ref("BankMutationsRequest"),
              examples: {
                feed: {
                  summary: "A credit of Rp 170.906 and a bank fee",
                  value: {
                    mutations: [
                      { id: "BCA-20261120-000123", amount: 170_906, type: "credit", occurred_at: "2026-11-20T10:15:00+07:00", description: "TRSF E-BANKING CR 2011/FTSCY/WS95031 BUDI SANTOSO" },
                      { id: "BCA-20261120-000124", amount: 6_500, type: "debit", occurred_at: "2026-11-20T10:20:00+07:00", description: "BIAYA ADM" },
                    ],
                  },
                },
              },
            },
          },
        },
        responses: {
          "200": {
            description: "One result per mutation, in request order.",
            headers: rateHeaders,
            content: { "application/json": { schema: success(ref("BankMutationResults")) } },
          },
          "413": { $ref: "#/components/responses/PayloadTooLarge" },
          "415": { $ref: "#/components/responses/UnsupportedMediaType" },
          ...keyedErrors,
        },
      },
    },
    "/v1/payments/notifications/midtrans": {
      post: {
        operationId: "midtransNotification",
        tags: ["Payments"],
        summary: "Midtrans HTTP notification (no API key; signed by Midtrans)",
        description:
          "Verified with `signature_key = SHA512(order_id + status_code + gross_amount + server_key)` and `gross_amount` equal to the order amount. settlement, capture+accept → paid; deny, failure → failed; cancel → cancelled; expire → expired; pending → nothing. `refund` / `partial_refund` record the refund the gateway reports, once, whether or not it was asked for here (a full one turns the order refunded). Idempotent; a refused transition is acknowledged with `changed: false`. When no notification comes, the gateway's status API is asked instead (see the description at the top) and its answer applied the same way.",
        security: [],
        requestBody: {
          required: true,
          content: { "application/json": { schema: ref("MidtransNotification") } },
        },
        responses: {
          "200": {
            description: "Applied, or acknowledged without a change.",
            headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } },
            content: {
              "application/json": {
                schema: success({
                  type: "object",
                  required: ["order_id", "status", "changed"],
                  additionalProperties: false,
                  properties: { order_id: uuid, status: { type: "string", enum: ORDER_STATUSES }, changed: { type: "boolean" } },
                }),
              },
            },
          },
          "400": { $ref: "#/components/responses/InvalidRequest" },
          "401": errorResponse("Bad notification signature."),
          "404": { $ref: "#/components/responses/NotFound" },
          "413": { $ref: "#/components/responses/PayloadTooLarge" },
          "415": { $ref: "#/components/responses/UnsupportedMediaType" },
          "503": { $ref: "#/components/responses/ServiceUnavailable" },
        },
      },
    },
    "/v1/openapi.json": {
      get: {
        operationId: "openApi",
        tags: ["Meta"],
        summary: "This document",
        security: [],
        responses: { "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
  },
  webhooks: Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace(/\W/g, "_")}`,
          summary: `${type} event`,
          description:
            "Standard Webhooks: headers `webhook-id` (event id, the same on every retry), `webhook-timestamp` (Unix seconds of the attempt), `webhook-signature` (`v1,<base64 HMAC-SHA256(secret, \"{id}.{timestamp}.{body}\")>`, space-separated during a secret rotation). Any 2xx within 15 s is success; otherwise retried on WEBHOOK_RETRY_SCHEDULE. Delivery is at least once, unordered: dedupe on `webhook-id`, order by `data.order.updated_at`.",
          security: [],
          parameters: [
            { name: "webhook-id", in: "header", required: true, schema: uuid },
            { name: "webhook-timestamp", in: "header", required: true, schema: { type: "string", pattern: "^[0-9]+$" } },
            { name: "webhook-signature", in: "header", required: true, schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" } },
          ],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { allOf: [ref(isRefundEvent(type) ? "RefundEvent" : "OrderEvent"), { properties: { type: { const: type } } }] },
              },
            },
          },
          responses: { "2XX": { description: "Received." }, "410": { description: "Gone: the endpoint is disabled." } },
        },
      },
    ]),
  ),
  components: {
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description: "`Authorization: Bearer sk_live_…` (the scheme word is case-insensitive). Keys are scoped to one store.",
      },
    },
    headers: {
      "X-Request-Id": {
        description: "The request's id: the incoming one when it is 1–128 safe characters, else a new UUID.",
        schema: { type: "string" },
      },
      RateLimit: {
        description: "draft-ietf-httpapi-ratelimit-headers-11: requests left and seconds until the bucket is full.",
        schema: { type: "string", pattern: "^\"store\";r=[0-9]+;t=[0-9]+$" },
      },
      "RateLimit-Policy": { description: "The store's quota per 60 s window.", schema: { type: "string", pattern: "^\"store\";q=[0-9]+;w=60$" } },
      "Retry-After": { description: "Seconds to wait.", schema: { type: "string", pattern: "^[0-9]+$" } },
    },
    responses: {
      InvalidRequest: errorResponse("INVALID_REQUEST: malformed or invalid input; `details` names the field."),
      PayloadTooLarge: errorResponse("INVALID_REQUEST: body over 64 KiB."),
      UnsupportedMediaType: errorResponse("INVALID_REQUEST: body is not application/json."),
      Unauthorized: errorResponse("UNAUTHORIZED: header missing or malformed, key unknown or revoked.", {
        "WWW-Authenticate": { schema: { type: "string", pattern: "^Bearer" } },
      }),
      PlanRequired: errorResponse("PLAN_REQUIRED: the store is not on the Growth or Scale plan."),
      NotFound: errorResponse("NOT_FOUND: no such route, or no such order in this store."),
      Conflict: errorResponse("CONFLICT: Idempotency-Key reused with another body or still in flight, or no unique amount code left."),
      RateLimited: errorResponse("RATE_LIMITED: over the store's rate, or too many failed authentications.", {
        "Retry-After": { $ref: "#/components/headers/Retry-After" },
      }),
      InternalError: errorResponse("INTERNAL_ERROR: a bug; the message is generic, details are in the log."),
      ServiceUnavailable: errorResponse("SERVICE_UNAVAILABLE: an internal service or the database is unreachable.", {
        "Retry-After": { $ref: "#/components/headers/Retry-After" },
      }),
    },
    schemas: {
      ErrorEnvelope: {
        type: "object",
        required: ["success", "error"],
        additionalProperties: false,
        properties: {
          success: { const: false },
          error: {
            type: "object",
            required: ["code", "message"],
            additionalProperties: false,
            properties: {
              code: {
                type: "string",
                enum: [
                  "INVALID_REQUEST",
                  "UNAUTHORIZED",
                  "PLAN_REQUIRED",
                  "NOT_FOUND",
                  "METHOD_NOT_ALLOWED",
                  "CONFLICT",
                  "RATE_LIMITED",
                  "INTERNAL_ERROR",
                  "SERVICE_UNAVAILABLE",
                ],
              },
              message: { type: "string" },
              details: {
                type: "array",
                items: {
                  type: "object",
                  required: ["field", "message"],
                  additionalProperties: false,
                  properties: { field: { type: "string" }, message: { type: "string" } },
                },
              },
            },
          },
        },
      },
      CatalogItem: {
        type: "object",
        required: ["id", "type", "title", "slug", "price", "status"],
        additionalProperties: false,
        properties: {
          id: { ...uuid, description: "Use as `product_id` or `bundle_id` in an order." },
          type: { type: "string", enum: ["product", "bundle"] },
          title: { type: "string" },
          slug: { type: "string" },
          price: idr,
          status: { const: "published" },
        },
      },
      PaymentMethod: {
        type: "object",
        required: ["code", "name", "kind", "provider", "settlement_channel"],
        additionalProperties: false,
        properties: {
          code: {
            type: "string",
            examples: ["bank_transfer", "qris", "gopay", "shopeepay", "bca_va", "bni_va", "bri_va", "permata_va", "credit_card"],
          },
          name: { type: "string" },
          kind: { type: "string", enum: ["bank_transfer", "gateway"] },
          provider: { type: "string", enum: ["manual", "sandbox", "midtrans"] },
          settlement_channel: { type: "string", enum: ["seller_bank", "gateway"] },
        },
      },
      Buyer: {
        type: "object",
        required: ["name", "email", "phone"],
        additionalProperties: false,
        properties: {
          name: { type: "string", minLength: 1, maxLength: 100 },
          email: { type: "string", format: "email" },
          phone: { type: "string", pattern: "^\\+?[0-9]{8,20}$" },
        },
      },
      Redirect: {
        type: "object",
        required: ["success_url", "return_url", "error_url"],
        additionalProperties: false,
        description: "The request's URLs, else the store's, else `checkout_url`.",
        properties: {
          success_url: { type: "string", format: "uri" },
          return_url: { type: "string", format: "uri" },
          error_url: { type: "string", format: "uri" },
        },
      },
      OrderItem: {
        type: "object",
        required: ["type", "title", "quantity", "unit_price", "line_total"],
        additionalProperties: false,
        properties: {
          type: { type: "string", enum: ["product", "bundle"] },
          title: { type: "string" },
          quantity: { type: "integer", minimum: 1, maximum: 1000 },
          unit_price: { ...idr, description: "The catalog price when the order was made." },
          line_total: idr,
          product_id: uuid,
          bundle_id: uuid,
        },
        oneOf: [{ required: ["product_id"] }, { required: ["bundle_id"] }],
      },
      Order: {
        type: "object",
        required: [
          "id",
          "status",
          "payment_reference",
          "amount",
          "subtotal",
          "currency",
          "settlement_channel",
          "payment_provider",
          "payment_method",
          "buyer",
          "items",
          "external_id",
          "expires_at",
          "created_at",
          "updated_at",
          "checkout_url",
          "payment_url",
          "requires_payment",
          "refunded_amount",
          "refunds",
        ],
        additionalProperties: false,
        properties: {
          id: uuid,
          status: { type: "string", enum: ORDER_STATUSES },
          payment_reference: { type: "string", pattern: "^[A-Z0-9-]{8,40}$", description: "Unique; the gateway's order id." },
          amount: { ...idr, description: "What the buyer pays." },
          subtotal: idr,
          currency: { const: "IDR" },
          settlement_channel: { type: "string", enum: ["seller_bank", "gateway", "none"] },
          payment_provider: { type: "string", enum: ["manual", "sandbox", "midtrans", "none"] },
          payment_method: { type: "string" },
          buyer: ref("Buyer"),
          items: { type: "array", minItems: 1, items: ref("OrderItem") },
          external_id: { type: ["string", "null"], maxLength: 64 },
          expires_at: { ...time, description: "created_at + ORDER_PAYMENT_WINDOW" },
          created_at: time,
          updated_at: time,
          checkout_url: { type: "string", format: "uri", description: "PUBLIC_BASE_URL/checkout/{id}" },
          payment_url: { type: "string", format: "uri", description: "The gateway's current page, else checkout_url." },
          requires_payment: { type: "boolean", description: "status == pending and amount > 0" },
          refunded_amount: { ...idr, description: "What the succeeded refunds add up to; the order is `refunded` when it reaches `amount`." },
          refunds: { type: "array", items: ref("Refund"), description: "Every refund of the order, oldest first." },
        },
      },
      Refund: {
        type: "object",
        required: ["id", "amount", "reason", "reference", "status", "failure_message", "method", "created_at"],
        additionalProperties: false,
        properties: {
          id: { ...uuid, description: "Also the refund key sent to the payment gateway, the same on every retry." },
          amount: { type: "integer", minimum: 1, description: "IDR, whole rupiah." },
          reason: { type: "string", description: "As given (1–200 characters); for a refund the gateway reported on its own, what it said." },
          reference: { type: ["string", "null"], description: "The store's own reference, if it gave one." },
          status: {
            type: "string",
            enum: ["pending", "succeeded", "failed"],
            description: "`pending` while the payment gateway has not answered (retried with the same refund key); a `manual` refund is `succeeded` at once.",
          },
          failure_message: { type: ["string", "null"], description: "Why the payment gateway refused it (`failed` only)." },
          method: {
            type: "string",
            enum: ["gateway", "manual"],
            description: "`gateway`: given back through the payment gateway. `manual`: a bank-transfer order's refund, sent back by the store and recorded here.",
          },
          created_at: time,
        },
      },
      RefundOrderRequest: {
        type: "object",
        required: ["reason"],
        additionalProperties: false,
        properties: {
          amount: { type: "integer", minimum: 1, description: "IDR. At most what is left; omitted: everything that is left." },
          reason: { type: "string", minLength: 1, maxLength: 200 },
          reference: { type: "string", maxLength: 100, description: "Your own reference, e.g. the bank transfer that sent a manual refund back." },
        },
      },
      RefundResult: {
        type: "object",
        required: ["refund", "order"],
        additionalProperties: false,
        properties: { refund: ref("Refund"), order: ref("Order") },
      },
      SellerBank: {
        type: "object",
        required: ["bank_name", "bank_code", "account_number", "account_holder", "payment_reference", "unique_amount_code", "transfer_amount"],
        additionalProperties: false,
        properties: {
          bank_name: { type: "string" },
          bank_code: { type: "string" },
          account_number: { type: "string" },
          account_holder: { type: "string" },
          payment_reference: { type: "string" },
          unique_amount_code: { type: "integer", minimum: 1, maximum: 999 },
          transfer_amount: { ...idr, description: "Exactly what to transfer: subtotal + unique_amount_code." },
        },
      },
      Snap: {
        type: "object",
        required: ["token", "client_key", "snap_script_url"],
        additionalProperties: false,
        properties: { token: { type: "string" }, client_key: { type: "string" }, snap_script_url: { type: "string", format: "uri" } },
      },
      Payment: {
        type: "object",
        required: ["kind", "seller_bank", "snap", "provider", "method", "amount", "currency", "checkout_url", "payment_url", "expires_at"],
        additionalProperties: false,
        properties: {
          kind: { type: "string", enum: ["none", "bank_transfer", "gateway"] },
          seller_bank: { oneOf: [ref("SellerBank"), { type: "null" }], description: "Present for bank_transfer, else null." },
          snap: { oneOf: [ref("Snap"), { type: "null" }], description: "A live gateway session, else null." },
          provider: { type: "string" },
          method: { type: "string" },
          amount: idr,
          currency: { const: "IDR" },
          checkout_url: { type: "string", format: "uri" },
          payment_url: { type: "string", format: "uri" },
          expires_at: time,
        },
      },
      OrderDetail: {
        type: "object",
        required: ["order", "payment", "redirect"],
        additionalProperties: false,
        properties: { order: ref("Order"), payment: ref("Payment"), redirect: ref("Redirect") },
      },
      BankMutationsRequest: {
        type: "object",
        additionalProperties: false,
        required: ["mutations"],
        properties: {
          mutations: {
            type: "array",
            minItems: 1,
            maxItems: 500,
            items: {
              type: "object",
              additionalProperties: false,
              required: ["id", "amount", "type", "occurred_at"],
              properties: {
                id: { type: "string", minLength: 1, maxLength: 100, description: "The bank's or aggregator's mutation id, unique per store." },
                amount: { type: "integer", minimum: 1, description: "IDR, a positive integer." },
                type: { type: "string", enum: ["credit", "debit"] },
                occurred_at: { type: "string", format: "date-time", description: "ISO 8601 with an offset." },
                description: { type: "string", maxLength: 500 },
              },
            },
          },
        },
      },
      BankMutationResults: {
        type: "object",
        additionalProperties: false,
        required: ["results"],
        properties: {
          results: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["id", "result", "order_id", "reason"],
              properties: {
                id: { type: "string" },
                result: { type: "string", enum: ["matched", "unmatched", "duplicate", "ignored"] },
                order_id: { type: ["string", "null"], format: "uuid", description: "The order paid (matched), or the first result's order (duplicate)." },
                reason: {
                  type: ["string", "null"],
                  enum: [...Object.values(UNMATCHED_REASONS), null],
                  description: "Why an unmatched credit did not match.",
                },
              },
            },
          },
        },
      },
      CreateOrderRequest: {
        type: "object",
        required: ["items", "buyer"],
        additionalProperties: false,
        properties: {
          items: {
            type: "array",
            minItems: 1,
            maxItems: 50,
            items: {
              type: "object",
              required: ["quantity"],
              additionalProperties: false,
              properties: { product_id: uuid, bundle_id: uuid, quantity: { type: "integer", minimum: 1, maximum: 1000 } },
              oneOf: [{ required: ["product_id"] }, { required: ["bundle_id"] }],
            },
            description: "Exactly one id per item; no id twice.",
          },
          buyer: ref("Buyer"),
          payment_method: { type: "string", description: "A code from GET /v1/payment-methods; may be omitted only when the total is 0." },
          redirect: {
            type: "object",
            additionalProperties: false,
            properties: {
              success_url: { type: "string", format: "uri", pattern: "^https?://" },
              return_url: { type: "string", format: "uri", pattern: "^https?://" },
              error_url: { type: "string", format: "uri", pattern: "^https?://" },
            },
          },
          external_id: { type: "string", minLength: 1, maxLength: 64 },
        },
      },
      MidtransNotification: {
        type: "object",
        required: ["order_id", "status_code", "gross_amount", "signature_key", "transaction_status"],
        properties: {
          order_id: { type: "string" },
          status_code: { type: "string" },
          gross_amount: { type: "string", examples: ["150000.00"] },
          signature_key: { type: "string" },
          transaction_status: { type: "string" },
          fraud_status: { type: "string" },
        },
      },
      WebhookEvent: {
        description: "Any event: an order's (`order.*`, `orderUpdated`) or a refund's (`refund.*`).",
        oneOf: [ref("OrderEvent"), ref("RefundEvent")],
      },
      OrderEvent: {
        type: "object",
        required: ["type", "timestamp", "data"],
        additionalProperties: false,
        properties: {
          type: { type: "string", enum: ORDER_STATUS_EVENT_TYPES },
          timestamp: time,
          data: {
            type: "object",
            required: ["store_id", "order", "previous_status"],
            additionalProperties: false,
            properties: {
              store_id: uuid,
              order: ref("Order"),
              previous_status: { oneOf: [{ type: "string", enum: ORDER_STATUSES }, { type: "null" }] },
            },
          },
        },
      },
      RefundEvent: {
        type: "object",
        description: "`refund.succeeded` or `refund.failed`: every refund settled, whether asked for with the API, the dashboard or `store-admin`, or reported by the gateway.",
        required: ["type", "timestamp", "data"],
        additionalProperties: false,
        properties: {
          type: { type: "string", enum: REFUND_EVENT_TYPES },
          timestamp: time,
          data: {
            type: "object",
            required: ["store_id", "order", "refund"],
            additionalProperties: false,
            properties: { store_id: uuid, order: ref("Order"), refund: ref("Refund") },
          },
        },
      },
    },
  },
} as const;
