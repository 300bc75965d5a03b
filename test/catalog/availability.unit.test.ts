// What new orders may still take of an item (docs/catalog.md#stock): a product's stock
// less its holds; a bundle's the least its own stock and each tracked product allows;
// and which lines of a new order fit, line by line.
import test from "ava";
import { itemAvailable, planHold, tracksStock, type BundleLineLevel, type StockedItem } from "../../services/catalog/availability.js";

const product = (id: string, stock: number | null, held = 0): StockedItem => ({ id, stock, held, bundle_items: [] });
const line = (product_id: string, quantity: number, stock: number | null, held = 0): BundleLineLevel => ({ product_id, quantity, stock, held });
const bundle = (id: string, stock: number | null, lines: BundleLineLevel[], held = 0): StockedItem => ({ id, stock, held, bundle_items: lines });

test("a product: stock less what pending orders hold; null when not tracked; never below 0 when oversold", (t) => {
  t.is(itemAvailable(product("p", 10, 3)), 7);
  t.is(itemAvailable(product("p", 0)), 0);
  t.is(itemAvailable(product("p", null, 0)), null);
  t.is(itemAvailable(product("p", -2, 1)), 0);
});

test("a bundle: the least of its own stock and floor(available / quantity) of each tracked product; untracked products never limit", (t) => {
  t.is(itemAvailable(bundle("b", null, [line("a", 2, 7), line("c", 1, null)])), 3, "7 of a at 2 per bundle");
  t.is(itemAvailable(bundle("b", null, [line("a", 2, 7, 2), line("c", 3, 30)])), 2, "a has 5 left: 2 bundles");
  t.is(itemAvailable(bundle("b", 1, [line("a", 1, 100)])), 1, "its own stock limits");
  t.is(itemAvailable(bundle("b", 5, [line("a", 1, 100)], 5)), 0, "its own stock all held");
  t.is(itemAvailable(bundle("b", null, [line("a", 1, null), line("c", 4, null)])), null, "nothing limits");
});

test("an order holds only when one of its items tracks stock, its own or a bundle's product's", (t) => {
  t.false(tracksStock([product("p", null), bundle("b", null, [line("a", 1, null)])]));
  t.true(tracksStock([product("p", null), bundle("b", null, [line("a", 1, 0)])]));
  t.true(tracksStock([product("p", 0)]));
});

test("planHold: a bundle holds its products × quantity and itself when tracked; the same product over several lines adds up", (t) => {
  const a = product("a", 10);
  const b = bundle("b", 4, [line("a", 2, 10), line("u", 1, null)]);
  const { holds, short } = planHold([
    { item: b, quantity: 2 },
    { item: a, quantity: 3 },
    { item: product("u", null), quantity: 50 },
  ]);
  t.deepEqual(short, []);
  t.deepEqual(Object.fromEntries(holds), { b: 2, a: 7 });
});

test("planHold: each short line is named with what is left for it after the lines before it; nothing is held then", (t) => {
  const a = product("a", 5, 1);
  const { short } = planHold([
    { item: a, quantity: 3 },
    { item: a, quantity: 2 },
    { item: product("z", 0), quantity: 1 },
  ]);
  t.deepEqual(short, [
    { index: 1, available: 1 },
    { index: 2, available: 0 },
  ]);
});

test("planHold: the levels read under the lock count, not the item's as first read", (t) => {
  const a = product("a", 10);
  t.deepEqual(planHold([{ item: a, quantity: 4 }], new Map([["a", { stock: 10, held: 7 }]])).short, [{ index: 0, available: 3 }]);
  t.deepEqual(planHold([{ item: undefined, quantity: 4 }]), { holds: new Map(), short: [] }, "an unknown item holds nothing");
});
