// The catalog's Connect routes in memory (createRouterTransport) over the real domain
// modules and a database of the test's own: every RPC's answer, its argument errors, and
// that one store never reaches another's keys or items. No server.
import { OPERATOR } from "../../common/actor.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { CatalogService, ItemStatus, ItemType, Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { API_KEY_PATTERN, hashApiKey } from "../../services/catalog/api-keys.js";
import { createCatalogDomain } from "../../services/catalog/domain.js";
import { createCatalogRoutes } from "../../services/catalog/routes.js";
import { createLogger } from "../../platform/logger.js";
import { catalogDatabase } from "../helpers/catalog-router.js";

async function setup(t: ExecutionContext) {
  const sql = await catalogDatabase(t);
  const domain = createCatalogDomain({ sql, logger: createLogger("test", "silent") });
  // Every call is the operator's, as from store-admin; roles are catalog-roles.router.test.ts's.
  const transport = createRouterTransport(createCatalogRoutes(domain), { transport: { interceptors: [actorInterceptor(OPERATOR)] } });
  return { sql, stores: createClient(StoreService, transport), catalog: createClient(CatalogService, transport) };
}

type Clients = Awaited<ReturnType<typeof setup>>;

async function rejects(t: ExecutionContext, call: Promise<unknown>, code: Code, message?: RegExp) {
  const error = await t.throwsAsync(call);
  const connectError = ConnectError.from(error);
  t.is(connectError.code, code, `expected ${Code[code]}, got ${Code[connectError.code]}: ${connectError.rawMessage}`);
  if (message) t.regex(connectError.rawMessage, message);
}

async function newStore({ stores }: Clients, plan = Plan.GROWTH) {
  const { store } = await stores.createStore({ name: "Toko Router", plan });
  return store!.id;
}

async function newProduct({ catalog }: Clients, storeId: string, title = "Kaos Polos", price = 50_000n, status = ItemStatus.UNSPECIFIED) {
  const { item } = await catalog.createProduct({ storeId, title, price, status });
  return item!;
}

// StoreService

test("CreateStore: the store with its plan, bank account and redirects; growth when no plan is named", async (t) => {
  const { stores } = await setup(t);
  const { store } = await stores.createStore({
    name: "  Toko Batik  ",
    plan: Plan.SCALE,
    bankAccount: { bankName: "Bank Mandiri", bankCode: "MANDIRI", accountNumber: "1230000001", accountHolder: "Siti" },
    redirects: { successUrl: "https://shop.example/ok", returnUrl: "", errorUrl: "http://shop.example/err" },
  });
  t.is(store!.name, "Toko Batik");
  t.is(store!.plan, Plan.SCALE);
  t.like(store!.bankAccount, { bankName: "Bank Mandiri", bankCode: "MANDIRI", accountNumber: "1230000001", accountHolder: "Siti" });
  t.like(store!.redirects, { successUrl: "https://shop.example/ok", returnUrl: "", errorUrl: "http://shop.example/err" });
  t.truthy(store!.createdAt);

  const plain = await stores.createStore({ name: "Toko Polos" });
  t.is(plain.store!.plan, Plan.GROWTH);
  t.is(plain.store!.bankAccount, undefined);
});

test("CreateStore: INVALID_ARGUMENT for a bad name, plan, bank account or redirect", async (t) => {
  const { stores } = await setup(t);
  await rejects(t, stores.createStore({ name: "   " }), Code.InvalidArgument, /^name must be 1 to 200 characters$/);
  await rejects(t, stores.createStore({ name: "x".repeat(201) }), Code.InvalidArgument, /name/);
  await rejects(t, stores.createStore({ name: "Toko", plan: 42 as Plan }), Code.InvalidArgument, /^plan must be starter, growth or scale$/);
  await rejects(
    t,
    stores.createStore({ name: "Toko", bankAccount: { bankName: "BCA", bankCode: "", accountNumber: "1", accountHolder: "A" } }),
    Code.InvalidArgument,
    /^bank_code must be 1 to 20 characters$/,
  );
  await rejects(t, stores.createStore({ name: "Toko", redirects: { successUrl: "ftp://x.example/" } }), Code.InvalidArgument, /^success_url must be an absolute http\(s\) URL$/);
  await rejects(t, stores.createStore({ name: "Toko", redirects: { errorUrl: "/relative" } }), Code.InvalidArgument, /error_url/);
});

