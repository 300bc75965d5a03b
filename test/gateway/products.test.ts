import test from "ava";
import { api, waitFor } from "../helpers/http.js";
import { createProduct, createStore, ItemStatus, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.close();
});

test("lists only the key's own published items, oldest first, across pages", async (t) => {
  const a = await createStore(stack, undefined, "Store A");
  const b = await createStore(stack, undefined, "Store B");
  const mine = [];
  for (let n = 0; n < 5; n++) mine.push(await createProduct(stack, a.storeId, `A product ${n}`, 1000 + n));
  await createProduct(stack, b.storeId, "B product", 5000);
  await createProduct(stack, a.storeId, "A draft", 10, ItemStatus.DRAFT);
  await createProduct(stack, a.storeId, "A archived", 10, ItemStatus.ARCHIVED);
  const { item: bundle } = await stack.catalog.createBundle({
    storeId: a.storeId,
    title: "A bundle",
    price: 1500n,
    status: ItemStatus.PUBLISHED,
    productIds: [mine[0]!.id, mine[1]!.id],
  });

  const seen: any[] = [];
  for (let offset = 0; ; offset += 2) {
    const page = await api(stack.baseUrl, `/v1/products?limit=2&offset=${offset}`, { key: a.key });
    t.is(page.status, 200);
    t.true(page.body.success);
    seen.push(...page.body.data.items);
    if (!page.body.data.has_more) break;
  }
  t.deepEqual(
    seen.map((item) => item.id),
    [...mine.map((item) => item.id), bundle!.id],
  );
  t.deepEqual(seen.at(-1), {
    id: bundle!.id,
    type: "bundle",
    title: "A bundle",
    slug: "a-bundle",
    price: 1500,
    status: "published",
    stock: null,
    available: null,
    items: [
      { product_id: mine[0]!.id, quantity: 1 },
      { product_id: mine[1]!.id, quantity: 1 },
    ],
    updated_at: seen.at(-1).updated_at,
  });
  t.false(Number.isNaN(Date.parse(seen.at(-1).updated_at)));
  t.true(seen.slice(0, 5).every((item) => item.type === "product" && item.status === "published"));

  const other = await api(stack.baseUrl, "/v1/products", { key: b.key });
  t.deepEqual(other.body.data.items.map((item: any) => item.title), ["B product"]);
  t.false(other.body.data.has_more);
});

/** A key of the store with only `scopes`. */
async function keyWith(storeId: string, scopes: string[]): Promise<string> {
  return (await stack.stores.createApiKey({ storeId, name: scopes.join(" "), scopes })).secret;
}

