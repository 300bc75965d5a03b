// What an order costs (docs/api.md#pricing): the catalog price at creation times the quantity,
// summed, plus a bank transfer's unique code. Integer-only: amounts are IDR and every
// bound keeps them exact in a JS number (far below 2^53). Pure.
import { ItemStatus, ItemType, type Item } from "../../gen/catalog/v1/catalog_pb.js";
import { MAX_UNIQUE_CODE } from "../../common/order-limits.js";
import type { OrderItemRow } from "./db/orders.js";
import type { TransferAmountUse } from "./db/transfer-amounts.js";
import { fieldError, throwFieldProblems, type FieldProblem } from "../../platform/field-errors.js";
import type { ValidItem } from "./validation.js";

export const MAX_ORDER_TOTAL = 1_000_000_000_000;
export { MAX_UNIQUE_CODE };

export interface PricedLine {
  unitPrice: number;
  quantity: number;
}

export class TotalTooLarge extends Error {}

export function lineTotal(line: PricedLine): number {
  return line.unitPrice * line.quantity;
}

/** Σ line totals; refuses totals over 1,000,000,000,000 IDR. */
export function subtotalOf(lines: PricedLine[]): number {
  let total = 0;
  for (const line of lines) {
    total += lineTotal(line);
    if (total > MAX_ORDER_TOTAL) throw new TotalTooLarge(`order total exceeds ${MAX_ORDER_TOTAL} IDR`);
  }
  return total;
}

/**
 * A code in 1–999 whose `subtotal + code` is free at `now`, least recently used first
 * (docs/reconciliation.md#unique-codes): an amount no reservation has ever held comes first, picked at random
 * among those (they are tied, and concurrent orders then rarely reach for the same
 * one); then the one whose reservation ended longest ago, so a late or repeated
 * transfer for an old order is as unlikely as can be to find a new one. An amount is
 * taken while its reservation lasts (`reserved_until >= now`). Undefined when all are
 * taken.
 */
export function pickUniqueCode(
  subtotal: number,
  uses: Iterable<TransferAmountUse>,
  now: Date,
  random = Math.random,
  /**
   * How many of the oldest free used codes to choose among, at random: 1 is strict
   * least-recently-used order. A caller that lost a race for the oldest widens it, so
   * concurrent orders of one amount stop reaching for the same code.
   */
  spread = 1,
): number | undefined {
  const endedAt = new Map<number, number>();
  for (const use of uses) endedAt.set(use.amount, use.reserved_until.getTime());
  const neverUsed: number[] = [];
  const released: { code: number; ended: number }[] = [];
  for (let code = 1; code <= MAX_UNIQUE_CODE; code++) {
    const ended = endedAt.get(subtotal + code);
    if (ended === undefined) neverUsed.push(code);
    else if (ended < now.getTime()) released.push({ code, ended });
  }
  if (neverUsed.length > 0) return neverUsed[Math.floor(random() * neverUsed.length)];
  if (released.length === 0) return undefined;
  released.sort((a, b) => a.ended - b.ended || a.code - b.code);
  const oldest = released.slice(0, Math.max(1, spread));
  return oldest[Math.floor(random() * oldest.length)]!.code;
}

export type OrderLine = Omit<OrderItemRow, "order_id">;

export type CatalogItem = Pick<Item, "id" | "type" | "title" | "price" | "status">;

/**
 * The requested items priced from the catalog's answer, and their subtotal. Refuses
 * (INVALID_ARGUMENT naming every such field) items the store does not have as that
 * type and ones not published; then a total above MAX_ORDER_TOTAL.
 */
export function priceItems(requested: ValidItem[], catalogItems: CatalogItem[]): { lines: OrderLine[]; subtotal: number } {
  const problems: FieldProblem[] = [];
  const lines: OrderLine[] = [];
  requested.forEach((item, position) => {
    const catalogItem = catalogItems.find((candidate) => candidate.id === item.id);
    const expectedType = item.type === "bundle" ? ItemType.BUNDLE : ItemType.PRODUCT;
    if (!catalogItem || catalogItem.type !== expectedType) {
      problems.push({ field: item.field, description: `no such ${item.type} in this store` });
      return;
    }
    if (catalogItem.status !== ItemStatus.PUBLISHED) {
      problems.push({ field: item.field, description: `${item.type} is not published` });
      return;
    }
    const unitPrice = Number(catalogItem.price);
    lines.push({
      position,
      type: item.type,
      item_id: item.id,
      title: catalogItem.title,
      quantity: item.quantity,
      unit_price: unitPrice,
      line_total: lineTotal({ unitPrice, quantity: item.quantity }),
    });
  });
  throwFieldProblems(problems);
  try {
    return { lines, subtotal: subtotalOf(lines.map((line) => ({ unitPrice: line.unit_price, quantity: line.quantity }))) };
  } catch (error) {
    if (error instanceof TotalTooLarge) throw fieldError("items", error.message);
    throw error;
  }
}
