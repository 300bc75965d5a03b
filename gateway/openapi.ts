// The public API as OpenAPI 3.1: served at GET /v1/openapi.json and rendered at /docs.
// The tests validate every response the gateway gives against these schemas, so the
// document and the behaviour cannot drift apart.
//
// Every body's schema is generated from the zod shape that defines it: request bodies
// from the schemas the gateway validates with (order-request.ts), responses and
// webhook bodies from common/api-shapes.ts, whose outputs are the renderers' types.
// What is written here by hand is the wiring: paths, operations, parameters, headers,
// responses, descriptions and examples.

import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import {
  bankMutationResultsShape,
  catalogPageShape,
  errorEnvelopeShape,
  midtransNotificationShape,
  notificationAckShape,
  orderDetailShape,
  orderEventShape,
  orderPageShape,
  orderStatusShape,
  paymentMethodListShape,
  refundEventShape,
  refundResultShape,
  successShape,
  uuidShape,
  webhookEventShape,
} from "../common/api-shapes.js";
import { MAX_MUTATIONS_PER_CALL } from "../common/bank-mutations.js";
import { missingScopeMessage, ROUTE_SCOPES } from "../common/scopes.js";
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_UNIQUE_CODE } from "../common/order-limits.js";
import { ORDER_EVENT_TYPES, REFUND_EVENT_TYPES } from "../common/order-status.js";
import { bankMutationsBody, createOrderBody, refundOrderBody } from "./order-request.js";
import { PAGE_LIMIT, PAGE_OFFSET } from "./query.js";

type JsonSchema = Record<string, unknown>;

/** components.schemas: every named shape (`.meta({ id })`) a schema below refers to. */
const componentSchemas: Record<string, JsonSchema> = {};

/** Points zod's `#/$defs/Name` at the document's `#/components/schemas/Name`. */
function toComponentRefs<T>(node: T): T {
  if (Array.isArray(node)) return node.map(toComponentRefs) as T;
  if (!node || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" ? value.replace(/^#\/\$defs\//, "#/components/schemas/") : toComponentRefs(value),
    ]),
  ) as T;
}

// A format names its rule (uuid, date-time); the regular expression zod adds beside it is
// zod's own way of checking one, and would only bury the name in the reference.
const dropFormatPatterns: NonNullable<z.core.ToJSONSchemaParams["override"]> = ({ zodSchema, jsonSchema }) => {
  if ("format" in zodSchema._zod.def && jsonSchema.format !== undefined) delete jsonSchema.pattern;
};

/**
 * The JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) of a zod shape; a named shape,
 * and every named shape inside it, is a component referred to by `$ref`. Request bodies
 * are converted as zod's input (what a client may send), the rest as its output (what
 * the API renders). A name that would stand for two different schemas throws, so a
 * shape cannot be defined twice.
 */
function schemaOf(shape: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _dialect, $defs, ...schema } = z.toJSONSchema(shape, { target: "draft-2020-12", io, override: dropFormatPatterns });
  for (const [name, definition] of Object.entries(toComponentRefs(($defs ?? {}) as Record<string, JsonSchema>))) {
    const known = componentSchemas[name];
    if (known && !isDeepStrictEqual(known, definition)) throw new Error(`OpenAPI: two different schemas are named ${name}`);
    componentSchemas[name] = definition;
  }
  return toComponentRefs(schema);
}

const request = (shape: z.ZodType) => schemaOf(shape, "input");
const success = (data: z.ZodType) => schemaOf(successShape(data));
const uuid = schemaOf(uuidShape);

/**
 * components.schemas, asked for after every operation has named its own, so they come in
 * the order the operations use them. WebhookEvent joins them although no operation
 * refers to it: a receiver checks any webhook body against it.
 */
function namedSchemas(): Record<string, JsonSchema> {
  schemaOf(webhookEventShape);
  return componentSchemas;
}

const rateHeaders = {
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
  RateLimit: { $ref: "#/components/headers/RateLimit" },
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
};

const errorResponse = (description: string, headers: Record<string, object> = {}, examples?: Record<string, object>) => ({
  description,
  headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" }, ...headers },
  content: { "application/json": { schema: schemaOf(errorEnvelopeShape), ...(examples ? { examples } : {}) } },
});