test("a product and a bundle made with POST, read with GET in any status, changed with PATCH; drafts are not listed until published", async (t) => {
  const { storeId, key, keyId } = await createStore(stack, Plan.GROWTH, "Toko Kopi");
  const created = await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "product", title: "Kopi Gayo", price: 85_000, stock: 10 } });
  t.is(created.status, 201);
  const kopi = created.body.data;
  t.like(kopi, { type: "product", title: "Kopi Gayo", slug: "kopi-gayo", price: 85_000, status: "draft", stock: 10, available: 10, items: [] });
  const teh = (await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "product", title: "Teh", price: 20_000, status: "published" } })).body.data;
  t.like(teh, { status: "published", stock: null, available: null });

  const bundle = await api(stack.baseUrl, "/v1/products", {
    method: "POST",
    key,
    json: { type: "bundle", title: "Paket Pagi", price: 150_000, slug: "paket-pagi", items: [{ product_id: kopi.id, quantity: 2 }, { product_id: teh.id, quantity: 1 }] },
  });
  t.is(bundle.status, 201);
  // Two Kopi a bundle, ten on hand: five bundles; Teh tracks nothing and does not limit.
  t.like(bundle.body.data, { type: "bundle", slug: "paket-pagi", status: "draft", stock: null, available: 5 });
  t.deepEqual(bundle.body.data.items, [
    { product_id: kopi.id, quantity: 2 },
    { product_id: teh.id, quantity: 1 },
  ]);

  const read = await api(stack.baseUrl, `/v1/products/${kopi.id}`, { key });
  t.is(read.status, 200);
  t.deepEqual(read.body.data, kopi, "a draft is read by id, as it was made");
  t.deepEqual((await api(stack.baseUrl, "/v1/products", { key })).body.data.items.map((item: any) => item.id), [teh.id]);

  const patched = await api(stack.baseUrl, `/v1/products/${kopi.id}`, { method: "PATCH", key, json: { price: 90_000, status: "published", stock: 4, type: "product" } });
  t.is(patched.status, 200);
  t.like(patched.body.data, { id: kopi.id, title: "Kopi Gayo", price: 90_000, status: "published", stock: 4, available: 4 });
  t.true(Date.parse(patched.body.data.updated_at) >= Date.parse(kopi.updated_at));
  t.like((await api(stack.baseUrl, `/v1/products/${bundle.body.data.id}`, { key })).body.data, { available: 2 });

  const untracked = await api(stack.baseUrl, `/v1/products/${kopi.id}`, { method: "PATCH", key, json: { stock: null } });
  t.like(untracked.body.data, { price: 90_000, stock: null, available: null });
  const regrouped = await api(stack.baseUrl, `/v1/products/${bundle.body.data.id}`, { method: "PATCH", key, json: { items: [{ product_id: teh.id, quantity: 3 }], title: "Paket Teh" } });
  t.is(regrouped.status, 200);
  t.like(regrouped.body.data, { title: "Paket Teh", slug: "paket-pagi", items: [{ product_id: teh.id, quantity: 3 }] });

  // Listed once published, the new price and all: the catalog's change hint reaches this gateway's cache.
  await waitFor(async () => {
    const items = (await api(stack.baseUrl, "/v1/products", { key })).body.data.items;
    return items.some((item: any) => item.id === kopi.id && item.price === 90_000);
  }, 5_000);
  const archived = await api(stack.baseUrl, `/v1/products/${teh.id}`, { method: "PATCH", key, json: { status: "archived" } });
  t.like(archived.body.data, { status: "archived" });
  t.like((await api(stack.baseUrl, `/v1/products/${teh.id}`, { key })).body.data, { status: "archived" }, "an archived item is still read by id");

  // Each change is in the store's audit log, by the key that made it.
  const kopiEntries = (await stack.auditLog(storeId)).filter((entry) => entry.target.endsWith(kopi.id));
  t.deepEqual(kopiEntries.map((entry) => entry.action).sort(), ["product.created", "product.updated", "product.updated"]);
  t.true(kopiEntries.every((entry) => entry.actor === `key:${keyId}`), JSON.stringify(kopiEntries.map((entry) => entry.actor)));
});

test("a slug given that another item has is 409 CONFLICT naming slug; one made from the title gets -2", async (t) => {
  const { key } = await createStore(stack, Plan.GROWTH, "Toko Slug");
  const first = await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "product", title: "Batik Tulis", price: 1 } });
  t.is(first.body.data.slug, "batik-tulis");
  const derived = await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "product", title: "Batik Tulis", price: 2 } });
  t.is(derived.status, 201);
  t.is(derived.body.data.slug, "batik-tulis-2");

  const given = await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "product", title: "Other", price: 3, slug: "batik-tulis" } });
  t.is(given.status, 409);
  t.is(given.body.error.code, "CONFLICT");
  t.deepEqual(given.body.error.details.map((d: any) => d.field), ["slug"]);
  const patched = await api(stack.baseUrl, `/v1/products/${derived.body.data.id}`, { method: "PATCH", key, json: { slug: "batik-tulis" } });
  t.is(patched.status, 409);
  t.deepEqual(patched.body.error.details.map((d: any) => d.field), ["slug"]);
  t.is((await api(stack.baseUrl, `/v1/products/${derived.body.data.id}`, { key })).body.data.slug, "batik-tulis-2", "nothing changed");
});

