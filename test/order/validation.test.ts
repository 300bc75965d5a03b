// Every validation rule of POST /v1/orders (docs/api.md) as a client meets it:
// 400 INVALID_REQUEST naming the offending field, and no order written.
import http from "node:http";
import { randomUUID } from "node:crypto";
import test, { type ExecutionContext } from "ava";
import { api, type ApiResponse } from "../helpers/http.js";
import { buyer, createBundle, createProduct, createStore, ItemStatus, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;

/** Fixtures shared by every case; the cases only read them. */
interface Fixtures {
  key: string;
  storeId: string;
  product: string;
  product2: string;
  bundle: string;
  draft: string;
  archived: string;
  huge: string;
  foreign: string;
  noBankKey: string;
  noBankStoreId: string;
  noBankProduct: string;
  starterKey: string;
  starterStoreId: string;
  starterProduct: string;
}
let f: Fixtures;

test.before(async () => {
  stack = await startStack();
  const main = await createStore(stack, Plan.GROWTH, "Validation Store");
  const other = await createStore(stack, Plan.GROWTH, "Other Store");
  const noBank = await createStore(stack, Plan.GROWTH, "x", false);
  const starter = await createStore(stack, Plan.STARTER, "Starter Store");
  const product = await createProduct(stack, main.storeId, "Kopi Gayo 250g", 85_000);
  const product2 = await createProduct(stack, main.storeId, "Teh Tarik", 25_000);
  const bundle = await createBundle(stack, main.storeId, "Paket Pagi", 100_000, [product.id, product2.id]);
  f = {
    key: main.key,
    storeId: main.storeId,
    product: product.id,
    product2: product2.id,
    bundle: bundle.id,
    draft: (await createProduct(stack, main.storeId, "Draft", 1_000, ItemStatus.DRAFT)).id,
    archived: (await createProduct(stack, main.storeId, "Archived", 1_000, ItemStatus.ARCHIVED)).id,
    huge: (await createProduct(stack, main.storeId, "Gedung", 1_000_000_000_000)).id,
    foreign: (await createProduct(stack, other.storeId, "Foreign", 1_000)).id,
    noBankKey: noBank.key,
    noBankStoreId: noBank.storeId,
    noBankProduct: (await createProduct(stack, noBank.storeId, "No bank product", 5_000)).id,
    starterKey: starter.key,
    starterStoreId: starter.storeId,
    starterProduct: (await createProduct(stack, starter.storeId, "Starter product", 5_000)).id,
  };
});

test.after.always(async () => {
  await stack?.close();
});

async function orderCount(storeId?: string): Promise<number> {
  const [row] = storeId
    ? await stack.orderSql<{ n: number }[]>`select count(*)::int as n from orders where store_id = ${storeId}`
    : await stack.orderSql<{ n: number }[]>`select count(*)::int as n from orders`;
  return row!.n;
}

/** A body that is valid as it stands; each case breaks one thing in it. */
function validBody(): Record<string, any> {
  return {
    items: [{ product_id: f.product, quantity: 1 }],
    buyer: { ...buyer },
    payment_method: "bank_transfer",
  };
}

function assertInvalid(t: ExecutionContext, response: ApiResponse, field: string, status = 400) {
  t.is(response.status, status, response.text);
  t.is(response.body?.success, false, response.text);
  t.is(response.body?.error?.code, "INVALID_REQUEST", response.text);
  t.is(typeof response.body?.error?.message, "string");
  t.true(response.body.error.message.length > 0);
  t.true(Array.isArray(response.body?.error?.details), response.text);
  t.is(response.body.error.details[0]?.field, field, response.text);
  t.is(typeof response.body.error.details[0]?.message, "string");
}

interface Case {
  title: string;
  field: string;
  body: () => unknown;
  key?: () => string;
  storeId?: () => string;
  headers?: () => Record<string, string>;
}

const longText = (n: number) => "a".repeat(n);

const cases: Case[] = [
  // items
  { title: "no items", field: "items", body: () => ({ ...validBody(), items: [] }) },
  { title: "items missing", field: "items", body: () => ({ buyer, payment_method: "bank_transfer" }) },
  { title: "items not an array", field: "items", body: () => ({ ...validBody(), items: { product_id: f.product, quantity: 1 } }) },
  {
    title: "51 items",
    field: "items",
    body: () => ({ ...validBody(), items: Array.from({ length: 51 }, () => ({ product_id: randomUUID(), quantity: 1 })) }),
  },
  { title: "quantity 0", field: "items[0].quantity", body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: 0 }] }) },
  { title: "quantity -1", field: "items[0].quantity", body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: -1 }] }) },
  {
    title: "quantity 1001",
    field: "items[0].quantity",
    body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: 1001 }] }),
  },
  {
    title: "quantity 1.5",
    field: "items[0].quantity",
    body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: 1.5 }] }),
  },
  {
    title: 'quantity "2" (a string)',
    field: "items[0].quantity",
    body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: "2" }] }),
  },
  { title: "quantity missing", field: "items[0].quantity", body: () => ({ ...validBody(), items: [{ product_id: f.product }] }) },
  {
    title: "quantity of the second item out of range",
    field: "items[1].quantity",
    body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: 1 }, { product_id: f.product2, quantity: 5000 }] }),
  },
  {
    title: "a product_id that is not a UUID",
    field: "items[0].product_id",
    body: () => ({ ...validBody(), items: [{ product_id: "kopi-gayo", quantity: 1 }] }),
  },
  {
    title: "a bundle_id that is not a UUID",
    field: "items[0].bundle_id",
    body: () => ({ ...validBody(), items: [{ bundle_id: "12345", quantity: 1 }] }),
  },
  {
    title: "a product_id that is a number",
    field: "items[0].product_id",
    body: () => ({ ...validBody(), items: [{ product_id: 42, quantity: 1 }] }),
  },
  {
    title: "both product_id and bundle_id",
    field: "items[0]",
    body: () => ({ ...validBody(), items: [{ product_id: f.product, bundle_id: f.bundle, quantity: 1 }] }),
  },
  { title: "neither product_id nor bundle_id", field: "items[0]", body: () => ({ ...validBody(), items: [{ quantity: 1 }] }) },
  {
    title: "neither id, on the second item",
    field: "items[1]",
    body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: 1 }, { quantity: 1 }] }),
  },
  {
    title: "the same product twice",
    field: "items[1].product_id",
    body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: 1 }, { product_id: f.product, quantity: 2 }] }),
  },
  {
    title: "the same product twice, once in upper case",
    field: "items[1].product_id",
    body: () => ({
      ...validBody(),
      items: [
        { product_id: f.product, quantity: 1 },
        { product_id: f.product.toUpperCase(), quantity: 2 },
      ],
    }),
  },
  {
    title: "the same bundle twice",
    field: "items[2].bundle_id",
    body: () => ({
      ...validBody(),
      items: [
        { bundle_id: f.bundle, quantity: 1 },
        { product_id: f.product, quantity: 1 },
        { bundle_id: f.bundle, quantity: 1 },
      ],
    }),
  },
  {
    title: "a product_id that names a bundle",
    field: "items[0].product_id",
    body: () => ({ ...validBody(), items: [{ product_id: f.bundle, quantity: 1 }] }),
  },
  {
    title: "a bundle_id that names a product",
    field: "items[0].bundle_id",
    body: () => ({ ...validBody(), items: [{ bundle_id: f.product, quantity: 1 }] }),
  },
  {
    title: "a draft product",
    field: "items[1].product_id",
    body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: 1 }, { product_id: f.draft, quantity: 1 }] }),
  },
  {
    title: "an archived product",
    field: "items[0].product_id",
    body: () => ({ ...validBody(), items: [{ product_id: f.archived, quantity: 1 }] }),
  },
  {
    title: "another store's product",
    field: "items[0].product_id",
    body: () => ({ ...validBody(), items: [{ product_id: f.foreign, quantity: 1 }] }),
  },
  {
    title: "a product that does not exist",
    field: "items[1].product_id",
    body: () => ({ ...validBody(), items: [{ bundle_id: f.bundle, quantity: 1 }, { product_id: randomUUID(), quantity: 1 }] }),
  },
  {
    title: "a bundle that does not exist",
    field: "items[0].bundle_id",
    body: () => ({ ...validBody(), items: [{ bundle_id: randomUUID(), quantity: 1 }] }),
  },
  {
    title: "a total over 1,000,000,000,000 IDR",
    field: "items",
    body: () => ({ ...validBody(), items: [{ product_id: f.huge, quantity: 2 }] }),
  },
  {
    title: "a total over 1,000,000,000,000 IDR across lines",
    field: "items",
    body: () => ({ ...validBody(), items: [{ product_id: f.huge, quantity: 1 }, { product_id: f.product, quantity: 1 }] }),
  },
  {
    title: "an unknown item field",
    field: "items[0].price",
    body: () => ({ ...validBody(), items: [{ product_id: f.product, quantity: 1, price: 1 }] }),
  },
  // buyer
  { title: "buyer missing", field: "buyer", body: () => ({ items: validBody().items, payment_method: "bank_transfer" }) },
  { title: "buyer not an object", field: "buyer", body: () => ({ ...validBody(), buyer: "Budi" }) },
  { title: "buyer name empty", field: "buyer.name", body: () => ({ ...validBody(), buyer: { ...buyer, name: "" } }) },
  { title: "buyer name only spaces", field: "buyer.name", body: () => ({ ...validBody(), buyer: { ...buyer, name: "   " } }) },
  { title: "buyer name of 101 characters", field: "buyer.name", body: () => ({ ...validBody(), buyer: { ...buyer, name: longText(101) } }) },
  { title: "buyer name missing", field: "buyer.name", body: () => ({ ...validBody(), buyer: { email: buyer.email, phone: buyer.phone } }) },
  { title: "buyer email without @", field: "buyer.email", body: () => ({ ...validBody(), buyer: { ...buyer, email: "budi.example.com" } }) },
  { title: "buyer email without a domain dot", field: "buyer.email", body: () => ({ ...validBody(), buyer: { ...buyer, email: "budi@localhost" } }) },
  { title: "buyer email with a space", field: "buyer.email", body: () => ({ ...validBody(), buyer: { ...buyer, email: "bu di@example.com" } }) },
  { title: "buyer email empty", field: "buyer.email", body: () => ({ ...validBody(), buyer: { ...buyer, email: "" } }) },
  { title: "buyer phone too short (7 digits)", field: "buyer.phone", body: () => ({ ...validBody(), buyer: { ...buyer, phone: "0812345" } }) },
  { title: "buyer phone with letters", field: "buyer.phone", body: () => ({ ...validBody(), buyer: { ...buyer, phone: "0812abc4567" } }) },
  {
    title: "buyer phone too long (21 digits)",
    field: "buyer.phone",
    body: () => ({ ...validBody(), buyer: { ...buyer, phone: "+" + "1".repeat(21) } }),
  },
  { title: "buyer phone with spaces", field: "buyer.phone", body: () => ({ ...validBody(), buyer: { ...buyer, phone: "0812 3456 7890" } }) },
  { title: "buyer phone with + not leading", field: "buyer.phone", body: () => ({ ...validBody(), buyer: { ...buyer, phone: "62+81234567890" } }) },
  { title: "buyer phone as a number", field: "buyer.phone", body: () => ({ ...validBody(), buyer: { ...buyer, phone: 6281234567890 } }) },
  { title: "an unknown buyer field", field: "buyer.address", body: () => ({ ...validBody(), buyer: { ...buyer, address: "Jl. Sudirman" } }) },
  // payment_method
  { title: "an unknown payment_method", field: "payment_method", body: () => ({ ...validBody(), payment_method: "paypal" }) },
  { title: "payment_method not a string", field: "payment_method", body: () => ({ ...validBody(), payment_method: 1 }) },
  {
    title: "payment_method omitted with a total above 0",
    field: "payment_method",
    body: () => ({ items: validBody().items, buyer }),
  },
  { title: "payment_method empty with a total above 0", field: "payment_method", body: () => ({ ...validBody(), payment_method: "" }) },
  {
    title: "bank_transfer at a store without a bank account",
    field: "payment_method",
    key: () => f.noBankKey,
    storeId: () => f.noBankStoreId,
    body: () => ({ ...validBody(), items: [{ product_id: f.noBankProduct, quantity: 1 }], payment_method: "bank_transfer" }),
  },
  // redirect
  {
    title: "redirect.success_url not absolute",
    field: "redirect.success_url",
    body: () => ({ ...validBody(), redirect: { success_url: "/thanks" } }),
  },
  {
    title: "redirect.success_url with ftp:",
    field: "redirect.success_url",
    body: () => ({ ...validBody(), redirect: { success_url: "ftp://shop.example.com/thanks" } }),
  },
  {
    title: "redirect.return_url with javascript:",
    field: "redirect.return_url",
    body: () => ({ ...validBody(), redirect: { success_url: "https://shop.example.com/ok", return_url: "javascript:alert(1)" } }),
  },
  {
    title: "redirect.error_url not a URL",
    field: "redirect.error_url",
    body: () => ({ ...validBody(), redirect: { error_url: "not a url" } }),
  },
  {
    title: "an unknown redirect field",
    field: "redirect.cancel_url",
    body: () => ({ ...validBody(), redirect: { cancel_url: "https://shop.example.com/cancel" } }),
  },
  { title: "redirect not an object", field: "redirect", body: () => ({ ...validBody(), redirect: "https://shop.example.com" }) },
  // external_id
  { title: "external_id of 65 characters", field: "external_id", body: () => ({ ...validBody(), external_id: longText(65) }) },
  { title: "external_id not a string", field: "external_id", body: () => ({ ...validBody(), external_id: 12345 }) },
  // the body as a whole
  { title: "an unknown top-level field", field: "coupon", body: () => ({ ...validBody(), coupon: "HEMAT10" }) },
  { title: "a body that is an array", field: "body", body: () => [validBody()] },
  { title: "a body that is a string", field: "body", body: () => "order please" },
  { title: "a body that is null", field: "body", body: () => null },
  {
    title: "an Idempotency-Key over 255 characters",
    field: "Idempotency-Key",
    body: () => validBody(),
    headers: () => ({ "idempotency-key": "k".repeat(256) }),
  },
];

