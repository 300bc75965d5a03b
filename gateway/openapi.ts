// The public API as OpenAPI 3.1: served at GET /v1/openapi.json and rendered at /docs.
// The tests validate every response the gateway gives against these schemas, so the
// document and the behaviour cannot drift apart.
//
// Each route module documents its own paths beside it (gateway/routes/<area>.openapi.ts);
// this file assembles the document around them: info, servers, security, the webhooks
// the platform sends, and the components the paths refer to. Schemas come from zod
// shapes (openapi-parts.ts).

import type { z } from "zod";
import { orderEventShape, refundEventShape, testEventShape } from "../common/api-shapes.js";
import { missingScopeMessage, ROUTE_SCOPES } from "../common/scopes.js";
import { ORDER_EVENT_TYPES, REFUND_EVENT_TYPES, TEST_EVENT_TYPE } from "../common/order-status.js";
import { errorResponse, headerComponents, keyedErrorResponse, namedSchemas, schemaOf, uuid, type PathItems } from "./openapi-parts.js";
import { bankMutationPaths } from "./routes/bank-mutations.openapi.js";
import { docsPaths } from "./routes/docs.openapi.js";
import { eventPaths } from "./routes/events.openapi.js";
import { notificationPaths } from "./routes/notifications.openapi.js";
import { orderPaths } from "./routes/orders.openapi.js";
import { paymentLinkPaths } from "./routes/payment-links.openapi.js";
import { paymentMethodPaths } from "./routes/payment-methods.openapi.js";
import { productPaths } from "./routes/products.openapi.js";
import { testOrderPaths } from "./routes/test-orders.openapi.js";

/**
 * Each keyed operation says which scope it needs (ROUTE_SCOPES, the table the gateway
 * registers its routes with), in its description and as `x-required-scope`.
 */
function withScopes(paths: PathItems): PathItems {
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

/** The `webhooks` entry of one event type: the request we send, with `shape` as its body. */
function webhook(type: string, shape: z.ZodType, about = "") {
  return {
    post: {
      operationId: `webhook_${type.replace(/\W/g, "_")}`,
      summary: `${type} event`,
      description:
        about +
        "Standard Webhooks: headers `webhook-id` (event id, the same on every retry), `webhook-timestamp` (Unix seconds of the attempt), `webhook-signature` (`v1,<base64 HMAC-SHA256(secret, \"{id}.{timestamp}.{body}\")>`, space-separated during a secret rotation). Any 2xx within 15 s is success; otherwise retried on WEBHOOK_RETRY_SCHEDULE. Delivery is at least once, unordered: dedupe on `webhook-id`, order by `data.order.updated_at`.",
      security: [],
      parameters: [
        { name: "webhook-id", in: "header", required: true, schema: uuid },
        { name: "webhook-timestamp", in: "header", required: true, schema: { type: "string", pattern: "^[0-9]+$" } },
        { name: "webhook-signature", in: "header", required: true, schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" } },
      ],
      requestBody: {
        required: true,
        content: { "application/json": { schema: { allOf: [schemaOf(shape), { properties: { type: { const: type } } }] } } },
      },
      responses: { "2XX": { description: "Received." }, "410": { description: "Gone: the endpoint is disabled." } },
    },
  };
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
    { name: "Events" },
    { name: "Meta" },
  ],
  // In this order: components.schemas lists the named schemas in the order the paths
  // first use them.
  paths: withScopes({
    ...productPaths(),
    ...paymentMethodPaths(),
    ...orderPaths(),
    ...bankMutationPaths(),
    ...eventPaths(),
    ...testOrderPaths(),
    ...paymentLinkPaths(),
    ...notificationPaths(),
    ...docsPaths(),
  }),
  webhooks: {
    ...Object.fromEntries(
      ORDER_EVENT_TYPES.map((type) => [
        type,
        webhook(type, (REFUND_EVENT_TYPES as readonly string[]).includes(type) ? refundEventShape : orderEventShape),
      ]),
    ),
    [TEST_EVENT_TYPE]: webhook(
      TEST_EVENT_TYPE,
      testEventShape,
      "Sent only when asked for (the dashboard's Send test event, `store-admin webhook test`), to that one endpoint, whatever events it subscribes to. Signed, retried and recorded as a delivery like any event, but not kept in the event log. ",
    ),
  },
  components: {
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description: "`Authorization: Bearer sk_live_…`, or `sk_test_…` for a test key, which sees and makes only test data (the scheme word is case-insensitive). Keys are scoped to one store.",
      },
    },
    headers: headerComponents,
    responses: {
      InvalidRequest: keyedErrorResponse(
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
      PayloadTooLarge: keyedErrorResponse("INVALID_REQUEST: body over 64 KiB (1 MiB for `POST /v1/bank-mutations`)."),
      UnsupportedMediaType: keyedErrorResponse("INVALID_REQUEST: body is not application/json."),
      Unauthorized: errorResponse("UNAUTHORIZED: header missing or malformed, key unknown or revoked.", {
        "WWW-Authenticate": { required: true, schema: { type: "string", pattern: "^Bearer" } },
      }),
      Forbidden: keyedErrorResponse(
        "PLAN_REQUIRED: the store is not on the Growth or Scale plan (checked before the rate limit). FORBIDDEN: the key lacks the scope this operation needs, named in the message; nothing was changed.",
        {},
        {
          plan: { value: { success: false, error: { code: "PLAN_REQUIRED", message: "the API is available on the Growth and Scale plans" } } },
          scope: { value: { success: false, error: { code: "FORBIDDEN", message: missingScopeMessage("payments:write") } } },
        },
      ),
      NotFound: keyedErrorResponse("NOT_FOUND: no such order in this store (the path's `order_id`, or `starting_after`)."),
      Conflict: keyedErrorResponse("CONFLICT: Idempotency-Key reused with another body or still in flight, or no unique amount code left."),
      RateLimited: keyedErrorResponse("RATE_LIMITED: over the store's rate, or too many failed authentications from this client address (an IPv6 client is its /64).", {
        "Retry-After": { $ref: "#/components/headers/Retry-After" },
      }),
      InternalError: keyedErrorResponse("INTERNAL_ERROR: a bug; the message is generic, details are in the log."),
      ServiceUnavailable: keyedErrorResponse("SERVICE_UNAVAILABLE: an internal service or the database is unreachable.", {
        "Retry-After": { $ref: "#/components/headers/Retry-After" },
      }),
    },
    schemas: namedSchemas(),
  },
} as const;
