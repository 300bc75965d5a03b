// The catalog's stock (docs/catalog.md): items created and changed with stock and a
// bundle's quantities, who may change them, each field named when wrong, slugs, and the
// holds of new orders: the last units never oversold under 50 concurrent orders, each
// stock change idempotent, unconfirmed holds swept, a late sale oversold. The real
// routes and domain in memory on a database of the test's own.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { ItemStatus, StockAction } from "../../gen/catalog/v1/catalog_pb.js";
import { createLogger } from "../../platform/logger.js";
import { outOfStockLines } from "../../platform/out-of-stock.js";
import { startStockSweep } from "../../services/catalog/stock.js";
import { catalogRouterSetup, passTime } from "../helpers/catalog-router.js";
import { failure } from "../helpers/rpc-failure.js";

async function setup(t: ExecutionContext, poolSize = 2) {
  const s = await catalogRouterSetup(t, "Toko Stok", { poolSize });
  const { items, storeId } = s;
  /** A published product, tracked with `stock` units (null: not tracked). */
  const product = async (stock: number | null, title = `Kopi ${randomUUID().slice(0, 8)}`) =>
    (await items.createProduct({ storeId, title, price: 20_000n, status: ItemStatus.PUBLISHED, stock: stock === null ? undefined : { quantity: BigInt(stock) } })).item!;
  const get = async (id: string) => (await items.getItems({ storeId, ids: [id] })).items[0]!;
  const reserve = (orderId: string, lines: { itemId: string; quantity: number }[], testMode = false) =>
    items.reserveOrderCatalog({ storeId, orderId, lines: lines.map((l) => ({ itemId: l.itemId, quantity: BigInt(l.quantity) })), testMode });
  const apply = (orderId: string, ...actions: StockAction[]) => items.applyStockChanges({ changes: actions.map((action) => ({ storeId, orderId, action })) });
  const orderStock = async (orderId: string) =>
    (await items.getOrderStock({ storeId, orderId })).lines.map((l) => ({ productId: l.productId, quantity: Number(l.quantity), state: l.state, oversold: l.oversold }));
  const levels = async (id: string) => {
    const item = await get(id);
    return { stock: item.stock === undefined ? null : Number(item.stock), available: item.available === undefined ? null : Number(item.available) };
  };
  return { ...s, product, get, reserve, apply, orderStock, levels };
}

test("created with stock and a bundle's quantities: the item says its stock, what is available and its products; untracked says neither", async (t) => {
  const s = await setup(t);
  const kopi = await s.product(10);
  const gula = await s.product(null);
  t.is(kopi.stock, 10n);
  t.is(kopi.available, 10n);
  t.is(gula.stock, undefined);
  t.is(gula.available, undefined);
  const { item: paket } = await s.items.createBundle({
    storeId: s.storeId,
    title: "Paket Pagi",
    price: 50_000n,
    bundleItems: [
      { productId: kopi.id, quantity: 3 },
      { productId: gula.id, quantity: 0 },
    ],
  });
  t.deepEqual(
    paket!.bundleItems.map((l) => [l.productId, l.quantity]),
    [
      [kopi.id, 3],
      [gula.id, 1],
    ],
  );
  t.deepEqual(paket!.productIds, [kopi.id, gula.id]);
  t.is(paket!.stock, undefined);
  t.is(paket!.available, 3n, "floor(10 / 3); the untracked product never limits");
  t.truthy(paket!.updatedAt);
});