test("GetStore: the store; INVALID_ARGUMENT for a malformed id, NOT_FOUND for an unknown one", async (t) => {
  const clients = await setup(t);
  const id = await newStore(clients);
  const { store } = await clients.stores.getStore({ id: id.toUpperCase() });
  t.is(store!.id, id);
  await rejects(t, clients.stores.getStore({ id: "not-a-uuid" }), Code.InvalidArgument, /^store_id must be a UUID$/);
  const unknown = randomUUID();
  await rejects(t, clients.stores.getStore({ id: unknown }), Code.NotFound, new RegExp(`^store ${unknown} not found$`));
});

test("SetStorePlan: the plan changes; INVALID_ARGUMENT for no plan or a bad id; NOT_FOUND for an unknown store", async (t) => {
  const clients = await setup(t);
  const id = await newStore(clients);
  const { store } = await clients.stores.setStorePlan({ storeId: id, plan: Plan.STARTER });
  t.is(store!.plan, Plan.STARTER);
  t.is((await clients.stores.getStore({ id })).store!.plan, Plan.STARTER);
  await rejects(t, clients.stores.setStorePlan({ storeId: id, plan: Plan.UNSPECIFIED }), Code.InvalidArgument, /plan/);
  await rejects(t, clients.stores.setStorePlan({ storeId: "x", plan: Plan.SCALE }), Code.InvalidArgument, /store_id/);
  await rejects(t, clients.stores.setStorePlan({ storeId: randomUUID(), plan: Plan.SCALE }), Code.NotFound);
});

test("CreateApiKey: an sk_live_ key shown once, only its hash kept; NOT_FOUND for an unknown store", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const { apiKey, secret } = await clients.stores.createApiKey({ storeId, name: "  server  " });
  t.regex(secret, API_KEY_PATTERN);
  t.is(apiKey!.storeId, storeId);
  t.is(apiKey!.name, "server");
  t.is(apiKey!.prefix, secret.slice(0, 12));
  t.is(apiKey!.revokedAt, undefined);
  t.is(apiKey!.lastUsedAt, undefined);
  const [stored] = await clients.sql<{ key_hash: Buffer }[]>`select key_hash from api_keys where id = ${apiKey!.id}`;
  t.deepEqual(stored!.key_hash, hashApiKey(secret));
  const again = await clients.stores.createApiKey({ storeId, name: "" });
  t.not(again.secret, secret);
  await rejects(t, clients.stores.createApiKey({ storeId: randomUUID(), name: "x" }), Code.NotFound);
  await rejects(t, clients.stores.createApiKey({ storeId: "nope", name: "x" }), Code.InvalidArgument, /store_id/);
});

test("RevokeApiKey: the key is revoked; another store's key is NOT_FOUND; malformed ids are INVALID_ARGUMENT", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const otherStoreId = await newStore(clients);
  const { apiKey, secret } = await clients.stores.createApiKey({ storeId, name: "k" });
  await rejects(
    t,
    clients.stores.revokeApiKey({ storeId: otherStoreId, keyId: apiKey!.id }),
    Code.NotFound,
    new RegExp(`^key ${apiKey!.id} not found in store ${otherStoreId}$`),
  );
  t.truthy(await clients.stores.authenticateApiKey({ secret }), "the other store's attempt changed nothing");
  const revoked = await clients.stores.revokeApiKey({ storeId, keyId: apiKey!.id });
  t.truthy(revoked.apiKey!.revokedAt);
  const twice = await clients.stores.revokeApiKey({ storeId, keyId: apiKey!.id });
  t.deepEqual(twice.apiKey!.revokedAt, revoked.apiKey!.revokedAt, "a second revoke keeps the first time");
  await rejects(t, clients.stores.authenticateApiKey({ secret }), Code.Unauthenticated, /^unknown or revoked key$/);
  await rejects(t, clients.stores.revokeApiKey({ storeId: "x", keyId: apiKey!.id }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, clients.stores.revokeApiKey({ storeId, keyId: "x" }), Code.InvalidArgument, /^key_id must be a UUID$/);
});