for (const c of cases) {
  test(`POST /v1/orders refuses ${c.title}: 400 on ${c.field}, no order`, async (t) => {
    const storeId = c.storeId?.() ?? f.storeId;
    const before = await orderCount(storeId);
    const response = await api(stack.baseUrl, "/v1/orders", {
      method: "POST",
      key: c.key?.() ?? f.key,
      headers: c.headers?.(),
      json: c.body(),
    });
    assertInvalid(t, response, c.field);
    t.is(await orderCount(storeId), before);
  });
}

test("POST /v1/orders without a body is 400 INVALID_REQUEST, no order", async (t) => {
  const before = await orderCount(f.storeId);
  const response = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: f.key });
  assertInvalid(t, response, "body");
  const empty = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: f.key,
    headers: { "content-type": "application/json" },
    body: "",
  });
  t.is(empty.status, 400, empty.text);
  t.is(empty.body?.error?.code, "INVALID_REQUEST");
  t.is(await orderCount(f.storeId), before);
});

test("POST /v1/orders with malformed JSON is 400 INVALID_REQUEST, no order", async (t) => {
  const before = await orderCount(f.storeId);
  for (const text of ['{"items": [', "{'items': []}", '{"items":[],}']) {
    const response = await api(stack.baseUrl, "/v1/orders", {
      method: "POST",
      key: f.key,
      headers: { "content-type": "application/json" },
      body: text,
    });
    t.is(response.status, 400, response.text);
    t.is(response.body?.error?.code, "INVALID_REQUEST");
  }
  t.is(await orderCount(f.storeId), before);
});

