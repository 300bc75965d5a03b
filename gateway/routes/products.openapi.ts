// The catalog's paths in the OpenAPI document (gateway/openapi.ts assembles it), beside
// the routes they describe (products.ts). Request bodies are the zod schemas the routes
// validate with (product-request.ts).
import { catalogItemShape, catalogPageShape } from "../../common/api-shapes.js";
import { keyedErrorResponse, keyedErrors, rateHeaders, request, strictInt, success, uuid, type PathItems } from "../openapi-parts.js";
import { createItemBody, updateItemBody } from "../product-request.js";
import { PAGE_LIMIT, PAGE_OFFSET } from "../query.js";

const PRODUCT_ID = "32d96ce8-805d-4d60-acbc-e53a630e2019";
const OTHER_PRODUCT_ID = "5b0f3c0e-7a58-4d43-9a57-0a4fd8f1b6f2";

const exampleProduct = {
  id: PRODUCT_ID,
  type: "product",
  title: "Kopi Arabika Gayo 250g",
  slug: "kopi-arabika-gayo-250g",
  price: 85000,
  status: "published",
  stock: 40,
  available: 37,
  items: [],
  updated_at: "2026-11-28T08:00:00.000Z",
};

const itemIdParameter = {
  name: "product_id",
  in: "path",
  required: true,
  description: "A product's or a bundle's id.",
  schema: uuid,
};

const itemAnswer = (description: string, example: object) => ({
  description,
  headers: rateHeaders,
  content: { "application/json": { schema: success(catalogItemShape), example: { success: true, data: example } } },
});

const notFound = keyedErrorResponse("NOT_FOUND: no product or bundle with this id in the key's store (another store's id included).");

const slugTaken = keyedErrorResponse("CONFLICT: the `slug` given is another item's of this store; `details` names `slug`.", {}, {
  slug: {
    value: {
      success: false,
      error: {
        code: "CONFLICT",
        message: "slug kopi-arabika-gayo-250g is already used in this store",
        details: [{ field: "slug", message: "is already used in this store" }],
      },
    },
  },
});

const rules = [
  "`stock`: an integer ≥ 0 makes the item track its units (orders hold them while pending, paid orders take them);",
  "`null` stops tracking. `available` is what new orders may still take; a bundle's is the least its own stock and",
  "each tracked product allows (units ÷ quantity), and products that track nothing never limit it.",
  "Only `published` items can be ordered and are listed by GET /v1/products; an `archived` item stays readable here.",
  "The change is audited with the key as its actor, and a published change shows in every gateway's GET /v1/products",
  "within 5 s. Unknown fields are rejected; values are checked by the catalog, each wrong field named in `details`.",
].join(" ");

export function productPaths(): PathItems {
  return {
    "/v1/products": {
      get: {
        operationId: "listProducts",
        tags: ["Catalog"],
        summary: "Published products and bundles of the store, oldest first",
        description:
          "Served from the gateway's page cache: a change to the catalog (a product or bundle created, a price, status or stock changed) shows within a second, and within 5 s even when the change notice is lost, so `available` may be a few seconds old: GET /v1/products/{product_id} reads the catalog itself. Orders are always priced and checked against stock by the catalog itself, never from this listing.",
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
                example: { success: true, data: { items: [exampleProduct], has_more: true } },
              },
            },
          },
          ...keyedErrors,
        },
      },
      post: {
        operationId: "createProduct",
        tags: ["Catalog"],
        summary: "Create a product or a bundle",
        description: [
          "`type` says which, and never changes. A bundle lists its products (`items`, each once, with quantities);",
          "a product has none (`items` given for a product is 400). The slug is made from the title when omitted,",
          "with `-2`, `-3`… when that one is taken. A new item is a `draft` unless `status` says otherwise.",
          rules,
        ].join(" "),
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: request(createItemBody),
              examples: {
                product: {
                  summary: "A product with 40 units, on sale at once",
                  value: { type: "product", title: "Kopi Arabika Gayo 250g", price: 85000, status: "published", stock: 40 },
                },
                bundle: {
                  summary: "A draft bundle of two products",
                  value: {
                    type: "bundle",
                    title: "Paket Pagi",
                    price: 150000,
                    items: [
                      { product_id: PRODUCT_ID, quantity: 2 },
                      { product_id: OTHER_PRODUCT_ID, quantity: 1 },
                    ],
                  },
                },
              },
            },
          },
        },
        responses: {
          "201": itemAnswer("The new item.", exampleProduct),
          "409": slugTaken,
          ...keyedErrors,
        },
      },
    },
    "/v1/products/{product_id}": {
      get: {
        operationId: "getProduct",
        tags: ["Catalog"],
        summary: "One product or bundle of the store, whatever its status",
        description: "Read from the catalog itself, never from a cache: `stock` and `available` are as they are now.",
        parameters: [itemIdParameter],
        responses: {
          "200": itemAnswer("The item.", exampleProduct),
          "404": notFound,
          ...keyedErrors,
        },
      },
      patch: {
        operationId: "updateProduct",
        tags: ["Catalog"],
        summary: "Change a product's or bundle's title, slug, price, status, stock or products",
        description: [
          "Fields not given are left as they are; all that are given change together, or none does.",
          "`type` may be sent back as it is, never changed (400 naming `type`). `items` replaces a bundle's products (400",
          "for a product). A new price applies to orders created afterwards; existing orders keep theirs.",
          "Setting `stock` sets the units on hand: what pending orders hold is taken from it for `available`.",
          rules,
        ].join(" "),
        parameters: [itemIdParameter],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: request(updateItemBody),
              examples: {
                price: { summary: "A new price", value: { price: 90000 } },
                restock: { summary: "40 units on hand, and on sale", value: { stock: 40, status: "published" } },
                archive: { summary: "Off sale, kept for the orders that have it", value: { status: "archived" } },
              },
            },
          },
        },
        responses: {
          "200": itemAnswer("The item as it is now.", { ...exampleProduct, price: 90000 }),
          "404": notFound,
          "409": slugTaken,
          ...keyedErrors,
        },
      },
    },
  };
}
