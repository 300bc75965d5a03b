// The document's request bodies are generated from the zod schemas the gateway checks
// bodies with, and its responses from the shapes the renderers are typed by. These
// tests hold that up from the outside, with no stack: a body the document accepts is
// one the gateway accepts (its shape check, then the order service's rules), a body it
// refuses is one the gateway refuses, and what the renderers make matches the document.
// Pure.
import test from "ava";
import { create } from "@bufbuild/protobuf";
import { ConnectError, Code } from "@connectrpc/connect";
import { ApiError } from "../../gateway/errors.js";
import { openApiDocument } from "../../gateway/openapi.js";
import {
  bankMutationsBody,
  createOrderBody,
  createOrderFields,
  mutationFields,
  parseBody,
  refundOrderBody,
  refundOrderFields,
} from "../../gateway/order-request.js";
import { createItemBody, createItemFields, updateItemBody, updateItemFields } from "../../gateway/product-request.js";
import { ReconcileMutationsRequestSchema } from "../../gen/order/v1/bank_pb.js";
import { CreateOrderRequestSchema, OrderDetailSchema, OrderSchema, RefundOrderRequestSchema } from "../../gen/order/v1/order_pb.js";
import { catalogItemJson, orderDetailJson, orderJson, refundJson } from "../../common/public-json.js";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ItemSchema, ItemStatus, ItemType } from "../../gen/catalog/v1/catalog_pb.js";
import { orderEventPayload, refundEvent } from "../../services/order/events.js";
import { validateCreateOrder, validateReconcileMutations, validateRefundOrder } from "../../services/order/validation.js";
import { createOpenApiValidator } from "../helpers/openapi.js";

// As served: the JSON of the document, not the module's object.
const v = createOpenApiValidator(JSON.parse(JSON.stringify(openApiDocument)));

/** Whether the gateway takes `body` past its shape check and the order service's own rules. */
function gatewayAccepts(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === "INVALID_REQUEST") return false;
    if (error instanceof ConnectError && error.code === Code.InvalidArgument) return false;
    throw error;
  }
}

const P1 = "11111111-1111-4111-8111-111111111111";
const P2 = "22222222-2222-4222-8222-222222222222";
const B1 = "33333333-3333-4333-8333-333333333333";
const buyer = { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" };
const order = { items: [{ product_id: P1, quantity: 1 }], buyer, payment_method: "qris" };
const distinctItems = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ product_id: `${String(i).padStart(8, "0")}-1111-4111-8111-111111111111`, quantity: 1 }));

/** [what the sample is, its body, whether both should accept it]. */
type Sample = [string, unknown, boolean];