test("every invalid field is in details, in the body's order, and the message names the first; no order", async (t) => {
  const before = await orderCount(f.storeId);
  const fields = (response: ApiResponse) => response.body.error.details.map((d: { field: string }) => d.field);
  // Values the order service refuses: buyer written before items, so its fields come first.
  const rules = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: f.key,
    json: {
      buyer: { ...buyer, name: "", email: "nope" },
      items: [{ product_id: f.product, quantity: 0 }],
      payment_method: "bank_transfer",
      redirect: { success_url: "/thanks" },
    },
  });
  assertInvalid(t, rules, "buyer.name");
  t.deepEqual(fields(rules), ["buyer.name", "buyer.email", "items[0].quantity", "redirect.success_url"], rules.text);
  t.is(rules.body.error.message, "buyer.name: must be 1 to 100 characters");
  // Types and unknown fields the gateway refuses before any service is asked.
  const shape = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: f.key,
    json: { items: [{ product_id: f.product, quantity: "2" }], buyer: { ...buyer, phone: 6281234567890 }, coupon: "HEMAT10" },
  });
  assertInvalid(t, shape, "items[0].quantity");
  t.deepEqual(shape.body.error.details, [
    { field: "items[0].quantity", message: "must be a number" },
    { field: "buyer.phone", message: "must be a string" },
    { field: "coupon", message: "is not a known field" },
  ]);
  t.is(shape.body.error.message, "items[0].quantity: must be a number");
  t.is(await orderCount(f.storeId), before);
});