test("AuthenticateApiKey: the key's store and plan; last_used_at refreshed at most once a minute", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients, Plan.SCALE);
  const { apiKey, secret } = await clients.stores.createApiKey({ storeId, name: "k" });
  const found = await clients.stores.authenticateApiKey({ secret });
  t.is(found.keyId, apiKey!.id);
  t.is(found.storeId, storeId);
  t.is(found.plan, Plan.SCALE);
  // xmin changes with every write of the row, even one that sets the same values.
  const keyRow = async () => (await clients.sql<{ xmin: string; last_used_at: Date | null }[]>`select xmin::text, last_used_at from api_keys where id = ${apiKey!.id}`)[0]!;
  const used = await keyRow();
  t.truthy(used.last_used_at, "first use records last_used_at");
  await clients.stores.authenticateApiKey({ secret });
  await clients.stores.authenticateApiKey({ secret });
  t.deepEqual(await keyRow(), used, "uses within the minute are reads only");

  await clients.stores.setStorePlan({ storeId, plan: Plan.STARTER });
  t.is((await clients.stores.authenticateApiKey({ secret })).plan, Plan.STARTER, "a plan change shows at once");
});

test("AuthenticateApiKey: UNAUTHENTICATED for a malformed or unknown key", async (t) => {
  const { stores } = await setup(t);
  await rejects(t, stores.authenticateApiKey({ secret: "sk_live_short" }), Code.Unauthenticated, /^malformed key$/);
  await rejects(t, stores.authenticateApiKey({ secret: "" }), Code.Unauthenticated, /^malformed key$/);
  await rejects(t, stores.authenticateApiKey({ secret: `sk_live_${"a".repeat(40)}` }), Code.Unauthenticated, /^unknown or revoked key$/);
});

// CatalogService

test("CreateProduct: published by default, slug from the title and made unique; a given slug is kept", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const first = await newProduct(clients, storeId, "Kaos Polos Hitam!");
  t.like(first, { storeId, type: ItemType.PRODUCT, title: "Kaos Polos Hitam!", slug: "kaos-polos-hitam", price: 50_000n, status: ItemStatus.PUBLISHED });
  t.deepEqual(first.productIds, []);
  t.is((await newProduct(clients, storeId, "Kaos Polos Hitam")).slug, "kaos-polos-hitam-2");
  t.is((await newProduct(clients, storeId, "Kaos polos hitam")).slug, "kaos-polos-hitam-3");
  t.is((await newProduct(clients, storeId, "!!!")).slug, "item");
  const draft = await newProduct(clients, storeId, "Draf", 0n, ItemStatus.DRAFT);
  t.is(draft.status, ItemStatus.DRAFT);
  t.is(draft.price, 0n);
  const named = await clients.catalog.createProduct({ storeId, title: "Topi", slug: "topi-merah", price: 1n });
  t.is(named.item!.slug, "topi-merah");
  const elsewhere = await newStore(clients);
  t.is((await clients.catalog.createProduct({ storeId: elsewhere, title: "Topi", slug: "topi-merah", price: 1n })).item!.slug, "topi-merah", "slugs are per store");
});