test("UpdateItem changes any fields at once in one audited change, and a bundle's products; type never changes", async (t) => {
  const s = await setup(t);
  const kopi = await s.product(5);
  const teh = await s.product(null);
  const { item } = await s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, title: "Kopi Gayo", slug: "kopi-gayo", price: 21_000n, status: ItemStatus.DRAFT, stock: { quantity: 8n } });
  t.like(item, { title: "Kopi Gayo", slug: "kopi-gayo", price: 21_000n, status: ItemStatus.DRAFT, stock: 8n, available: 8n });
  const untracked = (await s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, stock: {} })).item!;
  t.is(untracked.stock, undefined, "a stock setting without quantity: not tracked");
  t.is((await s.items.updateItem({ storeId: s.storeId, itemId: kopi.id })).item!.title, "Kopi Gayo", "nothing asked, nothing changed");

  const { item: paket } = await s.items.createBundle({ storeId: s.storeId, title: "Paket", price: 1n, productIds: [kopi.id] });
  const changed = (await s.items.updateItem({ storeId: s.storeId, itemId: paket!.id, replaceBundleItems: true, bundleItems: [{ productId: teh.id, quantity: 2 }] })).item!;
  t.deepEqual(changed.bundleItems.map((l) => [l.productId, l.quantity]), [[teh.id, 2]]);

  t.like(await failure(s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, replaceBundleItems: true, bundleItems: [{ productId: teh.id, quantity: 1 }] })), {
    code: Code.InvalidArgument,
    field: "bundle_items",
  });
  t.like(await failure(s.items.updateItem({ storeId: s.storeId, itemId: randomUUID(), title: "X" })), { code: Code.NotFound });

  const audit = (await s.accounts.listAudit({ storeId: s.storeId, limit: 50 })).entries.filter((e) => e.action.endsWith(".updated"));
  t.is(audit.length, 3, "one entry per change that changed something");
  const first = audit.at(-1)!;
  t.deepEqual(
    first.changes.map((c) => `${c.field}: ${c.before} → ${c.after}`),
    [`title: ${kopi.title} → Kopi Gayo`, `slug: ${kopi.slug} → kopi-gayo`, "price: 20000 → 21000", "status: published → draft", "stock: 5 → 8"],
  );
});

test("another store's item is NOT_FOUND to UpdateItem and absent from ListItems; ListItems lists every status newest first", async (t) => {
  const s = await setup(t);
  const a = await s.product(1, "A");
  const b = await s.product(null, "B");
  await s.items.setItemStatus({ storeId: s.storeId, itemId: a.id, status: ItemStatus.ARCHIVED });
  const other = (await s.stores.createStore({ name: "Toko Lain" })).store!.id;
  t.like(await failure(s.items.updateItem({ storeId: other, itemId: a.id, price: 1n })), { code: Code.NotFound });
  t.deepEqual((await s.items.listItems({ storeId: other, limit: 10 })).items, []);
  const page = await s.items.listItems({ storeId: s.storeId, limit: 1 });
  t.deepEqual([page.items.map((i) => i.title), page.hasMore], [["B"], true]);
  t.deepEqual((await s.items.listItems({ storeId: s.storeId, limit: 10, offset: 1 })).items.map((i) => i.title), ["A"]);
  t.deepEqual((await s.items.listItems({ storeId: s.storeId, limit: 10, status: ItemStatus.ARCHIVED })).items.map((i) => i.id), [a.id]);
  t.not(b.id, a.id);
});

