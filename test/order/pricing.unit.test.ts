// Pricing of docs/api.md#pricing as pure functions: line totals, the subtotal and its cap, the
// catalog check, and the bank-transfer unique code. No database, no process.
import test from "ava";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ItemSchema, ItemStatus, ItemType } from "../../gen/catalog/v1/catalog_pb.js";
import {
  lineTotal,
  MAX_ORDER_TOTAL,
  MAX_UNIQUE_CODE,
  pickUniqueCode,
  priceItems,
  subtotalOf,
  TotalTooLarge,
} from "../../services/order/pricing.js";
import type { ValidItem } from "../../services/order/validation.js";
import { fieldViolations } from "../../platform/field-errors.js";

const P1 = "11111111-1111-4111-8111-111111111111";
const B1 = "22222222-2222-4222-8222-222222222222";

/** The FieldViolation's field of a ConnectError; undefined for anything else. */
function fieldOf(error: unknown): string | undefined {
  return error instanceof ConnectError ? fieldViolations(error)[0]?.field : undefined;
}

test("lineTotal is unit price × quantity", (t) => {
  t.is(lineTotal({ unitPrice: 15_000, quantity: 3 }), 45_000);
  t.is(lineTotal({ unitPrice: 0, quantity: 1000 }), 0);
});

test("subtotalOf sums the line totals; an empty list is 0", (t) => {
  t.is(subtotalOf([]), 0);
  t.is(subtotalOf([{ unitPrice: 15_000, quantity: 2 }, { unitPrice: 7_500, quantity: 1 }]), 37_500);
});

test("subtotalOf allows exactly MAX_ORDER_TOTAL and refuses one rupiah more with TotalTooLarge", (t) => {
  t.is(subtotalOf([{ unitPrice: MAX_ORDER_TOTAL / 1000, quantity: 1000 }]), MAX_ORDER_TOTAL);
  const error = t.throws(() => subtotalOf([{ unitPrice: MAX_ORDER_TOTAL, quantity: 1 }, { unitPrice: 1, quantity: 1 }]), {
    instanceOf: TotalTooLarge,
  });
  t.regex(error.message, /exceeds 1000000000000 IDR/);
});

const NOW = new Date("2026-11-20T03:00:00Z");
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);
const FOREVER = new Date("9999-12-31T00:00:00Z");
/** Reservation rows: [amount, reserved_until]. */
const uses = (...rows: [number, Date][]) => rows.map(([amount, reserved_until]) => ({ amount, reserved_until }));

test("pickUniqueCode picks among codes never used, at random, with the given randomness", (t) => {
  t.is(pickUniqueCode(50_000, [], NOW, () => 0), 1);
  t.is(pickUniqueCode(50_000, [], NOW, () => 0.999999), MAX_UNIQUE_CODE);
  // Any row, held or long free, puts a code behind every code never used.
  t.is(pickUniqueCode(50_000, uses([50_001, FOREVER], [50_002, ago(60 * 24 * 365)]), NOW, () => 0), 3);
  for (let i = 0; i < 200; i++) {
    const code = pickUniqueCode(10_000, uses([10_005, FOREVER], [10_007, ago(1)]), NOW)!;
    t.true(code >= 1 && code <= MAX_UNIQUE_CODE && code !== 5 && code !== 7);
  }
});

test("pickUniqueCode, with every code used once, takes the one whose reservation ended longest ago", (t) => {
  // Codes 1–999 all have a row: 1–996 held by pending orders, 997–999 freed at different times.
  const held: [number, Date][] = Array.from({ length: 996 }, (_, i) => [1_000 + i + 1, FOREVER]);
  const rows = uses(...held, [1_997, ago(5)], [1_998, ago(60)], [1_999, ago(30)]);
  t.is(pickUniqueCode(1_000, rows, NOW, () => 0), 998, "freed 60 minutes ago beats 30 and 5");
  t.is(pickUniqueCode(1_000, rows, NOW, () => 0.999999), 998, "no randomness among used codes: strictly oldest first");
  const retaken = rows.map((row) => (row.amount === 1_998 ? { ...row, reserved_until: FOREVER } : row));
  t.is(pickUniqueCode(1_000, retaken, NOW), 999, "once 998 is taken again, the next oldest");
  // Order of the rows does not matter.
  t.is(pickUniqueCode(1_000, [...rows].reverse(), NOW), 998);
  // After lost races the choice widens to the oldest few, still never a newer one first.
  t.is(pickUniqueCode(1_000, rows, NOW, () => 0.999999, 2), 999, "the two oldest: 998 and 999");
  t.is(pickUniqueCode(1_000, rows, NOW, () => 0.999999, 50), 997, "all three free ones");
  t.is(pickUniqueCode(1_000, rows, NOW, () => 0, 50), 998);
});

