// Stock holds of new orders (docs/catalog.md#stock): the one call that prices an order
// and holds its units, the changes the order service relays as its orders move on, what
// an order holds, and the sweep that releases holds no order ever confirmed.
import { StockAction, type ReserveOrderCatalogRequest, type StockChange } from "../../gen/catalog/v1/catalog_pb.js";
import { isUuid } from "../../common/ids.js";
import { MAX_ITEM_QUANTITY, MAX_ITEMS_PER_ORDER } from "../../common/order-limits.js";
import { transaction, type Sql } from "../../platform/db.js";
import { fieldErrors } from "../../platform/field-errors.js";
import type { Logger } from "../../platform/logger.js";
import { outOfStockError } from "../../platform/out-of-stock.js";
import { planHold, tracksStock, unitsPerItem, type DemandLine } from "./availability.js";
import * as stock from "./db/stock.js";
import type { ItemRow } from "./db/items.js";
import type { StoreRow } from "./db/stores.js";
import type { Items } from "./items.js";
import { nextReservation, type StockActionName } from "./reservation-states.js";
import { requireUuid } from "./validation.js";

/** STOCK_CONFIRM_SECONDS' default: how long a hold waits for its order to be confirmed. */
export const DEFAULT_STOCK_CONFIRM_SECONDS = 120;
/** Changes one ApplyStockChanges call may carry. */
export const MAX_STOCK_CHANGES = 500;

const ACTIONS: Partial<Record<StockAction, StockActionName>> = {
  [StockAction.CONFIRM]: "confirm",
  [StockAction.RELEASE]: "release",
  [StockAction.SELL]: "sell",
  [StockAction.RESTOCK]: "restock",
};

/** A checked stock change. */
export interface StockChangeOf {
  storeId: string;
  orderId: string;
  action: StockActionName;
}

/** The changes of an ApplyStockChanges call checked, each field named by its place in the list. */
export function stockChanges(changes: readonly Pick<StockChange, "storeId" | "orderId" | "action">[]): StockChangeOf[] {
  if (changes.length > MAX_STOCK_CHANGES) throw fieldErrors([{ field: "changes", description: `must have at most ${MAX_STOCK_CHANGES} changes` }]);
  return changes.map((change, n) => {
    const action = ACTIONS[change.action];
    if (!action) throw fieldErrors([{ field: `changes[${n}].action`, description: "must be confirm, release, sell or restock" }]);
    return { storeId: requireUuid(change.storeId, `changes[${n}].store_id`), orderId: requireUuid(change.orderId, `changes[${n}].order_id`), action };
  });
}

/** An order's lines checked: ids as given (a malformed one matches no item), quantities of 1 or more. */
export function orderLines(lines: ReserveOrderCatalogRequest["lines"]): { itemId: string; quantity: number }[] {
  if (lines.length > MAX_ITEMS_PER_ORDER) throw fieldErrors([{ field: "lines", description: `must have at most ${MAX_ITEMS_PER_ORDER} lines` }]);
  return lines.map((line, n) => {
    if (line.quantity < 1n || line.quantity > BigInt(MAX_ITEM_QUANTITY)) throw fieldErrors([{ field: `lines[${n}].quantity`, description: `must be from 1 to ${MAX_ITEM_QUANTITY}` }]);
    return { itemId: isUuid(line.itemId) ? line.itemId.toLowerCase() : "", quantity: Number(line.quantity) };
  });
}

