// Orders and stock in the order service (docs/orders.md#stock, docs/refunds.md#restock),
// through the real gRPC handlers in memory on real SQL, with a catalog that holds stock
// the way the catalog does (test/helpers/two-shops.ts stockingCatalog) and the real
// stock relay sending to it. A new order's units are held under its own id by one
// catalog call; not enough stock is the catalog's OUT_OF_STOCK as it came; each change
// of an order that holds stock writes its stock change with the change, and the relay
// hands them to the catalog in the order written; an order not written gives its hold
// back at once; test orders and idempotent replays hold nothing.
import test, { type ExecutionContext } from "ava";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { pino } from "pino";
import { OPERATOR } from "../../common/actor.js";
import { StockAction } from "../../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { outOfStockLines } from "../../platform/out-of-stock.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { serverInterceptors } from "../../platform/rpc-server.js";
import { createOrderDomain } from "../../services/order/domain.js";
import { createOrderRoutes } from "../../services/order/routes.js";
import { startStockRelay } from "../../services/order/stock-relay.js";
import { fakeGateway } from "../helpers/fake-payment-gateway.js";
import { capturingLogger } from "../helpers/logs.js";
import { orderTables } from "../helpers/order-tables.js";
import { failure } from "../helpers/rpc-failure.js";
import { KOPI, SHOP, stockingCatalog, twoShopServices } from "../helpers/two-shops.js";

const silent = pino({ level: "silent" });
const buyer = { name: "Budi", email: "budi@example.co.id", phone: "+6281234567890" };

