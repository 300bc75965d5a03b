// What each change of an order does to the stock it holds (services/order/stock.ts).
import test from "ava";
import { StockAction } from "../../gen/catalog/v1/catalog_pb.js";
import { ORDER_STATUSES } from "../../services/order/status-machine.js";
import { restockChange, stockActionOnStatus, stockChangeMessage, stockChangesForStatus } from "../../services/order/stock.js";

const holding = { id: "o-1", store_id: "s-1", holds_stock: true };
const notHolding = { id: "o-2", store_id: "s-1", holds_stock: false };

test("paid sells, expired, cancelled and failed release, pending and refunded change nothing", (t) => {
  t.deepEqual(Object.fromEntries(ORDER_STATUSES.map((status) => [status, stockActionOnStatus(status)])), {
    pending: undefined,
    paid: "sell",
    expired: "release",
    cancelled: "release",
    failed: "release",
    refunded: undefined,
  });
});

test("only orders holding stock write a stock change", (t) => {
  t.deepEqual(stockChangesForStatus([holding, notHolding], "cancelled"), [{ store_id: "s-1", order_id: "o-1", action: "release" }]);
  t.deepEqual(stockChangesForStatus([holding], "refunded"), []);
});

test("a refund restocks only when it asked to, succeeded, and the order holds stock", (t) => {
  t.deepEqual(restockChange(holding, { restock: true, status: "succeeded" }), [{ store_id: "s-1", order_id: "o-1", action: "restock" }]);
  t.deepEqual(restockChange(holding, { restock: false, status: "succeeded" }), []);
  t.deepEqual(restockChange(holding, { restock: true, status: "pending" }), []);
  t.deepEqual(restockChange(holding, { restock: true, status: "failed" }), []);
  t.deepEqual(restockChange(notHolding, { restock: true, status: "succeeded" }), []);
});

test("each stored action is its ApplyStockChanges action", (t) => {
  const actions = (["confirm", "release", "sell", "restock"] as const).map((action) => stockChangeMessage({ store_id: "s", order_id: "o", action }).action);
  t.deepEqual(actions, [StockAction.CONFIRM, StockAction.RELEASE, StockAction.SELL, StockAction.RESTOCK]);
});
