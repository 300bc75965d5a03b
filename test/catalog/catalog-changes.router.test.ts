// The catalog announces every write that can change a store's published pages (the
// hint gateways drop cached pages on), after the write commits, and a failing
// announcement never fails the write. The real routes and domain in memory over a
// database of the test's own.
import test, { type ExecutionContext } from "ava";
import { pino } from "pino";
import { ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { CatalogService, ItemStatus, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { createCatalogDomain } from "../../services/catalog/domain.js";
import { createCatalogRoutes } from "../../services/catalog/routes.js";
import type { CatalogChangeNotifier } from "../../platform/catalog-changes.js";
import { createLogger, type Logger } from "../../platform/logger.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { OPERATOR } from "../../common/actor.js";
import type { Sql } from "../../platform/db.js";
import { catalogDatabase } from "../helpers/catalog-router.js";

async function setup(t: ExecutionContext, notify: (storeId: string, inTransaction: boolean) => void, logger: Logger = createLogger("test", "silent")) {
  const pool = await catalogDatabase(t);
  // The pool as the domain sees it, telling when one of its transactions is open: every
  // transaction of the domain is the pool's begin (platform/db.ts).
  let inTransaction = false;
  const sql = new Proxy(pool, {
    get(target, property) {
      if (property !== "begin") return Reflect.get(target, property);
      return async (...args: Parameters<Sql["begin"]>) => {
        inTransaction = true;
        try {
          return await (target.begin as (...a: unknown[]) => Promise<unknown>)(...args);
        } finally {
          inTransaction = false;
        }
      };
    },
  });
  const changes: CatalogChangeNotifier = { changed: (storeId) => notify(storeId, inTransaction) };
  const domain = createCatalogDomain({ sql, logger, catalogChanges: changes });
  // The operator's calls, as from store-admin (who may is catalog-audit.router.test.ts's).
  const transport = createRouterTransport(createCatalogRoutes(domain), { transport: { interceptors: [actorInterceptor(OPERATOR)] } });
  return { stores: createClient(StoreService, transport), catalog: createClient(CatalogService, transport) };
}

test("creating a product or bundle, changing a price and changing a status each announce the store, after the commit", async (t) => {
  const heard: { storeId: string; inTransaction: boolean }[] = [];
  const { stores, catalog } = await setup(t, (storeId, inTransaction) => heard.push({ storeId, inTransaction }));
  const storeId = (await stores.createStore({ name: "Toko Kabar" })).store!.id;
  t.deepEqual(heard, [], "a new store has no published pages to change");

  const expect = async (what: string, call: Promise<unknown>) => {
    heard.length = 0;
    await call;
    t.deepEqual(heard, [{ storeId, inTransaction: false }], what);
  };
  const product = (await catalog.createProduct({ storeId, title: "Kopi", price: 10_000n, status: ItemStatus.PUBLISHED })).item!;
  await expect("product created", catalog.createProduct({ storeId, title: "Teh", price: 8_000n }));
  await expect("draft created", catalog.createProduct({ storeId, title: "Draf", price: 1n, status: ItemStatus.DRAFT }));
  await expect("bundle created", catalog.createBundle({ storeId, title: "Paket", price: 15_000n, productIds: [product.id] }));
  await expect("price changed", catalog.setItemPrice({ storeId, itemId: product.id, price: 12_000n }));
  await expect("unpublished", catalog.setItemStatus({ storeId, itemId: product.id, status: ItemStatus.ARCHIVED }));
  await expect("published", catalog.setItemStatus({ storeId, itemId: product.id, status: ItemStatus.PUBLISHED }));
});

test("a write that changes nothing announces nothing", async (t) => {
  const heard: string[] = [];
  const { stores, catalog } = await setup(t, (storeId) => heard.push(storeId));
  const storeId = (await stores.createStore({ name: "Toko Sepi" })).store!.id;
  const product = (await catalog.createProduct({ storeId, title: "Kopi", price: 10_000n })).item!;
  heard.length = 0;
  const other = (await stores.createStore({ name: "Toko Lain" })).store!.id;
  const refused = [
    catalog.setItemPrice({ storeId: other, itemId: product.id, price: 1n }),
    catalog.setItemPrice({ storeId, itemId: product.id, price: -1n }),
    catalog.setItemStatus({ storeId, itemId: product.id, status: ItemStatus.UNSPECIFIED }),
    catalog.createProduct({ storeId, title: "Kopi", slug: product.slug, price: 1n }),
    catalog.createBundle({ storeId, title: "Paket", price: 1n, productIds: [] }),
  ];
  for (const call of refused) await t.throwsAsync(call, { instanceOf: ConnectError });
  t.deepEqual(heard, []);
});

test("an announcement that throws is logged and the write still succeeds", async (t) => {
  const lines: string[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(line) });
  const { stores, catalog } = await setup(t, 
    () => {
      throw new Error("bus exploded");
    },
    logger,
  );
  const storeId = (await stores.createStore({ name: "Toko Tangguh" })).store!.id;
  const { item } = await catalog.createProduct({ storeId, title: "Kopi", price: 10_000n });
  const changed = await catalog.setItemPrice({ storeId, itemId: item!.id, price: 11_000n });
  t.is(changed.item!.price, 11_000n);
  const page = await catalog.listPublishedItems({ storeId, limit: 10, offset: 0 });
  t.deepEqual(page.items.map((i) => i.price), [11_000n]);
  const warnings = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === "catalog change not announced");
  t.is(warnings.length, 2);
  t.like(warnings[0], { storeId, err: "bus exploded" });
});
