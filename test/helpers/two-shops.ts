// Two stores with one 15 000 product each, and a bank account to transfer to: the
// catalog the order service's bank and test-mode router tests price against, so a
// store's order and the other store's look alike except for whose they are. Also the
// catalog stand-ins the order service's router tests use: one that holds no stock
// (notStocking) and one that holds it as the catalog does, in memory (stockingCatalog).
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { OrderDomainDeps } from "../../services/order/domain.js";
import {
  ApplyStockChangesResponseSchema,
  GetOrderCatalogResponseSchema,
  GetStoreResponseSchema,
  ItemSchema,
  ItemStatus,
  ItemType,
  ReserveOrderCatalogResponseSchema,
  StockAction,
  StoreSchema,
  type Item,
  type ReserveOrderCatalogRequest,
} from "../../gen/catalog/v1/catalog_pb.js";
import { outOfStockError, type ShortLine } from "../../platform/out-of-stock.js";

export const SHOP = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
export const OTHER = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
/** SHOP's product, 15 000. */
export const KOPI = "11111111-1111-4111-8111-111111111111";
/** OTHER's product, 15 000. */
export const TEH = "22222222-2222-4222-8222-222222222222";

export const twoShopItems = [
  create(ItemSchema, { id: KOPI, storeId: SHOP, type: ItemType.PRODUCT, title: "Kopi", price: 15_000n, status: ItemStatus.PUBLISHED }),
  create(ItemSchema, { id: TEH, storeId: OTHER, type: ItemType.PRODUCT, title: "Teh", price: 15_000n, status: ItemStatus.PUBLISHED }),
];

export const bankAccount = { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" };

type CatalogStandIn = OrderDomainDeps["catalog"];
type CatalogAnswer = { store?: MessageInitShape<typeof StoreSchema>; items: Item[] };

/**
 * A catalog that tracks no stock: ReserveOrderCatalog answers `answer` (store and
 * items, as GetOrderCatalog did; it may throw) and holds nothing; stock changes are
 * accepted and ignored (none are sent, since nothing is held).
 */
export function notStocking(answer: (request: { storeId: string; ids: string[] }) => CatalogAnswer): CatalogStandIn {
  return {
    reserveOrderCatalog: async ({ storeId = "", lines = [] }) =>
      create(ReserveOrderCatalogResponseSchema, { ...answer({ storeId, ids: lines.map((line) => line.itemId ?? "") }), holdsStock: false }),
    applyStockChanges: async () => create(ApplyStockChangesResponseSchema),
    getOrderCatalog: async ({ storeId = "", ids = [] }) => create(GetOrderCatalogResponseSchema, answer({ storeId, ids })),
  };
}

/** The catalog and store services as the order service asks them, answering from the two shops above. */
export const twoShopServices: Pick<OrderDomainDeps, "stores" | "catalog"> = {
  stores: { getStore: async ({ id }) => create(GetStoreResponseSchema, { store: { id, name: "Toko", bankAccount } }) },
  catalog: notStocking(({ storeId, ids }) => ({
    store: { id: storeId, name: "Toko", bankAccount },
    items: twoShopItems.filter((item) => item.storeId === storeId && ids.includes(item.id)),
  })),
};

export type HoldState = "held" | "released" | "sold" | "restocked";

/**
 * A catalog that holds stock the way docs/catalog.md#stock says, in memory, for the
 * order service's router tests: `stock` says which items are tracked and how many units
 * each has. A new order's tracked units are held for its id (tentatively: `confirmed`
 * says whether CONFIRM came), or it is refused with the one OUT_OF_STOCK error; a
 * test-mode order is checked and holds nothing. Stock changes move each order's hold
 * once per action: release gives units back, sell takes them from stock (a released
 * hold too: oversold), restock puts sold units back. Every request is kept in `calls`.
 */
export function stockingCatalog(options: { items?: Item[]; stock: Record<string, number> }) {
  const items = options.items ?? twoShopItems;
  const stock = new Map(Object.entries(options.stock));
  const holds = new Map<string, { lines: { itemId: string; quantity: number }[]; state: HoldState; confirmed: boolean; oversold: boolean }>();
  const calls = { reserve: [] as ReserveOrderCatalogRequest[], changes: [] as { orderId: string; action: StockAction }[][] };
  /** Units of `itemId` new orders may still take. */
  const available = (itemId: string) => {
    let held = 0;
    for (const hold of holds.values()) if (hold.state === "held") for (const line of hold.lines) if (line.itemId === itemId) held += line.quantity;
    return (stock.get(itemId) ?? 0) - held;
  };
  const catalog: CatalogStandIn = {
    async getOrderCatalog({ storeId = "", ids = [] }) {
      return create(GetOrderCatalogResponseSchema, {
        store: { id: storeId, name: "Toko", bankAccount },
        items: items.filter((item) => item.storeId === storeId && ids.includes(item.id)),
      });
    },
    async reserveOrderCatalog(request) {
      const full = request as ReserveOrderCatalogRequest;
      calls.reserve.push(full);
      const answer = {
        store: { id: full.storeId, name: "Toko", bankAccount },
        items: items.filter((item) => item.storeId === full.storeId && full.lines.some((line) => line.itemId === item.id)),
      };
      const tracked = full.lines.map((line, index) => ({ index, itemId: line.itemId, quantity: Number(line.quantity) })).filter((line) => stock.has(line.itemId));
      if (holds.has(full.orderId)) return create(ReserveOrderCatalogResponseSchema, { ...answer, holdsStock: true });
      const short: ShortLine[] = tracked.filter((line) => line.quantity > available(line.itemId)).map((line) => ({ index: line.index, available: Math.max(0, available(line.itemId)) }));
      if (short.length > 0) throw outOfStockError(short);
      if (tracked.length === 0 || full.testMode) return create(ReserveOrderCatalogResponseSchema, { ...answer, holdsStock: false });
      holds.set(full.orderId, { lines: tracked, state: "held", confirmed: false, oversold: false });
      return create(ReserveOrderCatalogResponseSchema, { ...answer, holdsStock: true });
    },
    async applyStockChanges({ changes = [] }) {
      calls.changes.push(changes.map((change) => ({ orderId: change.orderId ?? "", action: change.action ?? StockAction.UNSPECIFIED })));
      for (const change of changes) {
        const hold = holds.get(change.orderId ?? "");
        if (!hold) continue;
        const move = (sign: number) => {
          for (const line of hold.lines) stock.set(line.itemId, stock.get(line.itemId)! + sign * line.quantity);
        };
        switch (change.action) {
          case StockAction.CONFIRM:
            hold.confirmed = true;
            if (hold.state === "released") hold.state = "held";
            break;
          case StockAction.RELEASE:
            if (hold.state === "held") hold.state = "released";
            break;
          case StockAction.SELL:
            // A released hold is sold anyway: oversold when its units were no longer there.
            if (hold.state === "released") hold.oversold = hold.lines.some((line) => available(line.itemId) < line.quantity);
            if (hold.state === "held" || hold.state === "released") {
              move(-1);
              hold.state = "sold";
            }
            break;
          case StockAction.RESTOCK:
            if (hold.state === "sold") {
              move(1);
              hold.state = "restocked";
            }
            break;
        }
      }
      return create(ApplyStockChangesResponseSchema);
    },
  };
  return { catalog, calls, holds, stock, available };
}
