// The orders export (docs/dashboard.md#orders-export): a header row, integer rupiah, ISO UTC times, quoting
// by RFC 4180, no formulas, and a walk over ListOrders' cursor that holds one page at a time.
import test from "ava";
import { create } from "@bufbuild/protobuf";
import { parse } from "csv-parse/sync";
import { csvLine, ORDER_CSV_COLUMNS, orderCsv, orderCsvRow } from "../../common/order-csv.js";
import { OrderSchema, type Order } from "../../gen/order/v1/order_pb.js";

const order = (n: number, fields: Partial<Order> = {}) =>
  create(OrderSchema, {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    paymentReference: `SO-${String(n).padStart(8, "0")}`,
    status: "paid",
    amount: 75_083n,
    subtotal: 75_000n,
    refundedAmount: 0n,
    currency: "IDR",
    paymentMethod: "bank_transfer",
    buyer: { name: "Budi", email: "budi@example.co.id", phone: "+6281234567890" },
    items: [{ quantity: 2 }, { quantity: 1 }],
    createdAt: "2026-11-24T03:05:00.000Z",
    expiresAt: "2026-11-25T03:05:00.000Z",
    ...(fields as object),
  });

test("a row: integers, ISO times, quoting where needed, and no cell a spreadsheet would run", (t) => {
  const row = orderCsvRow(order(1, { buyer: { name: '=HYPERLINK("http://evil")', email: "a,b@example.co.id", phone: "+62 812" } as never, externalId: "ERP \"7\"" }));
  const parsed = parse(csvLine(ORDER_CSV_COLUMNS) + csvLine(row));
  t.deepEqual(parsed[0], [...ORDER_CSV_COLUMNS]);
  const cells = Object.fromEntries(ORDER_CSV_COLUMNS.map((name, i) => [name, parsed[1]![i]]));
  t.is(cells.amount, "75083");
  t.is(cells.items, "3");
  t.is(cells.created_at, "2026-11-24T03:05:00.000Z");
  t.is(cells.buyer_name, `'=HYPERLINK("http://evil")`);
  t.is(cells.buyer_email, "a,b@example.co.id");
  t.is(cells.buyer_phone, "'+62 812", "a leading + could be a formula too");
  t.is(cells.external_id, 'ERP "7"');
});

test("the walk: the header, then page after page on the cursor, 50 first and 500 after, until there is no more", async (t) => {
  const all = Array.from({ length: 1_234 }, (_, i) => order(i + 1));
  const asked: { limit: number; cursor: string }[] = [];
  const listOrders = async (request: { limit: number; cursor: string; offset: number }) => {
    asked.push({ limit: request.limit, cursor: request.cursor });
    const start = request.cursor ? Number(request.cursor) : 0;
    const orders = all.slice(start, start + request.limit);
    const next = start + orders.length;
    return { orders, hasMore: next < all.length, nextCursor: next < all.length ? String(next) : "" };
  };
  let text = "";
  let chunks = 0;
  for await (const chunk of orderCsv(listOrders, { storeId: "s" })) {
    text += chunk;
    chunks++;
  }
  const parsed = parse(text);
  t.is(parsed.length, 1 + all.length);
  t.deepEqual(parsed.slice(1).map((row) => row[0]), all.map((o) => o.id));
  t.deepEqual(asked.map((a) => a.limit), [50, 500, 500, 500]);
  t.is(chunks, 1 + asked.length, "one chunk per page: nothing waits for the whole export");
});