async function setup(t: ExecutionContext, options: { stock?: Record<string, number>; paymentWindowMs?: number; relay?: boolean; loseAnswers?: boolean } = {}) {
  const tables = await orderTables(t);
  const stocking = stockingCatalog({ stock: options.stock ?? { [KOPI]: 10 } });
  if (options.loseAnswers) {
    // The catalog holds the units, but its answer never arrives.
    const reserve = stocking.catalog.reserveOrderCatalog;
    stocking.catalog.reserveOrderCatalog = async (request) => {
      await reserve(request);
      throw new ConnectError("the operation timed out", Code.DeadlineExceeded);
    };
  }
  const logs: Record<string, unknown>[] = [];
  const logger = capturingLogger(logs);
  const relay = options.relay === false ? undefined : startStockRelay({ sql: tables.sql, catalog: stocking.catalog, logger, pollMs: 50 });
  t.teardown(() => relay?.stop());
  const domain = createOrderDomain({
    sql: tables.sql,
    logger,
    stores: twoShopServices.stores,
    catalog: stocking.catalog,
    gateway: fakeGateway("https://api.example"),
    publicBaseUrl: "https://api.example",
    paymentWindowMs: options.paymentWindowMs ?? 3_600_000,
    midtransServerKey: "server-key",
    onEventsCommitted: () => relay?.kick(),
  });
  const transport = createRouterTransport(createOrderRoutes(domain), { router: { interceptors: serverInterceptors(silent) }, transport: { interceptors: [actorInterceptor(OPERATOR)] } });
  const orders = createClient(OrderService, transport);
  async function newOrder(fields: { quantity?: number; testMode?: boolean; idempotencyKey?: string; paymentMethod?: string; productId?: string } = {}) {
    const answer = await orders.createOrder({
      storeId: SHOP,
      items: [{ ref: { case: "productId", value: fields.productId ?? KOPI }, quantity: fields.quantity ?? 1 }],
      buyer,
      paymentMethod: fields.paymentMethod ?? "bank_transfer",
      requestHash: "h",
      testMode: fields.testMode ?? false,
      idempotencyKey: fields.idempotencyKey,
    });
    return answer.detail!.order!;
  }
  /** The order's stock changes as written, oldest first, and whether each was sent. */
  const changes = async (orderId: string) =>
    (await tables.direct<{ action: string; sent: boolean }[]>`select action, sent_at is not null as sent from stock_changes where order_id = ${orderId} order by id`).map((row) => ({ ...row }));
  /** Waits until the catalog has had every stock change written (the relay's work). */
  async function relayed() {
    const started = Date.now();
    for (;;) {
      const [row] = await tables.direct<{ count: number }[]>`select count(*)::int as count from stock_changes where sent_at is null`;
      if (row!.count === 0) return;
      if (Date.now() - started > 10_000) throw new Error("stock changes were not relayed within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return { tables, domain, orders, stocking, newOrder, changes, relayed, logs };
}

test("an order of a tracked product holds its units under the order's own id; the hold is confirmed with the order's write and relayed", async (t) => {
  const { newOrder, stocking, changes, relayed, tables } = await setup(t);
  const order = await newOrder({ quantity: 3 });
  t.is(stocking.calls.reserve.length, 1, "one catalog call prices and holds");
  t.like(stocking.calls.reserve[0], { storeId: SHOP, orderId: order.id, testMode: false });
  t.deepEqual(stocking.calls.reserve[0]!.lines.map((line) => [line.itemId, line.quantity]), [[KOPI, 3n]]);
  t.true((await tables.order(order.id))!.holds_stock);
  t.is(stocking.available(KOPI), 7);
  await relayed();
  t.deepEqual(await changes(order.id), [{ action: "confirm", sent: true }]);
  t.true(stocking.holds.get(order.id)!.confirmed, "the catalog was told the order was written");
});

test("not enough stock: the catalog's OUT_OF_STOCK comes through as it came, naming the line and what is left, and nothing is written", async (t) => {
  const { newOrder, tables, stocking } = await setup(t, { stock: { [KOPI]: 2 } });
  let error: ConnectError | undefined;
  try {
    await newOrder({ quantity: 3 });
  } catch (caught) {
    error = ConnectError.from(caught);
  }
  t.is(error?.code, Code.FailedPrecondition);
  t.is(error?.rawMessage, "items[0].quantity: only 2 available");
  t.deepEqual(outOfStockLines(error!), [{ field: "items[0].quantity", description: "only 2 available", available: 2 }]);
  t.is(await tables.count("orders"), 0);
  t.is((await tables.direct`select 1 from stock_changes`).length, 0);
  t.is(stocking.available(KOPI), 2, "nothing held");
});

test("cancelled, expired and failed give the units back and paid sells them: each change written with the status change, relayed in order", async (t) => {
  const { newOrder, orders, domain, stocking, changes, relayed, tables } = await setup(t);
  const cancelled = await newOrder();
  const paid = await newOrder();
  const failed = await newOrder();
  const expiring = await newOrder();
  t.is(stocking.available(KOPI), 6);
  await orders.cancelOrder({ storeId: SHOP, orderId: cancelled.id });
  await orders.markOrderPaid({ storeId: SHOP, orderId: paid.id });
  await domain.orders.changeStatus(failed.id, "failed", "payment failed at the gateway");
  await tables.direct`update orders set expires_at = now() - interval '1 second' where id = ${expiring.id}`;
  t.is(await domain.expiry.expireDue(), 1);
  await relayed();
  t.deepEqual(await changes(cancelled.id), [{ action: "confirm", sent: true }, { action: "release", sent: true }]);
  t.deepEqual(await changes(paid.id), [{ action: "confirm", sent: true }, { action: "sell", sent: true }]);
  t.deepEqual(await changes(failed.id), [{ action: "confirm", sent: true }, { action: "release", sent: true }]);
  t.deepEqual(await changes(expiring.id), [{ action: "confirm", sent: true }, { action: "release", sent: true }]);
  t.deepEqual(
    [cancelled, paid, failed, expiring].map((order) => stocking.holds.get(order.id)!.state),
    ["released", "sold", "released", "released"],
  );
  t.is(stocking.stock.get(KOPI), 9, "the paid unit left the stock");
  t.is(stocking.available(KOPI), 9, "the others are available again");
  // A repeat is no change: nothing more to send.
  await orders.cancelOrder({ storeId: SHOP, orderId: cancelled.id });
  t.is((await changes(cancelled.id)).length, 2);
});

test("a late payment of an expired order sells its units anyway: the catalog is told, and marks it oversold when they were sold meanwhile", async (t) => {
  const { newOrder, orders, domain, stocking, changes, relayed, tables } = await setup(t, { stock: { [KOPI]: 1 } });
  const late = await newOrder();
  await tables.direct`update orders set expires_at = now() - interval '1 second' where id = ${late.id}`;
  await domain.expiry.expireDue();
  await relayed();
  const other = await newOrder();
  await orders.markOrderPaid({ storeId: SHOP, orderId: other.id });
  await orders.markOrderPaid({ storeId: SHOP, orderId: late.id });
  await relayed();
  t.deepEqual((await changes(late.id)).map((change) => change.action), ["confirm", "release", "sell"]);
  t.is((await orders.getOrder({ storeId: SHOP, orderId: late.id })).detail!.order!.status, "paid");
  t.true(stocking.holds.get(late.id)!.oversold);
  t.is(stocking.stock.get(KOPI), -1);
});

test("an order that fails after its units were held gives them back at once, without waiting for the catalog's sweep", async (t) => {
  const { newOrder, stocking, tables, logs } = await setup(t, { relay: false });
  // A method the store does not offer is found only once the catalog has answered.
  t.like(await failure(newOrder({ paymentMethod: "cash_on_delivery" })), { code: Code.InvalidArgument, field: "payment_method" });
  // The write itself fails: the transaction is interrupted.
  await tables.direct`create function refuse_orders() returns trigger language plpgsql as $$ begin raise exception 'the disk is full'; end $$`;
  await tables.direct`create trigger refuse_orders before insert on orders for each row execute function refuse_orders()`;
  t.like(await failure(newOrder()), { code: Code.Internal });
  const reserved = stocking.calls.reserve.map((call) => call.orderId);
  t.is(reserved.length, 2);
  const until = Date.now() + 5_000;
  while (stocking.calls.changes.length < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  t.deepEqual(stocking.calls.changes, reserved.map((orderId) => [{ orderId, action: StockAction.RELEASE }]));
  t.is(stocking.available(KOPI), 10);
  t.is(await tables.count("orders"), 0);
  t.is(logs.filter((line) => line.msg === "stock held for an order that was not written released").length, 2);
});

test("a hold whose answer was lost (the call timed out after the catalog held the units) is released at once; a refusal sends nothing", async (t) => {
  const { newOrder, stocking, tables } = await setup(t, { relay: false, loseAnswers: true });
  t.like(await failure(newOrder({ quantity: 4 })), { code: Code.DeadlineExceeded });
  const until = Date.now() + 5_000;
  while (stocking.calls.changes.length < 1 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  t.deepEqual(stocking.calls.changes, [[{ orderId: stocking.calls.reserve[0]!.orderId, action: StockAction.RELEASE }]]);
  t.is(stocking.available(KOPI), 10);
  t.is(await tables.count("orders"), 0);
  // Not enough stock is a refusal: nothing was held, nothing to release (a release is
  // asked for before the error reaches the caller, so none has been by now).
  const refusing = await setup(t, { relay: false, stock: { [KOPI]: 1 } });
  t.like(await failure(refusing.newOrder({ quantity: 2 })), { code: Code.FailedPrecondition });
  t.deepEqual(refusing.stocking.calls.changes, []);
});

test("a refund that asks to restock puts the sold units back once it succeeds; one that does not leaves them sold; each refund says which", async (t) => {
  const { newOrder, orders, stocking, changes, relayed } = await setup(t);
  const kept = await newOrder({ quantity: 2 });
  const returned = await newOrder({ quantity: 3 });
  await orders.markOrderPaid({ storeId: SHOP, orderId: kept.id });
  await orders.markOrderPaid({ storeId: SHOP, orderId: returned.id });
  const plain = await orders.refundOrder({ storeId: SHOP, orderId: kept.id, reason: "late delivery", requestHash: "a" });
  const restocked = await orders.refundOrder({ storeId: SHOP, orderId: returned.id, reason: "returned", requestHash: "b", restock: true });
  t.like(plain.refund, { status: "succeeded", restock: false });
  t.like(restocked.refund, { status: "succeeded", restock: true });
  t.deepEqual(restocked.order!.refunds.map((refund) => refund.restock), [true]);
  await relayed();
  t.deepEqual((await changes(kept.id)).map((change) => change.action), ["confirm", "sell"]);
  t.deepEqual((await changes(returned.id)).map((change) => change.action), ["confirm", "sell", "restock"]);
  t.is(stocking.stock.get(KOPI), 8, "the 3 returned units are back, the 2 kept are not");
  t.is((await orders.getOrder({ storeId: SHOP, orderId: returned.id })).detail!.order!.refunds[0]!.restock, true);
});

test("a test-mode order is checked against what is available but holds nothing and sends nothing", async (t) => {
  const { newOrder, stocking, tables } = await setup(t, { stock: { [KOPI]: 1 } });
  const order = await newOrder({ testMode: true });
  t.true(stocking.calls.reserve[0]!.testMode);
  t.false((await tables.order(order.id))!.holds_stock);
  t.is(stocking.available(KOPI), 1);
  t.like(await failure(newOrder({ testMode: true, quantity: 2 })), { code: Code.FailedPrecondition, message: "items[0].quantity: only 1 available" });
  t.is((await tables.direct`select 1 from stock_changes`).length, 0);
});

test("an idempotent replay answers the first order again and never asks the catalog, so it holds nothing more", async (t) => {
  const { newOrder, stocking } = await setup(t);
  const first = await newOrder({ quantity: 2, idempotencyKey: "order-1" });
  const again = await newOrder({ quantity: 2, idempotencyKey: "order-1" });
  t.is(again.id, first.id);
  t.is(stocking.calls.reserve.length, 1);
  t.is(stocking.available(KOPI), 8);
});

test("an order of untracked products holds nothing and writes no stock change", async (t) => {
  const { newOrder, orders, stocking, tables } = await setup(t, { stock: {} });
  const order = await newOrder();
  await orders.cancelOrder({ storeId: SHOP, orderId: order.id });
  t.false((await tables.order(order.id))!.holds_stock);
  t.is((await tables.direct`select 1 from stock_changes`).length, 0);
  t.is(stocking.calls.changes.length, 0);
});
