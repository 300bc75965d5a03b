// Integer-only order arithmetic. Amounts are IDR; every bound keeps them exact in a
// JS number (far below 2^53).

export const MAX_ORDER_TOTAL = 1_000_000_000_000;
export const MAX_UNIQUE_CODE = 999;

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
 * A code in 1–999 whose `subtotal + code` is not among `takenAmounts`, picked at
 * random so concurrent orders rarely reach for the same one; undefined when all are
 * taken.
 */
export function pickUniqueCode(subtotal: number, takenAmounts: Iterable<number>, random = Math.random): number | undefined {
  const taken = new Set(takenAmounts);
  const free: number[] = [];
  for (let code = 1; code <= MAX_UNIQUE_CODE; code++) {
    if (!taken.has(subtotal + code)) free.push(code);
  }
  if (free.length === 0) return undefined;
  return free[Math.floor(random() * free.length)];
}