test("CreateProduct: INVALID_ARGUMENT for a bad title, price, status or slug; ALREADY_EXISTS for a used slug; NOT_FOUND for an unknown store", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const { catalog } = clients;
  await rejects(t, catalog.createProduct({ storeId, title: " ", price: 1n }), Code.InvalidArgument, /^title must be 1 to 200 characters$/);
  await rejects(t, catalog.createProduct({ storeId, title: "T", price: -1n }), Code.InvalidArgument, /^price must be an integer from 0 to 1000000000000$/);
  await rejects(t, catalog.createProduct({ storeId, title: "T", price: 1_000_000_000_001n }), Code.InvalidArgument, /price/);
  await rejects(t, catalog.createProduct({ storeId, title: "T", price: 1n, status: 9 as ItemStatus }), Code.InvalidArgument, /^status must be draft, published or archived$/);
  await rejects(t, catalog.createProduct({ storeId, title: "T", price: 1n, slug: "Not A Slug" }), Code.InvalidArgument, /^slug must be lowercase/);
  await rejects(t, catalog.createProduct({ storeId, title: "T", price: 1n, slug: "a--b" }), Code.InvalidArgument, /slug/);
  await rejects(t, catalog.createProduct({ storeId, title: "T", price: 1n, slug: "a".repeat(121) }), Code.InvalidArgument, /slug/);
  await catalog.createProduct({ storeId, title: "T", price: 1n, slug: "taken" });
  await rejects(t, catalog.createProduct({ storeId, title: "T", price: 1n, slug: "taken" }), Code.AlreadyExists, /^slug taken is already used in this store$/);
  await rejects(t, catalog.createProduct({ storeId: randomUUID(), title: "T", price: 1n }), Code.NotFound);
  await rejects(t, catalog.createProduct({ storeId: "1234", title: "T", price: 1n }), Code.InvalidArgument, /^store_id must be a UUID$/);
});

test("CreateBundle: a bundle of the store's products, in order", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const a = await newProduct(clients, storeId, "A");
  const b = await newProduct(clients, storeId, "B");
  const { item } = await clients.catalog.createBundle({ storeId, title: "Paket", price: 90_000n, productIds: [b.id, a.id.toUpperCase()] });
  t.like(item, { storeId, type: ItemType.BUNDLE, title: "Paket", slug: "paket", price: 90_000n, status: ItemStatus.PUBLISHED });
  t.deepEqual(item!.productIds, [b.id, a.id]);
});

test("CreateBundle: INVALID_ARGUMENT for no products, repeats, malformed ids, bundles or another store's products", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const otherStoreId = await newStore(clients);
  const mine = await newProduct(clients, storeId, "Mine");
  const theirs = await newProduct(clients, otherStoreId, "Theirs");
  const bundle = (await clients.catalog.createBundle({ storeId, title: "B1", price: 1n, productIds: [mine.id] })).item!;
  const { catalog } = clients;
  await rejects(t, catalog.createBundle({ storeId, title: "B", price: 1n, productIds: [] }), Code.InvalidArgument, /^a bundle needs at least one product$/);
  await rejects(t, catalog.createBundle({ storeId, title: "B", price: 1n, productIds: [mine.id, mine.id.toUpperCase()] }), Code.InvalidArgument, /^product_ids must not repeat$/);
  await rejects(t, catalog.createBundle({ storeId, title: "B", price: 1n, productIds: [mine.id, "x"] }), Code.InvalidArgument, /^product_ids\[1\] must be a UUID$/);
  await rejects(
    t,
    catalog.createBundle({ storeId, title: "B", price: 1n, productIds: [mine.id, theirs.id] }),
    Code.InvalidArgument,
    new RegExp(`^product_ids\\[1\\]: ${theirs.id} is not a product of this store$`),
  );
  await rejects(t, catalog.createBundle({ storeId, title: "B", price: 1n, productIds: [bundle.id] }), Code.InvalidArgument, /product_ids\[0\]/);
  await rejects(t, catalog.createBundle({ storeId: randomUUID(), title: "B", price: 1n, productIds: [mine.id] }), Code.NotFound);
});

test("SetItemPrice: the new price; another store's item is NOT_FOUND; a bad price or id is INVALID_ARGUMENT", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const otherStoreId = await newStore(clients);
  const item = await newProduct(clients, storeId);
  t.is((await clients.catalog.setItemPrice({ storeId, itemId: item.id, price: 75_000n })).item!.price, 75_000n);
  await rejects(t, clients.catalog.setItemPrice({ storeId: otherStoreId, itemId: item.id, price: 1n }), Code.NotFound, new RegExp(`^item ${item.id} not found$`));
  t.is((await clients.catalog.getItems({ storeId, ids: [item.id] })).items[0]!.price, 75_000n, "unchanged by the other store");
  await rejects(t, clients.catalog.setItemPrice({ storeId, itemId: item.id, price: -5n }), Code.InvalidArgument, /price/);
  await rejects(t, clients.catalog.setItemPrice({ storeId, itemId: "x", price: 1n }), Code.InvalidArgument, /^item_id must be a UUID$/);
});