test("a starter store gets 403 PLAN_REQUIRED before its body is validated", async (t) => {
  const before = await orderCount(f.starterStoreId);
  for (const json of [{}, { items: [] }, { items: [{ product_id: f.starterProduct, quantity: 1 }], buyer, payment_method: "qris" }]) {
    const response = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: f.starterKey, json });
    t.is(response.status, 403, response.text);
    t.is(response.body?.success, false);
    t.is(response.body?.error?.code, "PLAN_REQUIRED");
  }
  // Not even a body that is not JSON at all is looked at.
  const plain = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: f.starterKey,
    headers: { "content-type": "text/plain" },
    body: "hello",
  });
  t.is(plain.status, 403, plain.text);
  t.is(plain.body?.error?.code, "PLAN_REQUIRED");
  t.is(await orderCount(f.starterStoreId), before);
});

interface RawResponse {
  status: number;
  text: string;
  body: any;
}

/** A request whose whole body is written before the response is read (no EPIPE races). */
function rawPost(path: string, headers: Record<string, string>, body: string, chunked = false): Promise<RawResponse> {
  const url = new URL(stack.baseUrl + path);
  const bytes = Buffer.from(body);
  const all = { ...headers, ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(bytes.length) }) };
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: all, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: any;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: response.statusCode!, text, body: parsed });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    if (chunked) {
      for (let at = 0; at < bytes.length; at += 16 * 1024) request.write(bytes.subarray(at, at + 16 * 1024));
      request.end();
    } else {
      request.end(bytes);
    }
  });
}