// JSON Schema cannot say some of the order service's rules, so no sample here tries
// them; the document's descriptions state them instead: no id twice in one order, no
// mutation id twice in one call, a name or reason of only spaces, and the text rule
// (no control characters, no lone surrogates; docs/api.md#robustness).
const orderSamples: Sample[] = [
  ["a product paid with QRIS", order, true],
  ["a product and a bundle, with every optional field", { ...order, items: [{ product_id: P1, quantity: 2 }, { bundle_id: B1, quantity: 1 }], redirect: { success_url: "https://shop.example/thanks", return_url: "http://shop.example/back", error_url: "https://shop.example/oops" }, external_id: "INV-1001" }, true],
  ["no payment method (a free order)", { items: order.items, buyer }, true],
  ["an upper-case UUID", { ...order, items: [{ product_id: P1.toUpperCase(), quantity: 1 }] }, true],
  ["50 items", { ...order, items: distinctItems(50) }, true],
  ["quantity 1000", { ...order, items: [{ product_id: P1, quantity: 1000 }] }, true],
  ["a name of 100 characters", { ...order, buyer: { ...buyer, name: "a".repeat(100) } }, true],
  ["a phone of 8 digits", { ...order, buyer: { ...buyer, phone: "08123456" } }, true],
  ["an external id of 64 characters", { ...order, external_id: "x".repeat(64) }, true],
  ["no items", { ...order, items: [] }, false],
  ["51 items", { ...order, items: distinctItems(51) }, false],
  ["quantity 0", { ...order, items: [{ product_id: P1, quantity: 0 }] }, false],
  ["quantity 1001", { ...order, items: [{ product_id: P1, quantity: 1001 }] }, false],
  ["quantity 1.5", { ...order, items: [{ product_id: P1, quantity: 1.5 }] }, false],
  ["quantity as a string", { ...order, items: [{ product_id: P1, quantity: "2" }] }, false],
  ["an item with both ids", { ...order, items: [{ product_id: P1, bundle_id: P2, quantity: 1 }] }, false],
  ["an item with no id", { ...order, items: [{ quantity: 1 }] }, false],
  ["an id that is not a UUID", { ...order, items: [{ product_id: "kopi-250g", quantity: 1 }] }, false],
  ["no buyer", { items: order.items, payment_method: "qris" }, false],
  ["an empty name", { ...order, buyer: { ...buyer, name: "" } }, false],
  ["a name of 101 characters", { ...order, buyer: { ...buyer, name: "a".repeat(101) } }, false],
  ["an email without a domain", { ...order, buyer: { ...buyer, email: "budi@" } }, false],
  ["a phone of 7 digits", { ...order, buyer: { ...buyer, phone: "0812345" } }, false],
  ["a phone with dashes", { ...order, buyer: { ...buyer, phone: "+62-812-3456-7890" } }, false],
  ["an empty external id", { ...order, external_id: "" }, false],
  ["an external id of 65 characters", { ...order, external_id: "x".repeat(65) }, false],
  ["an ftp redirect", { ...order, redirect: { success_url: "ftp://shop.example/thanks" } }, false],
  ["a redirect that is no URL", { ...order, redirect: { error_url: "oops" } }, false],
  ["a redirect of 2049 characters", { ...order, redirect: { success_url: `https://shop.example/${"a".repeat(2028)}` } }, false],
  ["a payment method that is a number", { ...order, payment_method: 7 }, false],
  ["an unknown field", { ...order, coupon: "HEMAT10" }, false],
  ["an unknown field in an item", { ...order, items: [{ product_id: P1, quantity: 1, price: 1 }] }, false],
  ["an unknown field in the buyer", { ...order, buyer: { ...buyer, zip: "12345" } }, false],
  ["an unknown field in the redirect", { ...order, redirect: { cancel_url: "https://shop.example" } }, false],
  ["not an object", [order], false],
];

const refundSamples: Sample[] = [
  ["a reason only", { reason: "Order cancelled by the buyer" }, true],
  ["an amount, a reason and a reference", { amount: 50_000, reason: "One item was out of stock", reference: "BCA-TRF-20261121-0042" }, true],
  ["amount 1", { amount: 1, reason: "x" }, true],
  ["the largest safe amount", { amount: Number.MAX_SAFE_INTEGER, reason: "x" }, true],
  ["a reason of 200 characters", { reason: "r".repeat(200) }, true],
  ["an empty reference", { reason: "x", reference: "" }, true],
  ["a reference of 100 characters", { reason: "x", reference: "r".repeat(100) }, true],
  ["restock", { reason: "Returned unopened", restock: true }, true],
  ["restock false", { reason: "x", restock: false }, true],
  ["restock as a string", { reason: "x", restock: "yes" }, false],
  ["no reason", { amount: 1 }, false],
  ["an empty reason", { reason: "" }, false],
  ["a reason of 201 characters", { reason: "r".repeat(201) }, false],
  ["a reference of 101 characters", { reason: "x", reference: "r".repeat(101) }, false],
  ["amount 0", { amount: 0, reason: "x" }, false],
  ["a negative amount", { amount: -5, reason: "x" }, false],
  ["amount 1.5", { amount: 1.5, reason: "x" }, false],
  ["an amount past the safe integers", { amount: 2 ** 53, reason: "x" }, false],
  ["an amount as a string", { amount: "10", reason: "x" }, false],
  ["an unknown field", { reason: "x", extra: 1 }, false],
];

