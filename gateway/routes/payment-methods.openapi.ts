// GET /v1/payment-methods in the OpenAPI document, beside its route (payment-methods.ts).
import { paymentMethodListShape } from "../../common/api-shapes.js";
import { keyedErrors, rateHeaders, success, type PathItems } from "../openapi-parts.js";

export function paymentMethodPaths(): PathItems {
  return {
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
  };
}