test("each wrong field is INVALID_ARGUMENT naming it", async (t) => {
  const s = await setup(t);
  const kopi = await s.product(1);
  const bundle = (extra: object) => s.items.createBundle({ storeId: s.storeId, title: "P", price: 1n, ...extra });
  const cases: [string, Promise<unknown>][] = [
    ["stock", s.items.createProduct({ storeId: s.storeId, title: "X", price: 1n, stock: { quantity: -1n } })],
    ["stock", s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, stock: { quantity: 1_000_000_001n } })],
    ["title", s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, title: " " })],
    ["slug", s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, slug: "Not A Slug" })],
    ["price", s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, price: -1n })],
    ["status", s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, status: 9 as ItemStatus })],
    ["item_id", s.items.updateItem({ storeId: s.storeId, itemId: "nope" })],
    ["bundle_items[0].quantity", bundle({ bundleItems: [{ productId: kopi.id, quantity: -2 }] })],
    ["bundle_items[1].product_id", bundle({ bundleItems: [{ productId: kopi.id, quantity: 1 }, { productId: "x", quantity: 1 }] })],
    ["bundle_items[1].product_id", bundle({ bundleItems: [{ productId: kopi.id, quantity: 1 }, { productId: kopi.id, quantity: 1 }] })],
    ["bundle_items[0].product_id", bundle({ bundleItems: [{ productId: randomUUID(), quantity: 1 }] })],
    ["bundle_items", s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, replaceBundleItems: true })],
    ["order_id", s.reserve("x", [{ itemId: kopi.id, quantity: 1 }])],
    ["lines[0].quantity", s.reserve(randomUUID(), [{ itemId: kopi.id, quantity: 0 }])],
    ["changes[0].action", s.items.applyStockChanges({ changes: [{ storeId: s.storeId, orderId: randomUUID() }] })],
    ["changes[0].order_id", s.items.applyStockChanges({ changes: [{ storeId: s.storeId, orderId: "x", action: StockAction.SELL }] })],
  ];
  for (const [field, call] of cases) t.like(await failure(call), { code: Code.InvalidArgument, field }, field);
  t.is((await s.levels(kopi.id)).stock, 1, "nothing changed");
});

test("a slug given that is taken is ALREADY_EXISTS naming slug, on creation and on change; one made from the title gets -2", async (t) => {
  const s = await setup(t);
  const first = await s.product(null, "Kopi Susu");
  const second = await s.product(null, "Kopi Susu");
  t.deepEqual([first.slug, second.slug], ["kopi-susu", "kopi-susu-2"]);
  t.like(await failure(s.items.createProduct({ storeId: s.storeId, title: "Lain", price: 1n, slug: "kopi-susu" })), { code: Code.AlreadyExists, field: "slug" });
  t.like(await failure(s.items.updateItem({ storeId: s.storeId, itemId: second.id, slug: "kopi-susu" })), { code: Code.AlreadyExists, field: "slug" });
  t.is((await s.items.updateItem({ storeId: s.storeId, itemId: first.id, slug: "kopi-susu" })).item!.slug, "kopi-susu", "its own slug is no clash");
  const many = await Promise.all(Array.from({ length: 4 }, () => s.items.createProduct({ storeId: s.storeId, title: "Teh", price: 1n })));
  t.deepEqual(many.map((r) => r.item!.slug).sort(), ["teh", "teh-2", "teh-3", "teh-4"], "concurrent creations each get a free slug");
});

test("a viewer, a support member and a key without catalog:write may not change the catalog; a developer and a catalog:write key may", async (t) => {
  const s = await setup(t);
  const kopi = await s.product(3);
  for (const role of ["viewer", "support"] as const) {
    s.as.actor = await s.asOperator(() => s.member(role));
    t.like(await failure(s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, stock: { quantity: 0n } })), { code: Code.PermissionDenied, message: `the ${role} role may not change products, bundles, prices and stock` });
    t.like(await failure(s.items.createProduct({ storeId: s.storeId, title: "X", price: 1n })), { code: Code.PermissionDenied });
  }
  s.as.actor = { kind: "api_key", keyId: randomUUID(), scopes: ["catalog:read", "orders:write"] };
  t.like(await failure(s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, stock: { quantity: 0n } })), { code: Code.PermissionDenied, message: "this key lacks catalog:write" });
  t.is((await s.levels(kopi.id)).stock, 3, "nothing changed");
  s.as.actor = { kind: "api_key", keyId: randomUUID(), scopes: ["catalog:write"] };
  t.is((await s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, stock: { quantity: 4n } })).item!.stock, 4n);
  s.as.actor = await s.asOperator(() => s.member("developer"));
  t.is((await s.items.updateItem({ storeId: s.storeId, itemId: kopi.id, stock: { quantity: 5n } })).item!.stock, 5n);
});