const mutation = { id: "BCA-20261120-000123", amount: 170_906, type: "credit", occurred_at: "2026-11-20T10:15:00+07:00", description: "TRSF E-BANKING CR" };
const mutations = (...list: object[]) => ({ mutations: list });
const manyMutations = (count: number) => mutations(...Array.from({ length: count }, (_, i) => ({ ...mutation, id: `M-${i}` })));
const mutationSamples: Sample[] = [
  ["a credit", mutations(mutation), true],
  ["a debit without a description", mutations({ id: "M-2", amount: 6_500, type: "debit", occurred_at: "2026-11-20T03:20:00Z" }), true],
  ["500 mutations", manyMutations(500), true],
  ["the largest amount", mutations({ ...mutation, amount: 10_000_000_000_000 }), true],
  ["an id of 100 characters", mutations({ ...mutation, id: "m".repeat(100) }), true],
  ["a description of 500 characters", mutations({ ...mutation, description: "d".repeat(500) }), true],
  ["no mutations", mutations(), false],
  ["501 mutations", manyMutations(501), false],
  ["amount 0", mutations({ ...mutation, amount: 0 }), false],
  ["an amount past the largest", mutations({ ...mutation, amount: 10_000_000_000_001 }), false],
  ["amount 1.5", mutations({ ...mutation, amount: 1.5 }), false],
  ["a type that is neither credit nor debit", mutations({ ...mutation, type: "refund" }), false],
  ["a time without an offset", mutations({ ...mutation, occurred_at: "2026-11-20T10:15:00" }), false],
  ["a date alone", mutations({ ...mutation, occurred_at: "2026-11-20" }), false],
  ["an empty id", mutations({ ...mutation, id: "" }), false],
  ["an id of 101 characters", mutations({ ...mutation, id: "m".repeat(101) }), false],
  ["a description of 501 characters", mutations({ ...mutation, description: "d".repeat(501) }), false],
  ["no time", mutations({ id: "M-3", amount: 1, type: "credit" }), false],
  ["an unknown field", mutations({ ...mutation, balance: 1 }), false],
];

// The catalog gives values their meaning (price range, stock ≥ 0, title length): these are the shapes the gateway checks.
const createItemSamples: Sample[] = [
  ["a product", { type: "product", title: "Kopi", price: 85000 }, true],
  ["a tracked published product with a slug", { type: "product", title: "Kopi", price: 0, slug: "kopi-gayo", status: "published", stock: 40 }, true],
  ["stock null", { type: "product", title: "Kopi", price: 1, stock: null }, true],
  ["a bundle", { type: "bundle", title: "Paket", price: 1, items: [{ product_id: P2, quantity: 2 }] }, true],
  ["no type", { title: "Kopi", price: 1 }, false],
  ["a type that is neither", { type: "service", title: "Kopi", price: 1 }, false],
  ["no title", { type: "product", price: 1 }, false],
  ["a price as a string", { type: "product", title: "Kopi", price: "1" }, false],
  ["a fractional stock", { type: "product", title: "Kopi", price: 1, stock: 1.5 }, false],
  ["a status that is none", { type: "product", title: "Kopi", price: 1, status: "hidden" }, false],
  ["a bundle line of quantity 0", { type: "bundle", title: "Paket", price: 1, items: [{ product_id: P2, quantity: 0 }] }, false],
  ["a bundle line without its product", { type: "bundle", title: "Paket", price: 1, items: [{ quantity: 2 }] }, false],
  ["an unknown field", { type: "product", title: "Kopi", price: 1, colour: "red" }, false],
];
const updateItemSamples: Sample[] = [
  ["nothing", {}, true],
  ["a price", { price: 90000 }, true],
  ["stock and status", { stock: 40, status: "published" }, true],
  ["stock null", { stock: null }, true],
  ["the type as it is", { type: "product" }, true],
  ["new products", { items: [{ product_id: P2, quantity: 1 }] }, true],
  ["a price as a string", { price: "90000" }, false],
  ["stock as a string", { stock: "none" }, false],
  ["an unknown field", { colour: "red" }, false],
];

