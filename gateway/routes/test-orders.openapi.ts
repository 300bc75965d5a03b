// POST /v1/test/orders/{order_id}/simulate in the OpenAPI document, beside its route (test-orders.ts).
import { orderResultShape } from "../../common/api-shapes.js";
import { keyedErrorResponse, keyedErrors, rateHeaders, request, success, uuid, type PathItems } from "../openapi-parts.js";
import { simulateTestOrderBody } from "../order-request.js";

export function testOrderPaths(): PathItems {
  return {
    "/v1/test/orders/{order_id}/simulate": {
      post: {
        operationId: "simulateTestOrder",
        tags: ["Orders"],
        summary: "Pay, fail or expire a pending test order, as the payment gateway would",
        description: [
          "Test keys only (`sk_test_…`): the order must be one of the key's pending test orders. It becomes `paid`,",
          "`failed` or `expired` exactly as a gateway notification would make it (history cause `simulated`), with the",
          "usual webhooks, which carry `livemode: false`. A live key, a live order or another store's is 404 NOT_FOUND;",
          "an order that is not pending is 409 CONFLICT. Unknown fields are rejected.",
        ].join(" "),
        parameters: [{ name: "order_id", in: "path", required: true, schema: uuid }],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: request(simulateTestOrderBody),
              examples: { paid: { summary: "The buyer paid", value: { outcome: "paid" } } },
            },
          },
        },
        responses: {
          "200": {
            description: "The order as it now is.",
            headers: rateHeaders,
            content: { "application/json": { schema: success(orderResultShape) } },
          },
          "404": { $ref: "#/components/responses/NotFound" },
          "409": keyedErrorResponse("CONFLICT: the test order is not pending (paid, expired, failed, refunded or cancelled already)."),
          ...keyedErrors,
        },
      },
    },
  };
}
