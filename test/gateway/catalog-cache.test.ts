// Catalog pages cached at the edge: one catalog service and two gateways on one
// database and the shared NATS (a change-hint subject of this file's own). A change
// made through the catalog's gRPC API shows through both gateways within 1 s; a
// gateway that hears no hints still refreshes after the TTL.
import { OPERATOR } from "../../common/actor.js";
import test, { type ExecutionContext } from "ava";
import type { Client } from "@connectrpc/connect";
import { CATALOG_PAGE_TTL_MS } from "../../gateway/catalog-cache.js";
import { createServiceClients } from "../../gateway/clients.js";
import { GATEWAY_SCHEMA, startGateway, type Gateway } from "../../gateway/service.js";
import { CatalogService, ItemStatus, Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { CATALOG_SCHEMA, startCatalogService } from "../../services/catalog/service.js";
import { connectCatalogChanges } from "../../platform/catalog-changes.js";
import { connectDb, type Sql } from "../../platform/db.js";
import { createLogger } from "../../platform/logger.js";
import { freePort } from "../../platform/net.js";
import { createRpcChannel } from "../../platform/rpc-client.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { api } from "../helpers/http.js";
import { prepareOpenApiValidation } from "../helpers/openapi.js";
import { SHARED_NATS_URL, uniqueBusNames } from "../helpers/nats.js";
import { TEST_INTERNAL_TOKEN } from "../helpers/internal-token.js";

/** The documented bound: a change is visible through every gateway within this, NATS up. */
const VISIBLE_WITHIN_MS = 1_000;

const logger = createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");
const closers: (() => Promise<void> | void)[] = [];
let db: TestDatabase;
let catalogAddr: string;
let stores: Client<typeof StoreService>;
let catalog: Client<typeof CatalogService>;
const subject = uniqueBusNames("CC").CATALOG_EVENTS_SUBJECT;

/** A gateway of its own (pool, service clients, NATS connection) listening on `hintSubject`. */
async function startEdge(hintSubject: string): Promise<{ url: string; gateway: Gateway }> {
  const sql: Sql = connectDb(db.url, { schema: GATEWAY_SCHEMA, asyncCommit: true, max: 2 });
  // The order service is never called here: an address nothing listens on.
  const clients = createServiceClients({ catalog: catalogAddr, order: `http://127.0.0.1:${await freePort()}` }, undefined, {}, undefined, TEST_INTERNAL_TOKEN);
  const changes = connectCatalogChanges(SHARED_NATS_URL, hintSubject, logger);
  const gateway = await startGateway({
    sql,
    clients,
    logger,
    host: "127.0.0.1",
    port: 0,
    ratePerMinute: 1_000_000,
    authFailuresPerMinute: 1_000_000,
    midtransServerKey: "sandbox-server-key",
    publicBaseUrl: "http://127.0.0.1",
    catalogChanges: changes,
  });
  await changes.ready();
  closers.push(async () => {
    await gateway.close();
    await changes.close();
    clients.close();
    await sql.end({ timeout: 1 });
  });
  return { url: `http://127.0.0.1:${gateway.port}`, gateway };
}

test.before(async () => {
  // Before the services start: api() compiles the document's schemas on first use otherwise.
  prepareOpenApiValidation();
  db = await createTestDatabase("cc");
  const catalogSql = connectDb(db.url, { schema: CATALOG_SCHEMA, max: 4 });
  const changes = connectCatalogChanges(SHARED_NATS_URL, subject, logger);
  const server = await startCatalogService({ sql: catalogSql, logger, host: "127.0.0.1", port: 0, catalogChanges: changes, internalToken: TEST_INTERNAL_TOKEN });
  await changes.ready();
  catalogAddr = `http://127.0.0.1:${server.port}`;
  const admin = createRpcChannel(catalogAddr, { actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN });
  stores = admin.client(StoreService);
  catalog = admin.client(CatalogService);
  closers.push(async () => {
    admin.close();
    await server.close(100);
    await changes.close();
    await catalogSql.end({ timeout: 1 });
  });
});

test.after.always(async () => {
  for (const close of closers.reverse()) await close();
  await db?.drop();
});

async function newStore(name: string) {
  const { store } = await stores.createStore({ name, plan: Plan.GROWTH });
  const { secret } = await stores.createApiKey({ storeId: store!.id, name: "test" });
  return { storeId: store!.id, key: secret };
}

type Listed = { id: string; title: string; price: number; type: string };

async function listing(url: string, key: string, query = "limit=20"): Promise<Listed[]> {
  const response = await api(url, `/v1/products?${query}`, { key });
  if (response.status !== 200) throw new Error(`GET /v1/products: ${response.status} ${response.text}`);
  return response.body.data.items;
}

/**
 * Polls every gateway until `seen` holds for its listing, at most `withinMs` after the
 * change's RPC answered (`since`), and fails the test otherwise.
 */
async function visibleEverywhere(
  t: ExecutionContext,
  what: string,
  urls: string[],
  key: string,
  seen: (items: Listed[]) => boolean,
  since: number,
  withinMs = VISIBLE_WITHIN_MS,
  query?: string,
) {
  await Promise.all(
    urls.map(async (url, n) => {
      for (;;) {
        const items = await listing(url, key, query);
        if (seen(items)) {
          t.log(`${what}: gateway ${n + 1} after ${Date.now() - since} ms`);
          return;
        }
        if (Date.now() - since > withinMs) {
          t.fail(`${what}: gateway ${n + 1} still shows ${JSON.stringify(items.map((i) => [i.title, i.price]))} after ${withinMs} ms`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  );
}

test("a price change, an unpublish, a new product and a new bundle show through both gateways within 1 s", async (t) => {
  const [one, two] = [await startEdge(subject), await startEdge(subject)];
  const urls = [one.url, two.url];
  const { storeId, key } = await newStore("Toko Dua Gerbang");
  const other = await newStore("Toko Tetangga");
  const kopi = (await catalog.createProduct({ storeId, title: "Kopi", price: 10_000n, status: ItemStatus.PUBLISHED })).item!;
  const teh = (await catalog.createProduct({ storeId, title: "Teh", price: 8_000n, status: ItemStatus.PUBLISHED })).item!;
  await catalog.createProduct({ storeId: other.storeId, title: "Susu", price: 7_000n, status: ItemStatus.PUBLISHED });

  // Warm both caches, on two page shapes, and the neighbour's.
  for (const url of urls) {
    t.deepEqual((await listing(url, key)).map((i) => i.title), ["Kopi", "Teh"]);
    t.deepEqual((await listing(url, key, "limit=1&offset=1")).map((i) => i.title), ["Teh"]);
    t.deepEqual((await listing(url, other.key)).map((i) => i.title), ["Susu"]);
  }

  await catalog.setItemPrice({ storeId, itemId: kopi.id, price: 12_500n });
  let since = Date.now();
  await visibleEverywhere(t, "price", urls, key, (items) => items.find((i) => i.id === kopi.id)?.price === 12_500, since);

  await catalog.setItemStatus({ storeId, itemId: teh.id, status: ItemStatus.ARCHIVED });
  since = Date.now();
  await visibleEverywhere(t, "unpublish", urls, key, (items) => !items.some((i) => i.id === teh.id), since);
  await visibleEverywhere(t, "unpublish (second page shape)", urls, key, (items) => items.length === 0, since, VISIBLE_WITHIN_MS, "limit=1&offset=1");

  const jahe = (await catalog.createProduct({ storeId, title: "Jahe", price: 9_000n, status: ItemStatus.PUBLISHED })).item!;
  since = Date.now();
  await visibleEverywhere(t, "new product", urls, key, (items) => items.some((i) => i.id === jahe.id && i.price === 9_000), since);

  const paket = (await catalog.createBundle({ storeId, title: "Paket", price: 20_000n, status: ItemStatus.PUBLISHED, productIds: [kopi.id, jahe.id] })).item!;
  since = Date.now();
  await visibleEverywhere(t, "new bundle", urls, key, (items) => items.some((i) => i.id === paket.id && i.type === "bundle"), since);

  await catalog.setItemStatus({ storeId, itemId: teh.id, status: ItemStatus.PUBLISHED });
  since = Date.now();
  await visibleEverywhere(t, "published again", urls, key, (items) => items.map((i) => i.title).join() === "Kopi,Teh,Jahe,Paket", since);

  // The neighbour's listing was right all along.
  for (const url of urls) t.deepEqual((await listing(url, other.key)).map((i) => i.title), ["Susu"]);
});

test("a gateway that hears no hints still shows a change once its cached page is older than the TTL", async (t) => {
  // This gateway listens on a subject nobody announces on: no message ever reaches it.
  const deaf = await startEdge(uniqueBusNames("DEAF").CATALOG_EVENTS_SUBJECT);
  const { storeId, key } = await newStore("Toko Tuli");
  const roti = (await catalog.createProduct({ storeId, title: "Roti", price: 5_000n, status: ItemStatus.PUBLISHED })).item!;

  const warmedAt = Date.now();
  t.deepEqual((await listing(deaf.url, key)).map((i) => i.price), [5_000]);
  await catalog.setItemPrice({ storeId, itemId: roti.id, price: 6_000n });
  const changedAt = Date.now();

  // Still the cached page (proof that it is cached), as long as the TTL has not run out.
  const rightAfter = await listing(deaf.url, key);
  if (Date.now() - warmedAt < CATALOG_PAGE_TTL_MS) t.deepEqual(rightAfter.map((i) => i.price), [5_000], "served from the cache");

  // Fresh within the TTL of when the page was cached, plus one read of the catalog.
  await visibleEverywhere(t, "after the TTL", [deaf.url], key, (items) => items[0]?.price === 6_000, warmedAt, CATALOG_PAGE_TTL_MS + VISIBLE_WITHIN_MS);
  t.log(`visible ${Date.now() - changedAt} ms after the change`);
});

test("a price changed with PATCH through one gateway shows through both within 5 s", async (t) => {
  const [one, two] = [await startEdge(subject), await startEdge(subject)];
  const urls = [one.url, two.url];
  const { key } = await newStore("Toko Harga Baru");
  const made = await api(one.url, "/v1/products", { method: "POST", key, json: { type: "product", title: "Gula Aren", price: 15_000, status: "published", stock: 5 } });
  t.is(made.status, 201);
  const gula = made.body.data;
  // Both caches hold the old price first.
  for (const url of urls) await visibleEverywhere(t, "created", [url], key, (items) => items.some((i) => i.id === gula.id && i.price === 15_000), Date.now());

  const patched = await api(one.url, `/v1/products/${gula.id}`, { method: "PATCH", key, json: { price: 17_500 } });
  t.is(patched.status, 200);
  t.is(patched.body.data.price, 17_500);
  const since = Date.now();
  await visibleEverywhere(t, "PATCH price", urls, key, (items) => items.find((i) => i.id === gula.id)?.price === 17_500, since, CATALOG_PAGE_TTL_MS);
  // Read by id, never from a cache: the other gateway has it at once too.
  t.is((await api(two.url, `/v1/products/${gula.id}`, { key })).body.data.price, 17_500);
});