test("wrong fields are 400 naming each in the body's own words; a product's type never changes", async (t) => {
  const { key } = await createStore(stack, Plan.GROWTH, "Toko Salah");
  const shapes = await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "service", title: 7, price: "1", stock: 1.5, colour: "red" } });
  t.is(shapes.status, 400);
  t.deepEqual(shapes.body.error.details.map((d: any) => d.field), ["type", "title", "price", "stock", "colour"]);

  // Values are the catalog's to check; each is named as the body has it.
  for (const [field, value] of [["price", -1], ["stock", -5], ["title", ""], ["title", "Kopi\u0000"], ["slug", "Not A Slug"]] as const) {
    const wrong = await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "product", title: "Kopi", price: 1, [field]: value } });
    t.is(wrong.status, 400, field);
    t.deepEqual(wrong.body.error.details.map((d: any) => d.field), [field]);
  }

  const productWithItems = await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "product", title: "Kopi", price: 1, items: [] } });
  t.is(productWithItems.status, 400);
  t.deepEqual(productWithItems.body.error.details.map((d: any) => d.field), ["items"]);

  const kopi = (await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "product", title: "Kopi", price: 1 } })).body.data;
  const badLine = await api(stack.baseUrl, "/v1/products", { method: "POST", key, json: { type: "bundle", title: "Paket", price: 1, items: [{ product_id: kopi.id, quantity: 0 }] } });
  t.is(badLine.status, 400);
  t.true(badLine.body.error.details.every((d: any) => d.field.startsWith("items")), JSON.stringify(badLine.body.error.details));

  const retype = await api(stack.baseUrl, `/v1/products/${kopi.id}`, { method: "PATCH", key, json: { type: "bundle", price: 5 } });
  t.is(retype.status, 400);
  t.deepEqual(retype.body.error.details.map((d: any) => d.field), ["type"]);
  const itemsOfProduct = await api(stack.baseUrl, `/v1/products/${kopi.id}`, { method: "PATCH", key, json: { items: [{ product_id: kopi.id, quantity: 1 }] } });
  t.is(itemsOfProduct.status, 400);
  t.deepEqual(itemsOfProduct.body.error.details.map((d: any) => d.field), ["items"]);
  const badId = await api(stack.baseUrl, "/v1/products/not-an-id", { key });
  t.is(badId.status, 400);
  t.deepEqual(badId.body.error.details.map((d: any) => d.field), ["product_id"]);
  t.like((await api(stack.baseUrl, `/v1/products/${kopi.id}`, { key })).body.data, { type: "product", price: 1 }, "nothing changed");
});

test("a key without catalog:write reads but is 403 on POST and PATCH, changing nothing; another store's item is 404", async (t) => {
  const a = await createStore(stack, Plan.GROWTH, "Toko A");
  const b = await createStore(stack, Plan.GROWTH, "Toko B");
  const reader = await keyWith(a.storeId, ["catalog:read", "orders:read", "orders:write"]);
  const kopi = (await api(stack.baseUrl, "/v1/products", { method: "POST", key: a.key, json: { type: "product", title: "Kopi", price: 1 } })).body.data;

  const create = await api(stack.baseUrl, "/v1/products", { method: "POST", key: reader, json: { type: "product", title: "Teh", price: 1 } });
  t.is(create.status, 403);
  t.is(create.body.error.code, "FORBIDDEN");
  t.regex(create.body.error.message, /catalog:write/);
  const patch = await api(stack.baseUrl, `/v1/products/${kopi.id}`, { method: "PATCH", key: reader, json: { price: 2 } });
  t.is(patch.status, 403);
  const read = await api(stack.baseUrl, `/v1/products/${kopi.id}`, { key: reader });
  t.is(read.status, 200);
  t.is(read.body.data.price, 1, "the refused PATCH changed nothing");
  const writerOnly = await keyWith(a.storeId, ["catalog:write"]);
  t.is((await api(stack.baseUrl, `/v1/products/${kopi.id}`, { key: writerOnly })).status, 403, "reading needs catalog:read");

  t.is((await api(stack.baseUrl, `/v1/products/${kopi.id}`, { key: b.key })).status, 404);
  const foreign = await api(stack.baseUrl, `/v1/products/${kopi.id}`, { method: "PATCH", key: b.key, json: { price: 2 } });
  t.is(foreign.status, 404);
  t.is(foreign.body.error.code, "NOT_FOUND");
  t.is((await api(stack.baseUrl, `/v1/products/${kopi.id}`, { method: "PATCH", key: b.key, json: { type: "product" } })).status, 404);
  t.is((await api(stack.baseUrl, `/v1/products/${kopi.id}`, { key: a.key })).body.data.price, 1);
});