test("SetItemStatus: the new status; another store's item is NOT_FOUND; no status is INVALID_ARGUMENT", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const otherStoreId = await newStore(clients);
  const item = await newProduct(clients, storeId);
  t.is((await clients.catalog.setItemStatus({ storeId, itemId: item.id, status: ItemStatus.ARCHIVED })).item!.status, ItemStatus.ARCHIVED);
  await rejects(t, clients.catalog.setItemStatus({ storeId: otherStoreId, itemId: item.id, status: ItemStatus.DRAFT }), Code.NotFound);
  await rejects(t, clients.catalog.setItemStatus({ storeId, itemId: item.id, status: ItemStatus.UNSPECIFIED }), Code.InvalidArgument, /^status must be/);
  await rejects(t, clients.catalog.setItemStatus({ storeId: "x", itemId: item.id, status: ItemStatus.DRAFT }), Code.InvalidArgument, /store_id/);
});

test("ListPublishedItems: published items of the store, oldest first, paged with has_more", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const otherStoreId = await newStore(clients);
  const a = await newProduct(clients, storeId, "A");
  await newProduct(clients, storeId, "Draft", 1n, ItemStatus.DRAFT);
  const b = await newProduct(clients, storeId, "B");
  const c = (await clients.catalog.createBundle({ storeId, title: "C", price: 1n, productIds: [a.id] })).item!;
  await newProduct(clients, otherStoreId, "Elsewhere");

  const first = await clients.catalog.listPublishedItems({ storeId, limit: 2, offset: 0 });
  t.deepEqual(first.items.map((item) => item.id), [a.id, b.id]);
  t.true(first.hasMore);
  const second = await clients.catalog.listPublishedItems({ storeId, limit: 2, offset: 2 });
  t.deepEqual(second.items.map((item) => item.id), [c.id]);
  t.false(second.hasMore);
  t.deepEqual((await clients.catalog.listPublishedItems({ storeId: randomUUID(), limit: 50, offset: 0 })).items, []);

  await rejects(t, clients.catalog.listPublishedItems({ storeId, limit: 0, offset: 0 }), Code.InvalidArgument, /^limit must be from 1 to 50$/);
  await rejects(t, clients.catalog.listPublishedItems({ storeId, limit: 51, offset: 0 }), Code.InvalidArgument, /limit/);
  await rejects(t, clients.catalog.listPublishedItems({ storeId, limit: 1, offset: -1 }), Code.InvalidArgument, /^offset must be 0 or more$/);
  await rejects(t, clients.catalog.listPublishedItems({ storeId: "x", limit: 1, offset: 0 }), Code.InvalidArgument, /store_id/);
});

test("GetItems: the store's items among the ids; other stores' and malformed ids are left out; over 200 ids is INVALID_ARGUMENT", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const otherStoreId = await newStore(clients);
  const mine = await newProduct(clients, storeId, "Mine");
  const draft = await newProduct(clients, storeId, "Draft", 1n, ItemStatus.DRAFT);
  const theirs = await newProduct(clients, otherStoreId, "Theirs");
  const { items } = await clients.catalog.getItems({ storeId, ids: [mine.id.toUpperCase(), draft.id, theirs.id, "garbage", randomUUID()] });
  t.deepEqual(items.map((item) => item.id).sort(), [mine.id, draft.id].sort());
  t.deepEqual((await clients.catalog.getItems({ storeId, ids: [] })).items, []);
  await rejects(t, clients.catalog.getItems({ storeId, ids: Array.from({ length: 201 }, () => randomUUID()) }), Code.InvalidArgument, /^at most 200 ids$/);
  await rejects(t, clients.catalog.getItems({ storeId: "x", ids: [] }), Code.InvalidArgument, /store_id/);
});

