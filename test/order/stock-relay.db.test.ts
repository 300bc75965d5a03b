// The stock relay (services/order/stock-relay.ts) on a database of the test's own, with
// a stand-in catalog: an order's later change never overtakes an earlier one another
// relay is still sending (else a release could arrive before its confirm and the hold
// would stay for good), and changes the catalog could not take wait and go once it is back.
import test, { type ExecutionContext } from "ava";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { pino } from "pino";
import { ApplyStockChangesResponseSchema, StockAction, type StockChangeSchema } from "../../gen/catalog/v1/catalog_pb.js";
import { insertStockChanges, type StockChangeAction } from "../../services/order/db/stock-changes.js";
import { startStockRelay } from "../../services/order/stock-relay.js";
import { orderTables, type OrderTables } from "../helpers/order-tables.js";

const STORE = "77777777-7777-4777-8777-777777777777";
const ORDERS = Array.from({ length: 3 }, (_, i) => `66666666-6666-4666-8666-${String(i).padStart(12, "0")}`);
const NAMES: Record<number, StockChangeAction> = { [StockAction.CONFIRM]: "confirm", [StockAction.RELEASE]: "release", [StockAction.SELL]: "sell", [StockAction.RESTOCK]: "restock" };
const logger = pino({ level: "silent" });

async function withOrders(t: ExecutionContext): Promise<OrderTables> {
  const tables = await orderTables(t);
  for (const [i, id] of ORDERS.entries()) {
    await tables.direct`
      insert into orders (id, store_id, status, payment_reference, payment_kind, payment_method, payment_provider, settlement_channel,
        subtotal, amount, buyer_name, buyer_email, buyer_phone, store_name, success_url, return_url, error_url, expires_at, holds_stock)
      values (${id}, ${STORE}, 'pending', ${`SO-STOCKTEST${i}`}, 'none', 'none', 'none', 'none',
        0, 0, 'Budi', 'budi@example.co.id', '+6281234567890', 'Toko', 'https://shop.example/', 'https://shop.example/', 'https://shop.example/', now(), true)`;
  }
  return tables;
}

const write = (tables: OrderTables, changes: [string, StockChangeAction][]) =>
  insertStockChanges(tables.direct, changes.map(([order_id, action]) => ({ store_id: STORE, order_id, action })));

/** The batches a catalog stand-in was sent, as [order, action] pairs. */
const batchOf = (request: { changes?: MessageInitShape<typeof StockChangeSchema>[] }) => (request.changes ?? []).map((change): [string, StockChangeAction] => [change.orderId ?? "", NAMES[change.action ?? StockAction.UNSPECIFIED]!]);

async function until(condition: () => boolean | Promise<boolean>) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > 10_000) throw new Error("not within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test("while one relay is still sending an order's confirm, another sends other orders' changes but not that order's release", async (t) => {
  const tables = await withOrders(t);
  const [first, second] = ORDERS as [string, string];
  const sent: [string, StockChangeAction][][] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const catalog = {
    async applyStockChanges(request: { changes?: MessageInitShape<typeof StockChangeSchema>[] }) {
      const batch = batchOf(request);
      // The first batch hangs in the catalog until the test lets it go.
      if (sent.length === 0) {
        sent.push(batch);
        await gate;
      } else sent.push(batch);
      return create(ApplyStockChangesResponseSchema);
    },
  };
  await write(tables, [[first, "confirm"]]);
  const slow = startStockRelay({ sql: tables.sql, catalog, logger, pollMs: 60_000 });
  t.teardown(() => slow.stop());
  await until(() => sent.length === 1);
  await write(tables, [
    [first, "release"],
    [second, "confirm"],
  ]);
  const other = startStockRelay({ sql: tables.sql, catalog, logger, pollMs: 60_000 });
  t.teardown(() => other.stop());
  await until(() => sent.length === 2);
  t.deepEqual(sent, [[[first, "confirm"]], [[second, "confirm"]]], "the release waits for its confirm");
  open();
  await until(async () => (await slow.backlog()).count === 0);
  t.deepEqual(sent.flat().filter(([order]) => order === first), [
    [first, "confirm"],
    [first, "release"],
  ]);
});

test("changes the catalog could not take wait and go, once each and in order, when it is back; sent ones are deleted after their keep", async (t) => {
  const tables = await withOrders(t);
  const received: [string, StockChangeAction][] = [];
  let calls = 0;
  const catalog = {
    async applyStockChanges(request: { changes?: MessageInitShape<typeof StockChangeSchema>[] }) {
      if (++calls <= 2) throw new ConnectError("catalog restarting", Code.Unavailable);
      received.push(...batchOf(request));
      return create(ApplyStockChangesResponseSchema);
    },
  };
  const written: [string, StockChangeAction][] = ORDERS.flatMap((id): [string, StockChangeAction][] => [
    [id, "confirm"],
    [id, "sell"],
    [id, "restock"],
  ]);
  await write(tables, written);
  const relay = startStockRelay({ sql: tables.sql, catalog, logger, pollMs: 20, keepSentSeconds: 0, purgeEveryMs: 50 });
  t.teardown(() => relay.stop());
  await until(async () => (await relay.backlog()).count === 0);
  t.true(calls > 2);
  t.deepEqual(received.toSorted(), written.toSorted(), "each once");
  for (const id of ORDERS) t.deepEqual(received.filter(([order]) => order === id).map(([, action]) => action), ["confirm", "sell", "restock"]);
  await until(async () => (await tables.direct`select 1 from stock_changes`).length === 0);
  t.is((await tables.direct`select 1 from stock_changes`).length, 0, "every sent change was deleted");
});
