// GET /v1/products in the OpenAPI document (gateway/openapi.ts assembles it), beside the
// route it describes (products.ts).
import { catalogPageShape } from "../../common/api-shapes.js";
import { keyedErrors, rateHeaders, strictInt, success, type PathItems } from "../openapi-parts.js";
import { PAGE_LIMIT, PAGE_OFFSET } from "../query.js";

export function productPaths(): PathItems {
  return {
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
  };
}