test("GetOrderCatalog: the store and its items among the ids in one answer; other stores' ids left out; unknown store NOT_FOUND", async (t) => {
  const clients = await setup(t);
  const { store: created } = await clients.stores.createStore({
    name: "Toko Pesanan",
    bankAccount: { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" },
    redirects: { successUrl: "https://shop.example/ok" },
  });
  const storeId = created!.id;
  const otherStoreId = await newStore(clients);
  const mine = await newProduct(clients, storeId, "Mine", 12_500n);
  const draft = await newProduct(clients, storeId, "Draft", 1n, ItemStatus.DRAFT);
  const bundle = (await clients.catalog.createBundle({ storeId, title: "Paket", price: 20_000n, productIds: [mine.id] })).item!;
  const theirs = await newProduct(clients, otherStoreId, "Theirs");

  const ids = [mine.id.toUpperCase(), draft.id, bundle.id, theirs.id, "garbage", randomUUID()];
  const found = await clients.catalog.getOrderCatalog({ storeId: storeId.toUpperCase(), ids });
  // The store exactly as GetStore gives it, the items exactly as GetItems does.
  t.deepEqual(found.store, (await clients.stores.getStore({ id: storeId })).store);
  t.deepEqual(
    [...found.items].sort((a, b) => a.id.localeCompare(b.id)),
    [...(await clients.catalog.getItems({ storeId, ids })).items].sort((a, b) => a.id.localeCompare(b.id)),
  );
  t.deepEqual(found.items.map((item) => item.id).sort(), [mine.id, draft.id, bundle.id].sort());
  t.like(found.items.find((item) => item.id === bundle.id), { type: ItemType.BUNDLE, price: 20_000n, productIds: [mine.id] });
  t.like(found.store, { id: storeId, bankAccount: { accountNumber: "1234567890" }, redirects: { successUrl: "https://shop.example/ok" } });

  // Another store's ids are not this store's items, even when asked by that store's id too.
  t.deepEqual((await clients.catalog.getOrderCatalog({ storeId: otherStoreId, ids: [mine.id] })).items, []);
  const none = await clients.catalog.getOrderCatalog({ storeId, ids: [] });
  t.is(none.store!.id, storeId);
  t.deepEqual(none.items, []);

  const unknown = randomUUID();
  await rejects(t, clients.catalog.getOrderCatalog({ storeId: unknown, ids: [mine.id] }), Code.NotFound, new RegExp(`^store ${unknown} not found$`));
  await rejects(t, clients.catalog.getOrderCatalog({ storeId: "x", ids: [] }), Code.InvalidArgument, /^store_id must be a UUID$/);
  await rejects(t, clients.catalog.getOrderCatalog({ storeId, ids: Array.from({ length: 201 }, () => randomUUID()) }), Code.InvalidArgument, /^at most 200 ids$/);
});

test("ListApiKeys: every key of the store newest first, revoked ones marked, none of another store; unknown store NOT_FOUND", async (t) => {
  const clients = await setup(t);
  const storeId = await newStore(clients);
  const otherId = await newStore(clients);
  const first = await clients.stores.createApiKey({ storeId, name: "first" });
  const second = await clients.stores.createApiKey({ storeId, name: "second" });
  await clients.stores.createApiKey({ storeId: otherId, name: "other" });
  await clients.stores.revokeApiKey({ storeId, keyId: first.apiKey!.id });
  const { apiKeys } = await clients.stores.listApiKeys({ storeId });
  t.deepEqual(
    apiKeys.map((k) => [k.name, k.revokedAt !== undefined]),
    [
      ["second", false],
      ["first", true],
    ],
  );
  t.is(apiKeys[0]!.prefix, second.apiKey!.prefix);
  t.false(JSON.stringify(apiKeys, (_k, v) => (typeof v === "bigint" ? String(v) : v)).includes(second.secret), "the key itself is never listed");
  await rejects(t, clients.stores.listApiKeys({ storeId: randomUUID() }), Code.NotFound);
});