test("POST /v1/orders with a body over 64 KiB is 413 INVALID_REQUEST, no order", async (t) => {
  const before = await orderCount(f.storeId);
  const big = JSON.stringify({ ...validBody(), external_id: "x".repeat(70 * 1024) });
  for (const chunked of [false, true]) {
    const response = await rawPost("/v1/orders", { authorization: `Bearer ${f.key}`, "content-type": "application/json" }, big, chunked);
    t.is(response.status, 413, response.text);
    t.is(response.body?.success, false);
    t.is(response.body?.error?.code, "INVALID_REQUEST");
  }
  t.is(await orderCount(f.storeId), before);
});

test("POST /v1/orders with a body that is not JSON is 415 INVALID_REQUEST, no order", async (t) => {
  const before = await orderCount(f.storeId);
  const valid = JSON.stringify(validBody());
  for (const contentType of ["text/plain", "application/x-www-form-urlencoded", undefined]) {
    const headers: Record<string, string> = { authorization: `Bearer ${f.key}` };
    if (contentType) headers["content-type"] = contentType;
    const response = await rawPost("/v1/orders", headers, valid);
    t.is(response.status, 415, response.text);
    t.is(response.body?.success, false);
    t.is(response.body?.error?.code, "INVALID_REQUEST");
  }
  t.is(await orderCount(f.storeId), before);
});

test("values at the edges of every rule are accepted", async (t) => {
  const edge = await createStore(stack, Plan.GROWTH, "Edge Store");
  const products = [];
  for (let n = 0; n < 50; n++) products.push(await createProduct(stack, edge.storeId, `Edge ${n}`, 1_000));
  const accepted = [
    {
      items: products.map((p, n) => ({ product_id: p.id, quantity: n === 0 ? 1000 : 1 })),
      buyer: { name: longText(100), email: "a@b.co", phone: "12345678" },
      payment_method: "bank_transfer",
      external_id: longText(64),
      redirect: { success_url: "http://shop.example.com/ok", return_url: "https://shop.example.com/back", error_url: "https://shop.example.com/err" },
    },
    {
      items: [{ product_id: products[0]!.id.toUpperCase(), quantity: 1 }],
      buyer: { name: " Budi ", email: "budi+orders@mail.example.co.id", phone: "+" + "9".repeat(20) },
      payment_method: "qris",
    },
  ];
  for (const json of accepted) {
    const response = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: edge.key, json });
    t.is(response.status, 201, response.text);
  }
  t.is(await orderCount(edge.storeId), 2);
  const first = await api(stack.baseUrl, "/v1/orders?limit=50", { key: edge.key });
  const big = first.body.data.items.find((o: any) => o.items.length === 50);
  t.is(big.subtotal, 1_000 * 1000 + 49 * 1_000);
  t.is(big.buyer.name, longText(100));
  t.is(big.external_id, longText(64));
  const small = first.body.data.items.find((o: any) => o.items.length === 1);
  t.is(small.items[0].product_id, products[0]!.id, "ids are stored in their canonical lower case");
  t.is(small.buyer.name, "Budi", "the name is trimmed");
});
