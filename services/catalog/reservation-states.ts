// What each stock change does to one reservation (docs/catalog.md#stock): the release
// rules as a pure function, so ApplyStockChanges is idempotent per (order, action) by
// the reservation's own state, and a change sent twice, late or after the sweep does
// what the table in the doc says and nothing more.

export type ReservationState = "held" | "released" | "sold" | "restocked";
export type StockActionName = "confirm" | "release" | "sell" | "restock";

/** A reservation as a change finds it, with its item's stock level read under the item's lock. */
export interface ReservationNow {
  state: ReservationState;
  /** The order service has not yet said what became of the order (confirm_by still set). */
  awaitingOrder: boolean;
  quantity: number;
  /** The item's units on hand; null when it is no longer tracked. */
  stock: number | null;
  /** Units of the item held by every order, this one included when it holds. */
  held: number;
}

/** What to write: the new state, whether the order service has now spoken, the stock change, and whether the sale oversold. */
export interface Transition {
  state: ReservationState;
  /** Clears confirm_by: the sweep no longer concerns it and a replayed confirm does nothing. */
  settled: true;
  stockDelta: number;
  oversold: boolean;
}

const to = (state: ReservationState, stockDelta = 0, oversold = false): Transition => ({ state, settled: true, stockDelta, oversold });

/** The transition `action` makes from `now`; undefined when it changes nothing (already done, or nothing to undo). */
export function nextReservation(now: ReservationNow, action: StockActionName): Transition | undefined {
  switch (action) {
    case "confirm":
      // The order was written. A hold the sweep released meanwhile holds again: the
      // order exists and may be paid. A confirm once the order service has spoken
      // (replayed, or after its own release) does nothing.
      if (!now.awaitingOrder || (now.state !== "held" && now.state !== "released")) return undefined;
      return to("held");
    case "release":
      if (now.state === "held") return to("released");
      // Swept before the order service's own release: settle it, so no stray confirm holds again.
      if (now.state === "released" && now.awaitingOrder) return to("released");
      return undefined;
    case "sell":
      if (now.state === "held") return to("sold", -now.quantity);
      if (now.state === "released") {
        // A late payment: the units are taken anyway. Oversold when what was left for
        // new orders (stock less every hold) was fewer than this sale takes.
        const left = now.stock === null ? Number.POSITIVE_INFINITY : now.stock - now.held;
        return to("sold", -now.quantity, left < now.quantity);
      }
      return undefined;
    case "restock":
      return now.state === "sold" ? to("restocked", now.quantity) : undefined;
  }
}