const cases = [
  {
    operation: "POST /v1/orders",
    samples: orderSamples,
    gateway: (body: unknown) => validateCreateOrder(create(CreateOrderRequestSchema, createOrderFields(parseBody(createOrderBody, body)))),
  },
  {
    operation: "POST /v1/orders/{order_id}/refunds",
    samples: refundSamples,
    gateway: (body: unknown) => validateRefundOrder(create(RefundOrderRequestSchema, refundOrderFields(parseBody(refundOrderBody, body)))),
  },
  {
    operation: "POST /v1/products",
    samples: createItemSamples,
    gateway: (body: unknown) => createItemFields(STORE_ID, parseBody(createItemBody, body)),
  },
  {
    operation: "PATCH /v1/products/{product_id}",
    samples: updateItemSamples,
    gateway: (body: unknown) => updateItemFields(STORE_ID, P2, parseBody(updateItemBody, body)),
  },
  {
    operation: "POST /v1/bank-mutations",
    samples: mutationSamples,
    gateway: (body: unknown) => validateReconcileMutations(create(ReconcileMutationsRequestSchema, { mutations: mutationFields(parseBody(bankMutationsBody, body)) })),
  },
];

for (const { operation, samples, gateway } of cases) {
  test(`${operation}: the documented body accepts what the gateway accepts and refuses what it refuses`, (t) => {
    const [method, path] = operation.split(" ") as [string, string];
    for (const [name, body, accepted] of samples) {
      const problem = v.checkRequest(method, path, body);
      t.is(problem === undefined, accepted, `the document ${accepted ? "refuses" : "accepts"} ${name}${problem ? `: ${problem}` : ""}`);
      t.is(gatewayAccepts(() => gateway(body)), accepted, `the gateway ${accepted ? "refuses" : "accepts"} ${name}`);
    }
  });
}

test("the document's own request examples pass the gateway's checks", (t) => {
  for (const { operation, gateway } of cases) {
    const [method, path] = operation.split(" ") as [string, string];
    const examples = v.resolve(v.document.paths[path][method.toLowerCase()].requestBody).content["application/json"].examples;
    for (const [name, example] of Object.entries<{ value: unknown }>(examples)) {
      t.is(v.checkRequest(method, path, example.value), undefined, `${operation} example ${name}`);
      t.true(gatewayAccepts(() => gateway(example.value)), `${operation} example ${name}`);
    }
  }
});

const ORDER_ID = "44444444-4444-4444-8444-444444444444";
const STORE_ID = "55555555-5555-4555-8555-555555555555";
const rendered = create(OrderSchema, {
  id: ORDER_ID,
  storeId: STORE_ID,
  status: "paid",
  paymentReference: "SO-ABCDEFGHJKLM",
  amount: 50_123n,
  subtotal: 50_000n,
  currency: "IDR",
  settlementChannel: "seller_bank",
  paymentProvider: "manual",
  paymentMethod: "bank_transfer",
  buyer,
  items: [
    { type: "product", title: "Kopi", quantity: 1, unitPrice: 25_000n, lineTotal: 25_000n, productId: P1 },
    { type: "bundle", title: "Paket", quantity: 1, unitPrice: 25_000n, lineTotal: 25_000n, bundleId: B1 },
  ],
  externalId: "INV-1001",
  expiresAt: "2026-01-03T03:04:05.678Z",
  createdAt: "2026-01-02T03:04:05.678Z",
  updatedAt: "2026-01-02T04:05:06.789Z",
  checkoutUrl: `http://localhost:8080/checkout/${ORDER_ID}`,
  paymentUrl: `http://localhost:8080/checkout/${ORDER_ID}`,
  requiresPayment: false,
  refundedAmount: 10_000n,
  refunds: [
    { id: "66666666-6666-4666-8666-666666666666", amount: 10_000n, reason: "Rusak", status: "succeeded", method: "manual", createdAt: "2026-01-02T05:00:00.000Z" },
  ],
});

