// GetOrderCatalog on real PostgreSQL through the catalog's gRPC port: its one statement
// carries the items as JSON, so this checks the answer is exactly what GetStore and
// GetItems give (prices, times, bundle products), encoded as a gateway receives them.
import { OPERATOR } from "../../common/actor.js";
import test from "ava";
import { randomUUID } from "node:crypto";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { CatalogService, ItemStatus, StoreService, type Item } from "../../gen/catalog/v1/catalog_pb.js";
import { createRpcChannel, type RpcChannel } from "../../platform/rpc-client.js";
import { startCatalogOnly } from "../helpers/stack.js";
import { TEST_INTERNAL_TOKEN } from "../helpers/internal-token.js";

let service: Awaited<ReturnType<typeof startCatalogOnly>>;
let channel: RpcChannel;
let stores: Client<typeof StoreService>;
let catalog: Client<typeof CatalogService>;

test.before(async () => {
  service = await startCatalogOnly();
  channel = createRpcChannel(`http://127.0.0.1:${service.port}`, { timeoutMs: 20_000, actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN });
  stores = channel.client(StoreService);
  catalog = channel.client(CatalogService);
});

test.after.always(async () => {
  channel?.close();
  await service?.close();
});

const byId = (items: Item[]) => [...items].sort((a, b) => a.id.localeCompare(b.id));

test("the store as GetStore gives it and the items as GetItems does; other stores' ids left out", async (t) => {
  const { store } = await stores.createStore({
    name: "Toko Pesanan",
    bankAccount: { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" },
    redirects: { successUrl: "https://shop.example/ok" },
  });
  const storeId = store!.id;
  const other = (await stores.createStore({ name: "Toko Lain" })).store!.id;
  const kopi = (await catalog.createProduct({ storeId, title: "Kopi", price: 999_999_999_999n })).item!;
  const teh = (await catalog.createProduct({ storeId, title: "Teh", price: 0n, status: ItemStatus.DRAFT })).item!;
  const paket = (await catalog.createBundle({ storeId, title: "Paket", price: 20_000n, productIds: [teh.id, kopi.id] })).item!;
  const theirs = (await catalog.createProduct({ storeId: other, title: "Lain", price: 5_000n })).item!;

  const ids = [kopi.id.toUpperCase(), teh.id, paket.id, theirs.id, "garbage", randomUUID()];
  const found = await catalog.getOrderCatalog({ storeId, ids });
  t.deepEqual(found.store, (await stores.getStore({ id: storeId })).store);
  t.deepEqual(byId(found.items), byId((await catalog.getItems({ storeId, ids })).items));
  t.deepEqual(byId(found.items).map((item) => item.id), [kopi.id, teh.id, paket.id].sort());
  t.deepEqual(found.items.find((item) => item.id === paket.id)!.productIds, [teh.id, kopi.id]);
  t.is(found.items.find((item) => item.id === kopi.id)!.price, 999_999_999_999n);

  const none = await catalog.getOrderCatalog({ storeId, ids: [] });
  t.deepEqual(none.store, found.store);
  t.deepEqual(none.items, []);
});

test("an unknown store is NOT_FOUND exactly as GetStore says it; a malformed one INVALID_ARGUMENT", async (t) => {
  const unknown = randomUUID();
  const error = ConnectError.from(await t.throwsAsync(catalog.getOrderCatalog({ storeId: unknown, ids: [randomUUID()] })));
  const getStoreError = ConnectError.from(await t.throwsAsync(stores.getStore({ id: unknown })));
  t.is(error.code, Code.NotFound);
  t.is(error.rawMessage, getStoreError.rawMessage);
  const malformed = ConnectError.from(await t.throwsAsync(catalog.getOrderCatalog({ storeId: "x", ids: [] })));
  t.is(malformed.code, Code.InvalidArgument);
});