export function createStock({ sql, items, confirmSeconds = DEFAULT_STOCK_CONFIRM_SECONDS, logger }: { sql: Sql; items: Pick<Items, "getWithStore">; confirmSeconds?: number; logger?: Logger }) {
  /** One change of one order, in its own transaction: the order's items locked in id order, then its reservations. */
  async function applyOne(change: StockChangeOf): Promise<void> {
    await transaction(sql, async (tx) => {
      for (const row of await stock.lockOrderReservations(tx, change.storeId, change.orderId)) {
        const next = nextReservation({ state: row.state, awaitingOrder: row.confirm_by !== null, quantity: row.quantity, stock: row.stock, held: row.held }, change.action);
        if (!next) continue;
        await stock.setReservation(tx, row.order_id, row.item_id, next);
        await stock.addStock(tx, row.item_id, next.stockDelta);
        if (next.oversold) logger?.warn({ storeId: change.storeId, orderId: change.orderId, itemId: row.item_id, quantity: row.quantity }, "late payment oversold stock");
      }
    });
  }

  return {
    /**
     * The store and the lines' items (as GetOrderCatalog), and the order's units held
     * (docs/catalog.md#stock). No tracked item among them: the one read, no transaction.
     * A test-mode order, or one naming an item the store lacks (refused by the order
     * service anyway), is checked but holds nothing. Short lines: OUT_OF_STOCK, nothing held.
     */
    async reserve(request: Pick<ReserveOrderCatalogRequest, "storeId" | "orderId" | "lines" | "testMode">): Promise<{ store: StoreRow; items: ItemRow[]; holdsStock: boolean }> {
      const orderId = requireUuid(request.orderId, "order_id");
      const lines = orderLines(request.lines);
      const found = await items.getWithStore(request.storeId, lines.map((line) => line.itemId).filter((id) => id !== ""));
      if (!tracksStock(found.items)) return { ...found, holdsStock: false };
      const byId = new Map(found.items.map((item) => [item.id, item]));
      const demand: DemandLine[] = lines.map((line) => ({ item: byId.get(line.itemId), quantity: line.quantity }));
      if (request.testMode || demand.some((line) => !line.item)) {
        const { short } = planHold(demand);
        if (short.length > 0) throw outOfStockError(short);
        return { ...found, holdsStock: false };
      }
      const tracked = [...new Set(demand.flatMap((line) => [...unitsPerItem(line.item!).keys()]))];
      const holdsStock = await transaction(sql, async (tx) => {
        const levels = await stock.lockStockLevels(tx, found.store.id, tracked);
        // Asked again for the same order (a retried call): what it holds already stands.
        const existing = await stock.orderReservations(tx, found.store.id, orderId);
        if (existing.length > 0) return existing.some((row) => row.state === "held");
        const { holds, short } = planHold(demand, levels);
        if (short.length > 0) throw outOfStockError(short);
        await stock.insertHolds(tx, found.store.id, orderId, holds, confirmSeconds);
        return holds.size > 0;
      });
      return { ...found, holdsStock };
    },

    /** Each change in turn, each idempotent (reservation-states.ts); an order holding nothing is left alone. */
    async apply(changes: readonly StockChangeOf[]): Promise<void> {
      for (const change of changes) await applyOne(change);
    },

    /** What the order holds or took of the store's stock, by item id. */
    async ofOrder(storeId: string, orderId: string) {
      return stock.orderReservations(sql, storeId, orderId);
    },

    /** One pass of the sweep: every hold past its confirm_by released, in batches. The number released. */
    async sweep(batch = 500): Promise<number> {
      let total = 0;
      for (;;) {
        const released = await stock.releaseUnconfirmed(sql, batch);
        total += released.length;
        for (const row of released) logger?.info({ orderId: row.order_id, itemId: row.item_id, quantity: row.quantity }, "unconfirmed stock hold released");
        if (released.length < batch) return total;
      }
    },
  };
}

export type Stock = ReturnType<typeof createStock>;

/**
 * Runs the sweep every `everyMs` (default 5 s) until stopped. Several instances are safe
 * (SKIP LOCKED); a failed pass is logged and the next one tries again.
 */
export function startStockSweep({ stock, logger, everyMs = 5_000 }: { stock: Pick<Stock, "sweep">; logger: Logger; everyMs?: number }) {
  let stopped = false;
  let running: Promise<void> | undefined;
  const pass = async () => {
    try {
      await stock.sweep();
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "stock sweep failed; trying again");
    }
  };
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = pass().finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    /** Stops the timer and waits for a pass under way. */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