test("pickUniqueCode treats a reservation that lasts until now or later as taken", (t) => {
  const held: [number, Date][] = Array.from({ length: 997 }, (_, i) => [1_000 + i + 1, FOREVER]);
  // Expired or cancelled orders keep their code through the grace: reserved_until is in the future.
  t.is(pickUniqueCode(1_000, uses(...held, [1_998, new Date(NOW.getTime() + 1)], [1_999, ago(1)]), NOW), 999);
  t.is(pickUniqueCode(1_000, uses(...held, [1_998, NOW], [1_999, FOREVER]), NOW), undefined, "ending exactly now is still held");
  t.is(pickUniqueCode(1_000, uses(...held, [1_998, new Date(NOW.getTime() - 1)], [1_999, FOREVER]), NOW), 998, "a millisecond past, it is free");
});

test("pickUniqueCode ignores amounts outside the subtotal's range and answers undefined when all 999 are taken", (t) => {
  t.is(pickUniqueCode(1_000, uses([1_000, FOREVER], [2_000, FOREVER]), NOW, () => 0), 1);
  const all = Array.from({ length: MAX_UNIQUE_CODE }, (_, i): [number, Date] => [1_000 + i + 1, FOREVER]);
  t.is(pickUniqueCode(1_000, uses(...all), NOW), undefined);
  t.is(pickUniqueCode(1_000, uses(...all.slice(1)), NOW, () => 0.5), 1);
});

const item = (id: string, type: ItemType, price: bigint, status = ItemStatus.PUBLISHED, title = "Kopi") =>
  create(ItemSchema, { id, type, price, status, title });

const want = (id: string, type: "product" | "bundle", quantity: number, n = 0): ValidItem => ({
  field: `items[${n}].${type}_id`,
  type,
  id,
  quantity,
});

test("priceItems snapshots the catalog price and title per line, in request order", (t) => {
  const priced = priceItems(
    [want(B1, "bundle", 2, 0), want(P1, "product", 3, 1)],
    [item(P1, ItemType.PRODUCT, 15_000n, ItemStatus.PUBLISHED, "Kopi Gayo"), item(B1, ItemType.BUNDLE, 20_000n, ItemStatus.PUBLISHED, "Paket")],
  );
  t.deepEqual(priced.lines, [
    { position: 0, type: "bundle", item_id: B1, title: "Paket", quantity: 2, unit_price: 20_000, line_total: 40_000 },
    { position: 1, type: "product", item_id: P1, title: "Kopi Gayo", quantity: 3, unit_price: 15_000, line_total: 45_000 },
  ]);
  t.is(priced.subtotal, 85_000);
});

test("priceItems names the field of an item the store lacks, of the wrong type, or unpublished", (t) => {
  const missing = t.throws(() => priceItems([want(P1, "product", 1)], []));
  t.is(fieldOf(missing), "items[0].product_id");
  t.is((missing as ConnectError).code, Code.InvalidArgument);
  t.regex(missing.message, /no such product in this store/);

  const wrongType = t.throws(() => priceItems([want(P1, "bundle", 1)], [item(P1, ItemType.PRODUCT, 1n)]));
  t.is(fieldOf(wrongType), "items[0].bundle_id");
  t.regex(wrongType.message, /no such bundle in this store/);

  const draft = t.throws(() => priceItems([want(P1, "product", 1)], [item(P1, ItemType.PRODUCT, 1n, ItemStatus.DRAFT)]));
  t.regex(draft.message, /product is not published/);
});

test("priceItems names every item the store lacks or has not published, in request order", (t) => {
  const P2 = "33333333-3333-4333-8333-333333333333";
  const error = t.throws<ConnectError>(() =>
    priceItems(
      [want(P1, "product", 1, 0), want(B1, "bundle", 1, 1), want(P2, "product", 1, 2)],
      [item(P1, ItemType.PRODUCT, 1n, ItemStatus.DRAFT), item(P2, ItemType.PRODUCT, 1n)],
    ),
  );
  t.deepEqual(
    fieldViolations(error).map((v) => [v.field, v.description]),
    [
      ["items[0].product_id", "product is not published"],
      ["items[1].bundle_id", "no such bundle in this store"],
    ],
  );
  t.is(error.rawMessage, "items[0].product_id: product is not published");
});

test("priceItems turns TotalTooLarge into INVALID_ARGUMENT on items", (t) => {
  const error = t.throws(() => priceItems([want(P1, "product", 1000)], [item(P1, ItemType.PRODUCT, BigInt(MAX_ORDER_TOTAL))]));
  t.is(fieldOf(error), "items");
  t.is((error as ConnectError).code, Code.InvalidArgument);
});