test("50 concurrent orders for the last 10 units: exactly 10 hold one each, 40 are OUT_OF_STOCK naming the line", async (t) => {
  const s = await setup(t, 10);
  const kopi = await s.product(10);
  const results = await Promise.allSettled(Array.from({ length: 50 }, () => s.reserve(randomUUID(), [{ itemId: kopi.id, quantity: 1 }])));
  const held = results.filter((r) => r.status === "fulfilled");
  t.is(held.length, 10);
  t.true(held.every((r) => r.value.holdsStock));
  for (const r of results.filter((r) => r.status === "rejected")) {
    const error = ConnectError.from(r.reason);
    t.is(error.code, Code.FailedPrecondition);
    t.deepEqual(outOfStockLines(error), [{ field: "items[0].quantity", description: "out of stock", available: 0 }]);
  }
  t.deepEqual(await s.levels(kopi.id), { stock: 10, available: 0 });
});

test("a bundle holds its products × quantity; a short line names what is left and nothing is held; test mode and untracked items hold nothing", async (t) => {
  const s = await setup(t);
  const kopi = await s.product(7);
  const gula = await s.product(null);
  const paket = (await s.items.createBundle({ storeId: s.storeId, title: "Paket", price: 1n, status: ItemStatus.PUBLISHED, bundleItems: [{ productId: kopi.id, quantity: 2 }, { productId: gula.id }] })).item!;

  const refused = ConnectError.from(await t.throwsAsync(s.reserve(randomUUID(), [{ itemId: gula.id, quantity: 1 }, { itemId: paket.id, quantity: 4 }])));
  t.is(refused.rawMessage, "items[1].quantity: only 3 available");
  t.deepEqual(await s.levels(kopi.id), { stock: 7, available: 7 }, "nothing held");

  const test = await s.reserve(randomUUID(), [{ itemId: paket.id, quantity: 3 }], true);
  t.false(test.holdsStock);
  t.is(ConnectError.from(await t.throwsAsync(s.reserve(randomUUID(), [{ itemId: paket.id, quantity: 4 }], true))).code, Code.FailedPrecondition, "test mode is checked the same way");
  const untracked = await s.reserve(randomUUID(), [{ itemId: gula.id, quantity: 100 }]);
  t.false(untracked.holdsStock);
  t.is(untracked.store!.id, s.storeId, "priced as GetOrderCatalog");
  t.deepEqual(await s.levels(kopi.id), { stock: 7, available: 7 });

  const order = randomUUID();
  const live = await s.reserve(order, [{ itemId: paket.id, quantity: 3 }]);
  t.true(live.holdsStock);
  t.deepEqual(await s.levels(kopi.id), { stock: 7, available: 1 });
  t.is((await s.get(paket.id)).available, 0n);
  t.true((await s.reserve(order, [{ itemId: paket.id, quantity: 3 }])).holdsStock, "asked again: the same hold");
  t.deepEqual(await s.levels(kopi.id), { stock: 7, available: 1 }, "nothing more held");
  t.deepEqual(await s.orderStock(order), [{ productId: kopi.id, quantity: 6, state: "held", oversold: false }]);
});

