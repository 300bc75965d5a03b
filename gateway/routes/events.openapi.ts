// GET /v1/events in the OpenAPI document, beside its route (events.ts).
import { eventPageShape } from "../../common/api-shapes.js";
import { ORDER_EVENT_TYPES } from "../../common/order-status.js";
import { keyedErrors, rateHeaders, strictInt, success, type PathItems } from "../openapi-parts.js";
import { EVENT_PAGE_LIMIT } from "../query.js";

export function eventPaths(): PathItems {
  return {
    "/v1/events": {
      get: {
        operationId: "listEvents",
        tags: ["Events"],
        summary: "Events of the store (the webhooks' bodies), newest first",
        description: [
          "Every order and refund event of the last EVENT_RETENTION (default 30 days) in the key's mode (a `sk_test_` key",
          "lists test events, a `sk_live_` key live ones), whether or not an endpoint received it. Each item's `data` is",
          "exactly the `data` of the webhook body, and its `id` the `webhook-id`: a client that missed webhooks catches up",
          "by paging with `starting_after` until `has_more` is false, skipping ids it has seen.",
        ].join(" "),
        parameters: [
          strictInt("limit", EVENT_PAGE_LIMIT, "Page size."),
          { name: "type", in: "query", required: false, description: "Only events of this type.", schema: { type: "string", enum: [...ORDER_EVENT_TYPES] } },
          { name: "order_id", in: "query", required: false, description: "Only events of this order.", schema: { type: "string", format: "uuid" } },
          {
            name: "starting_after",
            in: "query",
            required: false,
            description:
              "An event id, usually the last `items[].id` of the previous page: the page starts with the next older event. An id that is not one of the store's kept events of the key's mode is 404 NOT_FOUND.",
            schema: { type: "string", format: "uuid" },
          },
        ],
        responses: {
          "200": {
            description: "A page of events.",
            headers: rateHeaders,
            content: { "application/json": { schema: success(eventPageShape) } },
          },
          "404": { $ref: "#/components/responses/NotFound" },
          ...keyedErrors,
        },
      },
    },
  };
}
