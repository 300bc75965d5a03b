// What new orders may still take of an item (docs/catalog.md#stock), and whether a new
// order's lines fit: pure rules over stock levels, shared by every item message, the
// reservation and the test-mode check, so the number a merchant sees is the number an
// order is checked against.
import type { ShortLine } from "../../platform/out-of-stock.js";

/** An item's own stock level: units on hand (null: not tracked) and units held by pending orders. */
export interface StockLevel {
  stock: number | null;
  held: number;
}

/** One product of a bundle: how many one bundle takes, and the product's stock level. */
export interface BundleLineLevel extends StockLevel {
  product_id: string;
  quantity: number;
}

/** An item as availability sees it: its id, own level, and (a bundle's) products. */
export interface StockedItem extends StockLevel {
  id: string;
  bundle_items: readonly BundleLineLevel[];
}

/** Stock minus held, never below 0 (held units of an oversold item leave nothing); null when not tracked. */
export function ownAvailable(level: StockLevel): number | null {
  return level.stock === null ? null : Math.max(0, level.stock - level.held);
}

/**
 * An item's availability: its own, and for a bundle also floor(available / quantity) of
 * each tracked product; the least of them. Untracked products never limit; null when
 * nothing limits.
 */
export function itemAvailable(item: StockLevel & { bundle_items: readonly BundleLineLevel[] }): number | null {
  let least = ownAvailable(item);
  for (const line of item.bundle_items) {
    const own = ownAvailable(line);
    if (own === null) continue;
    const allows = Math.floor(own / line.quantity);
    least = least === null ? allows : Math.min(least, allows);
  }
  return least;
}

/** The tracked items one unit of `item` takes, with how many units of each (a bundle: its products × quantity, and itself when tracked). */
export function unitsPerItem(item: StockedItem): Map<string, { units: number; level: StockLevel }> {
  const units = new Map<string, { units: number; level: StockLevel }>();
  if (item.stock !== null) units.set(item.id, { units: 1, level: item });
  for (const line of item.bundle_items) {
    if (line.stock === null) continue;
    const before = units.get(line.product_id)?.units ?? 0;
    units.set(line.product_id, { units: before + line.quantity, level: line });
  }
  return units;
}

/** Whether any line's item takes tracked units: when none does, an order holds nothing. */
export function tracksStock(items: readonly StockedItem[]): boolean {
  return items.some((item) => unitsPerItem(item).size > 0);
}

/** A new order's line: its item (undefined when the store has none such) and quantity. */
export interface DemandLine {
  item: StockedItem | undefined;
  quantity: number;
}

/**
 * What a new order holds, or the lines that do not fit. Lines take units in the order's
 * order; a line that does not fit takes nothing and is reported with what is left for it
 * after the lines before it (so two lines of the same product each see what the other
 * leaves). `levels` overrides the items' own levels by item id (the levels read under
 * the rows' locks); unknown items hold nothing (the order is refused elsewhere).
 */
export function planHold(
  lines: readonly DemandLine[],
  levels?: ReadonlyMap<string, StockLevel>,
): { holds: Map<string, number>; short: ShortLine[] } {
  const left = new Map<string, number>();
  const holds = new Map<string, number>();
  const short: ShortLine[] = [];
  for (const [index, line] of lines.entries()) {
    if (!line.item) continue;
    const units = unitsPerItem(line.item);
    let allows = Number.POSITIVE_INFINITY;
    for (const [id, { units: per, level }] of units) {
      if (!left.has(id)) left.set(id, ownAvailable(levels?.get(id) ?? level) ?? 0);
      allows = Math.min(allows, Math.floor(left.get(id)! / per));
    }
    if (allows < line.quantity) {
      short.push({ index, available: allows });
      continue;
    }
    for (const [id, { units: per }] of units) {
      left.set(id, left.get(id)! - per * line.quantity);
      holds.set(id, (holds.get(id) ?? 0) + per * line.quantity);
    }
  }
  return { holds, short };
}