test("each stock change is idempotent: confirm, sell, restock and release sent twice do what they did once", async (t) => {
  const s = await setup(t);
  const kopi = await s.product(10);
  const paid = randomUUID();
  await s.reserve(paid, [{ itemId: kopi.id, quantity: 3 }]);
  await s.apply(paid, StockAction.CONFIRM, StockAction.CONFIRM);
  t.deepEqual(await s.levels(kopi.id), { stock: 10, available: 7 });
  await s.apply(paid, StockAction.SELL, StockAction.SELL);
  t.deepEqual(await s.levels(kopi.id), { stock: 7, available: 7 });
  await s.apply(paid, StockAction.RELEASE);
  t.deepEqual(await s.levels(kopi.id), { stock: 7, available: 7 }, "a release after the sale changes nothing");
  await s.apply(paid, StockAction.RESTOCK, StockAction.RESTOCK);
  t.deepEqual(await s.levels(kopi.id), { stock: 10, available: 10 });
  t.deepEqual(await s.orderStock(paid), [{ productId: kopi.id, quantity: 3, state: "restocked", oversold: false }]);

  const expired = randomUUID();
  await s.reserve(expired, [{ itemId: kopi.id, quantity: 4 }]);
  await s.apply(expired, StockAction.CONFIRM, StockAction.RELEASE, StockAction.RELEASE, StockAction.CONFIRM);
  t.deepEqual(await s.levels(kopi.id), { stock: 10, available: 10 });
  t.deepEqual(await s.orderStock(expired), [{ productId: kopi.id, quantity: 4, state: "released", oversold: false }]);
  await s.apply(randomUUID(), StockAction.SELL);
  t.deepEqual(await s.levels(kopi.id), { stock: 10, available: 10 }, "an order holding nothing is left alone");
});

test("the sweep releases a hold never confirmed in time, and only that one; a confirm arriving after it holds again", async (t) => {
  const s = await setup(t);
  const kopi = await s.product(5);
  const lost = randomUUID();
  const written = randomUUID();
  await s.reserve(lost, [{ itemId: kopi.id, quantity: 2 }]);
  await s.reserve(written, [{ itemId: kopi.id, quantity: 1 }]);
  await s.apply(written, StockAction.CONFIRM);
  t.is(await s.domain.stock.sweep(), 0, "nothing is due yet");
  await passTime(s.sql, 121);
  t.is(await s.domain.stock.sweep(), 1);
  t.deepEqual(await s.levels(kopi.id), { stock: 5, available: 4 }, "the confirmed order still holds");
  t.is((await s.orderStock(lost))[0]!.state, "released");
  await s.apply(lost, StockAction.CONFIRM);
  t.deepEqual(await s.levels(kopi.id), { stock: 5, available: 2 }, "the order was written after all: held again");
});

test("the sweep runs by itself, and stops when told", async (t) => {
  const s = await setup(t);
  const kopi = await s.product(3);
  await s.reserve(randomUUID(), [{ itemId: kopi.id, quantity: 3 }]);
  await passTime(s.sql, 121);
  const sweep = startStockSweep({ stock: s.domain.stock, logger: createLogger("test", "silent"), everyMs: 50 });
  t.teardown(() => sweep.stop());
  while ((await s.levels(kopi.id)).available !== 3) await new Promise((resolve) => setTimeout(resolve, 50));
  await sweep.stop();
  await s.reserve(randomUUID(), [{ itemId: kopi.id, quantity: 3 }]);
  await passTime(s.sql, 121);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.deepEqual(await s.levels(kopi.id), { stock: 3, available: 0 }, "stopped: nothing more released");
});

test("a late payment of a released hold takes the units anyway: the stock goes below zero and the order's line says oversold", async (t) => {
  const s = await setup(t);
  const kopi = await s.product(2);
  const late = randomUUID();
  await s.reserve(late, [{ itemId: kopi.id, quantity: 2 }]);
  await s.apply(late, StockAction.CONFIRM, StockAction.RELEASE);
  const other = randomUUID();
  await s.reserve(other, [{ itemId: kopi.id, quantity: 2 }]);
  await s.apply(other, StockAction.CONFIRM, StockAction.SELL);
  t.deepEqual(await s.levels(kopi.id), { stock: 0, available: 0 });
  await s.apply(late, StockAction.SELL, StockAction.SELL);
  t.deepEqual(await s.levels(kopi.id), { stock: -2, available: 0 });
  t.deepEqual(await s.orderStock(late), [{ productId: kopi.id, quantity: 2, state: "sold", oversold: true }]);
  t.deepEqual(await s.orderStock(other), [{ productId: kopi.id, quantity: 2, state: "sold", oversold: false }]);
});
