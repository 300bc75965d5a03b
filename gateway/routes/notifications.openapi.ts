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
          "400": { $ref: "#/components/responses/InvalidRequest" },
          "401": errorResponse("Bad notification signature."),
          "404": { $ref: "#/components/responses/NotFound" },
          "413": { $ref: "#/components/responses/PayloadTooLarge" },
          "415": { $ref: "#/components/responses/UnsupportedMediaType" },
          "503": { $ref: "#/components/responses/ServiceUnavailable" },
        },
      },
    },
  };
}
