import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { z } from "zod";
import { ITEM_STATUSES } from "../common/api-shapes.js";
import { itemStatusOf } from "../common/public-json.js";
import { BundleItemSchema, StockSettingSchema, type BundleItem, type StockSetting } from "../gen/catalog/v1/catalog_pb.js";
import { BadRequest_FieldViolationSchema, BadRequestSchema } from "../gen/google/rpc/error_details_pb.js";
import { fieldViolations } from "../platform/field-errors.js";

// The JSON shapes of POST /v1/products and PATCH /v1/products/{product_id}
// (docs/api.md#products): types and known fields only, as order-request.ts does for
// orders. What gives the values meaning (title length, price range, stock ≥ 0, slug
// form and uniqueness, a bundle's products) is the catalog's, so the dashboard, the CLI
// and a gRPC caller meet the same rules; the catalog names its own fields, and
// publicCatalogError says them as this body does.

const uuidFormat = { format: "uuid" } as const;

const bundleLine = z
  .object({
    product_id: z.string().meta(uuidFormat),
    // The one value rule checked here: the catalog reads a quantity of 0 as "one of it"
    // (a caller of CreateBundle's product_ids sends none), so a 0 would never reach it as wrong.
    quantity: z
      .number()
      .int()
      .min(1, { message: "must be 1 or more" })
      .max(2_147_483_647)
      .meta({ description: "How many of the product one bundle holds." }),
  })
  .strict();

const fields = {
  title: z.string().meta({ minLength: 1, maxLength: 200 }),
  price: z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).meta({ minimum: 0, description: "IDR, whole rupiah." }),
  slug: z.string().meta({ pattern: "^[a-z0-9]+(-[a-z0-9]+)*$", maxLength: 120 }),
  status: z.enum(ITEM_STATUSES),
  stock: z
    .number()
    .int()
    .min(-Number.MAX_SAFE_INTEGER)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .meta({ minimum: 0, description: "Units on hand, tracked from now on; null: not tracked (nothing limits orders)." }),
  items: z.array(bundleLine).max(1000).meta({ minItems: 1, description: "A bundle's products, each once, with quantities. Not for a product." }),
};

const itemType = z.enum(["product", "bundle"]);

export const createItemBody = z
  .object({
    type: itemType.meta({ description: "Never changes afterwards." }),
    title: fields.title,
    price: fields.price,
    slug: fields.slug.optional().meta({ description: "Made from the title when omitted (`-2`, `-3`… when taken); one given that is taken is 409 CONFLICT naming `slug`." }),
    status: fields.status.optional().meta({ description: "Default `draft`: only `published` items can be ordered and are listed." }),
    stock: fields.stock.optional(),
    items: fields.items.optional(),
  })
  .strict()
  .meta({ id: "CreateItemRequest" });

export type CreateItemBody = z.infer<typeof createItemBody>;

export const updateItemBody = z
  .object({
    type: itemType.optional().meta({ description: "Only the item's own type is accepted: a product never becomes a bundle." }),
    title: fields.title.optional(),
    price: fields.price.optional().meta({ description: "IDR, whole rupiah. Orders created afterwards pay it; existing orders keep their price." }),
    slug: fields.slug.optional().meta({ description: "A slug another item of the store has is 409 CONFLICT naming `slug`." }),
    status: fields.status.optional(),
    stock: fields.stock.optional(),
    items: fields.items.optional().meta({ description: "Replaces a bundle's products. Not for a product." }),
  })
  .strict()
  .meta({ id: "UpdateItemRequest" });

export type UpdateItemBody = z.infer<typeof updateItemBody>;

/** `stock` of a body as the catalog's StockSetting: absent → no change (creation: not tracked), null → not tracked. */
export function stockSetting(stock: number | null | undefined): StockSetting | undefined {
  if (stock === undefined) return undefined;
  return create(StockSettingSchema, stock === null ? {} : { quantity: BigInt(stock) });
}

export function bundleItems(items: CreateItemBody["items"]): BundleItem[] {
  return (items ?? []).map((line) => create(BundleItemSchema, { productId: line.product_id, quantity: line.quantity }));
}

/** What POST /v1/products asks of CreateProduct or CreateBundle (the route picks by `type`). */
export function createItemFields(storeId: string, body: CreateItemBody) {
  return {
    storeId,
    title: body.title,
    slug: body.slug ?? "",
    price: BigInt(body.price),
    // The API's default is a draft, so nothing goes on sale by accident; the catalog's own default is published.
    status: itemStatusOf(body.status ?? "draft"),
    stock: stockSetting(body.stock),
  };
}

/** What PATCH /v1/products/{product_id} asks of UpdateItem. */
export function updateItemFields(storeId: string, itemId: string, body: UpdateItemBody) {
  return {
    storeId,
    itemId,
    title: body.title,
    slug: body.slug,
    price: body.price === undefined ? undefined : BigInt(body.price),
    status: body.status === undefined ? undefined : itemStatusOf(body.status),
    stock: stockSetting(body.stock),
    replaceBundleItems: body.items !== undefined,
    bundleItems: bundleItems(body.items),
  };
}

/**
 * A field as the catalog names it, as the API body calls it: a bundle's lines are
 * `items` (`bundle_items[0].quantity` → `items[0].quantity`; `product_ids[2]`, one id of
 * CreateBundle's older list, is the line's `items[2].product_id`).
 */
function publicField(field: string): string {
  const productId = /^product_ids\[(\d+)\]$/.exec(field);
  if (productId) return `items[${productId[1]}].product_id`;
  return field.replace(/^(bundle_items|product_ids)(?=\[|\.|$)/, "items").replace(/^stock\.quantity$/, "stock");
}

/**
 * A catalog refusal naming the body's fields: INVALID_ARGUMENT and ALREADY_EXISTS (a
 * taken slug) with each field renamed to the API body's (`bundle_items[0].quantity` →
 * `items[0].quantity`). Anything else is returned as it is.
 */
export function publicCatalogError(error: unknown): unknown {
  if (!(error instanceof ConnectError) || (error.code !== Code.InvalidArgument && error.code !== Code.AlreadyExists)) return error;
  const named = fieldViolations(error);
  if (named.length === 0 || named.every((problem) => publicField(problem.field) === problem.field)) return error;
  const renamed = named.map((problem) => ({ field: publicField(problem.field), description: problem.description }));
  const violations = renamed.map((problem) => create(BadRequest_FieldViolationSchema, problem));
  return new ConnectError(`${renamed[0]!.field}: ${renamed[0]!.description}`, error.code, undefined, [
    { desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations: violations }) },
  ]);
}
