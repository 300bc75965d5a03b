import test from "ava";
import { api } from "../helpers/http.js";
import { createProduct, createStore, ItemStatus, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
/** A store with exactly four published items (three products and a bundle) plus a draft and an archived one. */
let four: { key: string; ids: string[] };
/** A store with 21 published products. */
let many: { key: string; ids: string[] };

test.before(async () => {
  stack = await startStack();

  const a = await createStore(stack, undefined, "Four Items");
  const p1 = await createProduct(stack, a.storeId, "First", 1000);
  await createProduct(stack, a.storeId, "Draft", 10, ItemStatus.DRAFT);
  const p2 = await createProduct(stack, a.storeId, "Second", 2000);
  await createProduct(stack, a.storeId, "Archived", 10, ItemStatus.ARCHIVED);
  const p3 = await createProduct(stack, a.storeId, "Third", 3000);
  const { item: bundle } = await stack.catalog.createBundle({
    storeId: a.storeId,
    title: "Bundle",
    price: 4500n,
    status: ItemStatus.PUBLISHED,
    productIds: [p1.id, p2.id],
  });
  await stack.catalog.createBundle({
    storeId: a.storeId,
    title: "Draft bundle",
    price: 1n,
    status: ItemStatus.DRAFT,
    productIds: [p3.id],
  });
  four = { key: a.key, ids: [p1.id, p2.id, p3.id, bundle!.id] };

  const b = await createStore(stack, undefined, "Many Items");
  const ids: string[] = [];
  for (let n = 0; n < 21; n++) ids.push((await createProduct(stack, b.storeId, `Item ${n}`, 100 + n)).id);
  many = { key: b.key, ids };
});
test.after.always(async () => {
  await stack?.close();
});

const list = (key: string, query = "") => api(stack.baseUrl, `/v1/products${query}`, { key });

const invalid: [string, string][] = [
  ["limit=0", "limit"],
  ["limit=51", "limit"],
  ["limit=1.5", "limit"],
  ["limit=10abc", "limit"],
  ["limit=-1", "limit"],
  ["limit=", "limit"],
  ["limit=2&limit=3", "limit"],
  ["limit=+5", "limit"],
  ["limit=%205", "limit"],
  ["limit=1e1", "limit"],
  ["limit=abc", "limit"],
  ["offset=-1", "offset"],
  ["offset=1.5", "offset"],
  ["offset=", "offset"],
  ["offset=1x", "offset"],
  ["offset=0&offset=0", "offset"],
];

for (const [query, field] of invalid) {
  test(`?${query} is 400 INVALID_REQUEST naming ${field}`, async (t) => {
    const response = await list(four.key, `?${query}`);
    t.is(response.status, 400, response.text);
    t.false(response.body.success);
    t.is(response.body.error.code, "INVALID_REQUEST");
    t.is(typeof response.body.error.message, "string");
    t.true(Array.isArray(response.body.error.details));
    t.is(response.body.error.details[0]?.field, field);
    t.is(typeof response.body.error.details[0]?.message, "string");
  });
}

test("limit=1 and limit=50 are accepted", async (t) => {
  const one = await list(many.key, "?limit=1");
  t.is(one.status, 200, one.text);
  t.deepEqual(
    one.body.data.items.map((item: any) => item.id),
    [many.ids[0]],
  );
  t.true(one.body.data.has_more);

  const fifty = await list(many.key, "?limit=50");
  t.is(fifty.status, 200, fifty.text);
  t.deepEqual(
    fifty.body.data.items.map((item: any) => item.id),
    many.ids,
  );
  t.false(fifty.body.data.has_more);
});

test("the default limit is 20 and the default offset is 0", async (t) => {
  const first = await list(many.key);
  t.is(first.status, 200);
  t.is(first.body.data.items.length, 20);
  t.deepEqual(
    first.body.data.items.map((item: any) => item.id),
    many.ids.slice(0, 20),
  );
  t.true(first.body.data.has_more);

  const rest = await list(many.key, "?offset=20");
  t.deepEqual(
    rest.body.data.items.map((item: any) => item.id),
    [many.ids[20]],
  );
  t.false(rest.body.data.has_more);

  t.deepEqual((await list(many.key, "?offset=0")).body, first.body);
  t.deepEqual((await list(many.key, "?limit=20")).body, first.body);
});

test("has_more is exact at the boundary", async (t) => {
  const page = async (query: string) => {
    const response = await list(four.key, query);
    t.is(response.status, 200, response.text);
    return { ids: response.body.data.items.map((item: any) => item.id), hasMore: response.body.data.has_more };
  };
  t.deepEqual(await page("?limit=4"), { ids: four.ids, hasMore: false });
  t.deepEqual(await page("?limit=3"), { ids: four.ids.slice(0, 3), hasMore: true });
  t.deepEqual(await page("?limit=5"), { ids: four.ids, hasMore: false });
  t.deepEqual(await page("?offset=3&limit=1"), { ids: four.ids.slice(3), hasMore: false });
  t.deepEqual(await page("?offset=2&limit=1"), { ids: four.ids.slice(2, 3), hasMore: true });
  t.deepEqual(await page("?offset=4"), { ids: [], hasMore: false });
  t.deepEqual(await page("?offset=100&limit=50"), { ids: [], hasMore: false });
});

test("unknown query parameters are ignored", async (t) => {
  const plain = await list(four.key, "?limit=2");
  const noisy = await list(four.key, "?limit=2&foo=bar&sort=desc&page=9&status=draft&limit_=7&LIMIT=0&offset_x=");
  t.is(noisy.status, 200, noisy.text);
  t.deepEqual(noisy.body, plain.body);
});

test("drafts and archived items are never listed; bundles are listed with type bundle", async (t) => {
  const response = await list(four.key, "?limit=50");
  t.is(response.status, 200);
  const items = response.body.data.items;
  t.deepEqual(
    items.map((item: any) => item.title),
    ["First", "Second", "Third", "Bundle"],
  );
  t.true(items.every((item: any) => item.status === "published"));
  t.deepEqual(
    items.map((item: any) => item.type),
    ["product", "product", "product", "bundle"],
  );
  t.like(items[3], {
    id: four.ids[3],
    type: "bundle",
    title: "Bundle",
    slug: "bundle",
    price: 4500,
    status: "published",
    // Nothing tracks stock here, so nothing limits it (docs/catalog.md#availability).
    stock: null,
    available: null,
  });
  t.deepEqual(
    Object.keys(items[3]).sort(),
    ["available", "id", "items", "price", "slug", "status", "stock", "title", "type", "updated_at"],
  );
  t.deepEqual(items[3].items, [
    { product_id: four.ids[0], quantity: 1 },
    { product_id: four.ids[1], quantity: 1 },
  ]);
  t.like(items[0], {
    id: four.ids[0],
    type: "product",
    title: "First",
    slug: "first",
    price: 1000,
    status: "published",
    stock: null,
    available: null,
  });
  t.deepEqual(items[0].items, [], "a product holds no products");
});
