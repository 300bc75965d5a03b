// The Midtrans notification in the OpenAPI document, beside its route (notifications.ts).
import { midtransNotificationShape, notificationAckShape } from "../../common/api-shapes.js";
import { errorResponse, request, success, type PathItems } from "../openapi-parts.js";

export function notificationPaths(): PathItems {
  return {
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
          // No key, so no rate limit and no rate headers: these are not the keyed components.
          "400": errorResponse("INVALID_REQUEST: not a Midtrans notification, or `gross_amount` is not the order's amount."),
          "401": errorResponse("UNAUTHORIZED: bad notification signature. Like every 401 it carries `WWW-Authenticate`, although this call takes no key.", {
            "WWW-Authenticate": { required: true, schema: { type: "string", pattern: "^Bearer" } },
          }),
          "404": errorResponse("NOT_FOUND: no gateway order has this `order_id`."),
          "413": errorResponse("INVALID_REQUEST: body over 64 KiB."),
          "415": errorResponse("INVALID_REQUEST: no body, or a body that is not application/json."),
          "500": errorResponse("INTERNAL_ERROR: a bug; the message is generic, details are in the log."),
          "503": errorResponse("SERVICE_UNAVAILABLE: the order service or the database is unreachable, or the payment gateway could not confirm the notification; Midtrans sends it again.", {
            "Retry-After": { $ref: "#/components/headers/Retry-After" },
          }),
        },
      },
    },
  };
}
