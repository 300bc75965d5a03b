// /v1/payment-links in the OpenAPI document, beside its routes (payment-links.ts).
import { paymentLinkListShape, paymentLinkShape } from "../../common/api-shapes.js";
import { keyedErrors, rateHeaders, request, success, uuid, type PathItems } from "../openapi-parts.js";
import { createPaymentLinkBody } from "../order-request.js";

export function paymentLinkPaths(): PathItems {
  const link = (description: string) => ({ description, headers: rateHeaders, content: { "application/json": { schema: success(paymentLinkShape) } } });
  return {
    "/v1/payment-links": {
      post: {
        operationId: "createPaymentLink",
        tags: ["Orders"],
        summary: "Make a payment link",
        description: [
          "A shareable address (`url`, PUBLIC_BASE_URL/pay/{slug}) where anyone can order the link's items: the page asks",
          "for their name, email and phone and a payment method, makes an order (with `payment_link_id`) and sends them to",
          "pay it. `usage_limit` counts paid orders. A test key makes test links, whose orders are test orders. Every bad",
          "field is named (400).",
        ].join(" "),
        requestBody: { required: true, content: { "application/json": { schema: request(createPaymentLinkBody) } } },
        responses: { "201": link("The new link."), ...keyedErrors },
      },
      get: {
        operationId: "listPaymentLinks",
        tags: ["Orders"],
        summary: "List payment links",
        description: "The store's links of the key's mode, newest first (at most 200).",
        responses: {
          "200": { description: "The links.", headers: rateHeaders, content: { "application/json": { schema: success(paymentLinkListShape) } } },
          ...keyedErrors,
        },
      },
    },
    "/v1/payment-links/{link_id}/deactivate": {
      post: {
        operationId: "deactivatePaymentLink",
        tags: ["Orders"],
        summary: "Deactivate a payment link",
        description: "For good: its page answers 410 from then on. Orders already made through it may still be paid. Again is a no-op.",
        parameters: [{ name: "link_id", in: "path", required: true, schema: uuid }],
        responses: { "200": link("The link, inactive."), "404": { $ref: "#/components/responses/NotFound" }, ...keyedErrors },
      },
    },
  };
}
