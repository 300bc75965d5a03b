// What an order's changes do to the stock it holds (docs/orders.md#stock): the rules,
// pure. The catalog held the order's units before the order was written; each later
// change of an order that holds stock writes one stock change in its own transaction
// (db/stock-changes.ts), which stock-relay.ts hands to the catalog.
import { StockAction } from "../../gen/catalog/v1/catalog_pb.js";
import type { NewStockChange, StockChangeAction } from "./db/stock-changes.js";
import type { OrderRow } from "./db/orders.js";
import type { OrderStatus } from "./status-machine.js";

/**
 * The stock change a move to `to` makes: paid sells the held units (a late payment
 * after a release sells them anyway: the catalog marks it oversold), expired, cancelled
 * and failed give them back. refunded changes nothing by itself: a refund asks to
 * restock or not (restockChange).
 */
export function stockActionOnStatus(to: OrderStatus): StockChangeAction | undefined {
  switch (to) {
    case "paid":
      return "sell";
    case "expired":
    case "cancelled":
    case "failed":
      return "release";
    case "pending":
    case "refunded":
      return undefined;
  }
}

type Holder = Pick<OrderRow, "id" | "store_id" | "holds_stock">;

/** The stock changes of moving each of `rows` to `to`: only orders holding stock have any. */
export function stockChangesForStatus(rows: readonly Holder[], to: OrderStatus): NewStockChange[] {
  const action = stockActionOnStatus(to);
  if (!action) return [];
  return rows.filter((row) => row.holds_stock).map((row) => ({ store_id: row.store_id, order_id: row.id, action }));
}

/** The change of a refund that succeeded: its units back when it asked so and the order holds stock. */
export function restockChange(order: Holder, refund: { restock: boolean; status: string }): NewStockChange[] {
  if (!refund.restock || refund.status !== "succeeded" || !order.holds_stock) return [];
  return [{ store_id: order.store_id, order_id: order.id, action: "restock" }];
}

const ACTIONS: Record<StockChangeAction, StockAction> = {
  confirm: StockAction.CONFIRM,
  release: StockAction.RELEASE,
  sell: StockAction.SELL,
  restock: StockAction.RESTOCK,
};

/** A stored change as ApplyStockChanges carries it. */
export function stockChangeMessage(change: NewStockChange) {
  return { storeId: change.store_id, orderId: change.order_id, action: ACTIONS[change.action] };
}