test("what the renderers make is what the document describes: orders, refunds, payments and webhook bodies", (t) => {
  const detail = orderDetailJson(
    create(OrderDetailSchema, {
      order: rendered,
      payment: {
        kind: "bank_transfer",
        sellerBank: { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Toko Kopi", paymentReference: "SO-ABCDEFGHJKLM", uniqueAmountCode: 123n, transferAmount: 50_123n },
        provider: "manual",
        method: "bank_transfer",
        amount: 50_123n,
        currency: "IDR",
        checkoutUrl: `http://localhost:8080/checkout/${ORDER_ID}`,
        paymentUrl: `http://localhost:8080/checkout/${ORDER_ID}`,
        expiresAt: "2026-01-03T03:04:05.678Z",
      },
      redirect: { successUrl: "https://shop.example/thanks", returnUrl: "https://shop.example/back", errorUrl: "https://shop.example/oops" },
    }),
  );
  t.is(v.checkSchema("OrderDetail", detail), undefined);
  t.is(v.checkResponse("GET", "/v1/orders/{order_id}", 200, { success: true, data: detail }), undefined);
  t.is(v.checkSchema("Refund", refundJson(rendered.refunds[0]!)), undefined);

  const paid = orderEventPayload("order.paid", new Date("2026-01-02T04:05:06.789Z"), STORE_ID, orderJson(rendered), "pending");
  t.is(v.checkSchema("WebhookEvent", paid), undefined);
  const refunded = refundEvent(
    { store_id: STORE_ID, order_id: ORDER_ID, status: "succeeded", updated_at: new Date("2026-01-02T05:00:00.000Z") },
    rendered,
    rendered.refunds[0]!,
  );
  t.is(v.checkSchema("WebhookEvent", refunded.payload), undefined);
  t.is(v.checkSchema("RefundEvent", refunded.payload), undefined);
  t.not(v.checkSchema("OrderEvent", refunded.payload), undefined, "a refund's body is not an order status event's");
});

test("a product and a bundle as the gateway renders them are the document's CatalogItem", (t) => {
  const at = timestampFromDate(new Date("2026-11-28T08:00:00.000Z"));
  const product = catalogItemJson(
    create(ItemSchema, { id: P1, storeId: STORE_ID, type: ItemType.PRODUCT, title: "Kopi", slug: "kopi", price: 85_000n, status: ItemStatus.DRAFT, stock: 3n, available: 1n, createdAt: at, updatedAt: at }),
  );
  t.deepEqual(product, { id: P1, type: "product", title: "Kopi", slug: "kopi", price: 85_000, status: "draft", stock: 3, available: 1, items: [], updated_at: "2026-11-28T08:00:00.000Z" });
  t.is(v.checkSchema("CatalogItem", product), undefined);
  const bundle = catalogItemJson(
    create(ItemSchema, {
      id: B1,
      storeId: STORE_ID,
      type: ItemType.BUNDLE,
      title: "Paket",
      slug: "paket",
      price: 150_000n,
      status: ItemStatus.ARCHIVED,
      productIds: [P1],
      bundleItems: [{ productId: P1, quantity: 2 }],
      createdAt: at,
      updatedAt: at,
    }),
  );
  t.like(bundle, { type: "bundle", status: "archived", stock: null, available: null, items: [{ product_id: P1, quantity: 2 }] });
  t.is(v.checkSchema("CatalogItem", bundle), undefined);
});