const keyedErrors = {
  "400": { $ref: "#/components/responses/InvalidRequest" },
  "401": { $ref: "#/components/responses/Unauthorized" },
  "403": { $ref: "#/components/responses/Forbidden" },
  "429": { $ref: "#/components/responses/RateLimited" },
  "500": { $ref: "#/components/responses/InternalError" },
  "503": { $ref: "#/components/responses/ServiceUnavailable" },
};

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

/** A query integer as gateway/query.ts reads it, with the bounds the routes give it. */
const strictInt = (name: string, { min, max, fallback }: { min: number; max: number; fallback: number }, description: string) => ({
  name,
  in: "query",
  required: false,
  description: `${description} A whole number; \`1.5\`, \`10abc\`, \`-1\`, an empty value or a repeated parameter is INVALID_REQUEST.`,
  schema: { type: "integer", minimum: min, maximum: max, default: fallback },
});

/**
 * Each keyed operation says which scope it needs (ROUTE_SCOPES, the table the gateway
 * registers its routes with), in its description and as `x-required-scope`.
 */
function withScopes<T extends object>(paths: T): T {
  const operations = paths as Record<string, Record<string, { description?: string }> | undefined>;
  for (const [route, scope] of Object.entries(ROUTE_SCOPES)) {
    const [method, path] = route.split(" ") as [string, string];
    const operation = operations[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`the OpenAPI document has no ${route}`);
    operation.description = `${operation.description ?? ""}\n\nNeeds the \`${scope}\` scope.`.trim();
    Object.assign(operation, { "x-required-scope": scope });
  }
  return paths;
}

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
      "Checks run in this order: authentication, plan, rate limit, the key's scope, validation. An unknown path is 404 and a",
      "wrong method 405 (with `Allow`) before any of them.",
      "",
      "Scopes: every key carries some of `catalog:read`, `catalog:write`, `orders:read`, `orders:write` and",
      "`payments:write`; each operation names the one it needs (`x-required-scope`). A call outside the key's scopes is",
      "403 `FORBIDDEN` naming the scope, and changes nothing. A member can give a key only what their own role may do.",
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
  paths: withScopes({
    "/v1/products": {
      get: {
        operationId: "listProducts",
        tags: ["Catalog"],
        summary: "Published products and bundles of the store, oldest first",
        description:
          "Served from the gateway's page cache: a change to the catalog (a product or bundle created, a price or status changed) shows within a second, and within 5 s even when the change notice is lost. Orders are always priced from the catalog itself, never from this listing.",
        parameters: [
          strictInt("limit", PAGE_LIMIT, "Page size."),
          strictInt("offset", PAGE_OFFSET, "Items to skip."),
        ],
        responses: {
          "200": {
            description: "A page of catalog items.",
            headers: rateHeaders,
            content: {
              "application/json": {
                schema: success(catalogPageShape),
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
                schema: success(paymentMethodListShape),
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
          `For bank-feed aggregators: 1–${MAX_MUTATIONS_PER_CALL} mutations per call, bodies up to 1 MiB. Each mutation \`id\` is processed once`,
          "per store; sent again it is `duplicate` with the first result's `order_id`. A credit is `matched` when its amount",
          "equals the `transfer_amount` of exactly one bank-transfer order that is `pending`, or `expired` at most",
          "`BANK_MATCH_GRACE` (default 7 days) before `occurred_at`, and was created before `occurred_at`; that order",
          "becomes `paid` (history cause `bank_mutation` with the mutation id) and the usual webhooks follow. Otherwise",
          "`unmatched` with a `reason`: `no order with this amount`, `order cancelled`, `order already paid` (a double",
          "payment to refund), `transfer before order`, or `ambiguous` (another order with this transfer amount was paid",
          "within `BANK_MATCH_GRACE` before it, so it may be a second payment of that order; it is never paid",
          "automatically); it waits in the dashboard's review list. Debits are `ignored`.",
          "A unique amount stays reserved while its order is pending and for `BANK_MATCH_GRACE` after it expires or is",
          "cancelled, so a late transfer never pays a newer order. The whole body is validated first: invalid",
          "mutations are 400 naming every invalid field (`mutations[3].amount`) and nothing of the call is applied. Results come in request order.",
        ].join(" "),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: request(bankMutationsBody),
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
            content: { "application/json": { schema: success(bankMutationResultsShape) } },
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
          "Verified with `signature_key = SHA512(order_id + status_code + gross_amount + server_key)` and `gross_amount` equal to the order amount. settlement, capture+accept → paid; deny, failure → failed; cancel → cancelled; expire → expired; pending → nothing. `refund` / `partial_refund` record the refund the gateway reports, once, whether or not it was asked for here (a full one turns the order refunded). Idempotent; a refused transition is acknowledged with `changed: false`. When no notification comes, the gateway's status API is asked instead (see the description at the top) and its answer applied the same way. With `PAYMENT_GATEWAY=midtrans`, a notification that would move money (settlement, capture+accept, refund, partial_refund) is first confirmed with that status API, and what its signed answer says is applied, not what the notification claimed: a replayed or altered one changes nothing the gateway does not confirm. When the status API cannot be reached (or its answer not verified) the notification is not applied and is answered 503, so Midtrans sends it again.",
        security: [],
        requestBody: {
          required: true,
          content: { "application/json": { schema: request(midtransNotificationShape) } },
        },
        responses: {
          "200": {
            description: "Applied, or acknowledged without a change.",
            headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } },
            content: {
              "application/json": {
                schema: success(notificationAckShape),
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
  }),
  webhooks: Object.fromEntries(
    ORDER_EVENT_TYPES.map((type) => [
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
                schema: {
                  allOf: [
                    schemaOf((REFUND_EVENT_TYPES as readonly string[]).includes(type) ? refundEventShape : orderEventShape),
                    { properties: { type: { const: type } } },
                  ],
                },
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
      InvalidRequest: errorResponse(
        [
          "INVALID_REQUEST: malformed or invalid input. `details` lists every invalid field of the body (or query), not",
          "only the first, in the order the request has them (at most 100), each by its path (`items[0].quantity`);",
          "`message` names the first. A body's types are checked before its values, and what needs the catalog or the",
          "store (an unknown or unpublished item, `payment_method`) once the rest is valid, so fixing one round may",
          "reveal the next.",
        ].join(" "),
        {},
        {
          severalFields: {
            summary: "Several invalid fields of one body",
            value: {
              success: false,
              error: {
                code: "INVALID_REQUEST",
                message: "items[0].quantity: must be an integer from 1 to 1000",
                details: [
                  { field: "items[0].quantity", message: "must be an integer from 1 to 1000" },
                  { field: "buyer.email", message: "must be a valid e-mail address" },
                ],
              },
            },
          },
        },
      ),
      PayloadTooLarge: errorResponse("INVALID_REQUEST: body over 64 KiB."),
      UnsupportedMediaType: errorResponse("INVALID_REQUEST: body is not application/json."),
      Unauthorized: errorResponse("UNAUTHORIZED: header missing or malformed, key unknown or revoked.", {
        "WWW-Authenticate": { schema: { type: "string", pattern: "^Bearer" } },
      }),
      Forbidden: errorResponse(
        "PLAN_REQUIRED: the store is not on the Growth or Scale plan (checked before the rate limit). FORBIDDEN: the key lacks the scope this operation needs, named in the message; nothing was changed.",
        {},
        {
          plan: { value: { success: false, error: { code: "PLAN_REQUIRED", message: "the API is available on the Growth and Scale plans" } } },
          scope: { value: { success: false, error: { code: "FORBIDDEN", message: missingScopeMessage("payments:write") } } },
        },
      ),
      NotFound: errorResponse("NOT_FOUND: no such route, or no such order in this store."),
      Conflict: errorResponse("CONFLICT: Idempotency-Key reused with another body or still in flight, or no unique amount code left."),
      RateLimited: errorResponse("RATE_LIMITED: over the store's rate, or too many failed authentications from this client address (an IPv6 client is its /64).", {
        "Retry-After": { $ref: "#/components/headers/Retry-After" },
      }),
      InternalError: errorResponse("INTERNAL_ERROR: a bug; the message is generic, details are in the log."),
      ServiceUnavailable: errorResponse("SERVICE_UNAVAILABLE: an internal service or the database is unreachable.", {
        "Retry-After": { $ref: "#/components/headers/Retry-After" },
      }),
    },
    schemas: namedSchemas(),
  },
} as const;
