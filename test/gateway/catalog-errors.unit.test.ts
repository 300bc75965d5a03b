// How the gateway says the catalog's refusals (docs/api.md#out-of-stock,
// docs/api.md#products): the OUT_OF_STOCK refusal of a new order's units as 409
// OUT_OF_STOCK listing each short line with what is left, a taken slug as 409 CONFLICT
// naming `slug`, and the catalog's field names as the API body's. Pure.
import test from "ava";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { toApiError } from "../../gateway/errors.js";
import { parseBody } from "../../gateway/order-request.js";
import { createItemBody, createItemFields, publicCatalogError, updateItemBody, updateItemFields } from "../../gateway/product-request.js";
import { BadRequestSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ItemStatus } from "../../gen/catalog/v1/catalog_pb.js";
import { fieldError, fieldErrors } from "../../platform/field-errors.js";
import { outOfStockError } from "../../platform/out-of-stock.js";
import { createOpenApiValidator } from "../helpers/openapi.js";

const STORE = "11111111-1111-4111-8111-111111111111";
const ITEM = "22222222-2222-4222-8222-222222222222";
const validator = createOpenApiValidator();

/** The envelope the gateway renders for an ApiError (gateway/context.ts renderError). */
const envelope = (error: ReturnType<typeof toApiError>) => ({
  success: false,
  error: { code: error.code, message: error.message, ...(error.details.length > 0 ? { details: error.details } : {}) },
});

test("the catalog's OUT_OF_STOCK is 409 OUT_OF_STOCK naming each short line with what it could have, as the document says", (t) => {
  const error = toApiError(
    outOfStockError([
      { index: 0, available: 3 },
      { index: 2, available: 0 },
    ]),
  );
  t.is(error.status, 409);
  t.is(error.code, "OUT_OF_STOCK");
  t.is(error.message, "items[0].quantity: only 3 available");
  t.deepEqual(error.details, [
    { field: "items[0].quantity", message: "only 3 available", available: 3 },
    { field: "items[2].quantity", message: "out of stock", available: 0 },
  ]);
  t.is(validator.checkResponse("POST", "/v1/orders", 409, envelope(error)), undefined);
});

test("another FAILED_PRECONDITION stays a plain 409 CONFLICT without details", (t) => {
  const error = toApiError(new ConnectError("order is not pending", Code.FailedPrecondition));
  t.is(error.status, 409);
  t.is(error.code, "CONFLICT");
  t.is(error.message, "order is not pending");
  t.deepEqual(error.details, []);
});

test("a taken slug is 409 CONFLICT naming slug; an ALREADY_EXISTS naming nothing has no details", (t) => {
  const taken = new ConnectError("slug kopi is already used in this store", Code.AlreadyExists, undefined, [
    { desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations: [{ field: "slug", description: "is already used in this store" }] }) },
  ]);
  const error = toApiError(publicCatalogError(taken));
  t.is(error.status, 409);
  t.is(error.code, "CONFLICT");
  t.is(error.message, "slug kopi is already used in this store");
  t.deepEqual(error.details, [{ field: "slug", message: "is already used in this store" }]);
  t.is(validator.checkResponse("POST", "/v1/products", 409, envelope(error)), undefined);

  const plain = toApiError(new ConnectError("Idempotency-Key was already used with a different request", Code.AlreadyExists));
  t.is(plain.code, "CONFLICT");
  t.deepEqual(plain.details, []);
});

test("the catalog's names of a bundle's products and of stock are the body's: items[i].…, stock", (t) => {
  const body = { type: "bundle", title: "Paket", price: 1, stock: -1, items: [{ product_id: ITEM, quantity: 0 }] };
  const error = toApiError(
    publicCatalogError(
      fieldErrors([
        { field: "bundle_items[0].quantity", description: "must be from 1 to 1000" },
        { field: "stock.quantity", description: "must be 0 or more" },
      ]),
    ),
    body,
  );
  t.is(error.status, 400);
  t.is(error.code, "INVALID_REQUEST");
  // In the body's order: stock comes before items there.
  t.deepEqual(error.details, [
    { field: "stock", message: "must be 0 or more" },
    { field: "items[0].quantity", message: "must be from 1 to 1000" },
  ]);
  t.is(error.message, "stock: must be 0 or more");

  const products = toApiError(publicCatalogError(fieldError("product_ids[1]", "must be a UUID")));
  t.deepEqual(products.details, [{ field: "items[1].product_id", message: "must be a UUID" }]);
  const none = toApiError(publicCatalogError(fieldError("product_ids", "must name at least one product")));
  t.deepEqual(none.details, [{ field: "items", message: "must name at least one product" }]);
  // A field the body calls the same is left as the catalog said it.
  const price = toApiError(publicCatalogError(fieldError("price", "must be an integer from 0 to 1000000000000", "field description")));
  t.is(price.message, "price must be an integer from 0 to 1000000000000");
  t.deepEqual(price.details, [{ field: "price", message: "must be an integer from 0 to 1000000000000" }]);
});

test("a product body: draft unless said, stock null or absent is untracked, a number is tracked", (t) => {
  const fields = createItemFields(STORE, parseBody(createItemBody, { type: "product", title: "Kopi", price: 85000 }));
  t.is(fields.status, ItemStatus.DRAFT);
  t.is(fields.stock, undefined);
  t.is(fields.slug, "");
  const tracked = createItemFields(STORE, parseBody(createItemBody, { type: "product", title: "Kopi", price: 85000, stock: 40, status: "published" }));
  t.is(tracked.stock?.quantity, 40n);
  t.is(tracked.status, ItemStatus.PUBLISHED);
  const untracked = createItemFields(STORE, parseBody(createItemBody, { type: "product", title: "Kopi", price: 85000, stock: null }));
  t.truthy(untracked.stock);
  t.is(untracked.stock!.quantity, undefined);
});

test("a PATCH body changes only what it gives: stock null stops tracking, items replace a bundle's products", (t) => {
  const nothing = updateItemFields(STORE, ITEM, parseBody(updateItemBody, {}));
  t.like(nothing, { title: undefined, slug: undefined, price: undefined, status: undefined, stock: undefined, replaceBundleItems: false });
  const untrack = updateItemFields(STORE, ITEM, parseBody(updateItemBody, { stock: null, price: 90000 }));
  t.is(untrack.stock!.quantity, undefined);
  t.is(untrack.price, 90000n);
  const items = updateItemFields(STORE, ITEM, parseBody(updateItemBody, { items: [{ product_id: ITEM, quantity: 2 }] }));
  t.true(items.replaceBundleItems);
  t.deepEqual(items.bundleItems.map((line) => [line.productId, line.quantity]), [[ITEM, 2]]);
});

test("a product body of wrong types names every field; type is required and never anything but product or bundle", (t) => {
  const error = t.throws(() => parseBody(createItemBody, { type: "service", title: 5, price: "1", stock: "ten", colour: "red" }));
  const details = (error as ReturnType<typeof toApiError>).details.map((d) => d.field);
  t.deepEqual(details, ["type", "title", "price", "stock", "colour"]);
  const missing = t.throws(() => parseBody(createItemBody, { title: "Kopi", price: 1 }));
  t.deepEqual((missing as ReturnType<typeof toApiError>).details.map((d) => d.field), ["type"]);
});
