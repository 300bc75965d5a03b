// What each stock change does to one order's reservation (docs/catalog.md#stock): every
// action applied twice changes nothing the second time, a confirm after the sweep holds
// again, a sale of a released hold takes stock anyway and says when it oversold.
import test from "ava";
import { nextReservation, type ReservationNow, type ReservationState, type StockActionName } from "../../services/catalog/reservation-states.js";

const now = (state: ReservationState, awaitingOrder: boolean, extra: Partial<ReservationNow> = {}): ReservationNow => ({ state, awaitingOrder, quantity: 2, stock: 10, held: 2, ...extra });

/** The state after the actions in turn, and the stock change they made together. */
function run(start: ReservationNow, actions: StockActionName[]): { state: ReservationState; awaitingOrder: boolean; stock: number; oversold: boolean } {
  let current = { ...start };
  let stock = start.stock ?? 0;
  let oversold = false;
  for (const action of actions) {
    const next = nextReservation(current, action);
    if (!next) continue;
    stock += next.stockDelta;
    oversold ||= next.oversold;
    current = { ...current, state: next.state, awaitingOrder: false, stock };
  }
  return { state: current.state, awaitingOrder: current.awaitingOrder, stock, oversold };
}

test("the normal life of a hold: confirm, then sold (stock down), then restocked (stock back)", (t) => {
  t.deepEqual(run(now("held", true), ["confirm", "sell", "restock"]), { state: "restocked", awaitingOrder: false, stock: 10, oversold: false });
  t.deepEqual(run(now("held", true), ["confirm", "sell"]), { state: "sold", awaitingOrder: false, stock: 8, oversold: false });
  t.deepEqual(run(now("held", true), ["confirm", "release"]), { state: "released", awaitingOrder: false, stock: 10, oversold: false });
});

test("every action sent twice does what it did once", (t) => {
  for (const actions of [["confirm"], ["release"], ["sell"], ["restock"], ["confirm", "sell"], ["confirm", "sell", "restock"], ["confirm", "release"]] as StockActionName[][]) {
    const twice = actions.flatMap((a) => [a, a]);
    t.deepEqual(run(now("held", true), twice), run(now("held", true), actions), actions.join(","));
  }
});

test("a confirm after the sweep released the hold holds again; one replayed after the order's own release does not", (t) => {
  t.is(nextReservation(now("released", true), "confirm")?.state, "held");
  t.is(nextReservation(now("released", false), "confirm"), undefined);
  t.deepEqual(run(now("held", true), ["confirm", "release", "confirm"]).state, "released");
  // Swept, then the order service releases (the order never written): a stray confirm later holds nothing.
  t.deepEqual(run(now("released", true), ["release", "confirm"]).state, "released");
});

test("a sale of a released hold takes the units anyway; oversold only when fewer were left than it took", (t) => {
  t.deepEqual(nextReservation(now("released", false, { stock: 10, held: 8 }), "sell"), { state: "sold", settled: true, stockDelta: -2, oversold: false });
  t.deepEqual(nextReservation(now("released", false, { stock: 10, held: 9 }), "sell"), { state: "sold", settled: true, stockDelta: -2, oversold: true });
  t.deepEqual(nextReservation(now("released", false, { stock: 1, held: 0 }), "sell"), { state: "sold", settled: true, stockDelta: -2, oversold: true });
  t.false(nextReservation(now("released", false, { stock: null, held: 0 }), "sell")!.oversold, "an item no longer tracked cannot oversell");
  t.false(nextReservation(now("held", false, { stock: 0, held: 2 }), "sell")!.oversold, "held units were the order's own");
});

test("a restock puts back only what was sold; a release after a sale changes nothing", (t) => {
  t.is(nextReservation(now("held", false), "restock"), undefined);
  t.is(nextReservation(now("released", false), "restock"), undefined);
  t.is(nextReservation(now("sold", false), "release"), undefined);
  t.is(nextReservation(now("restocked", false), "sell"), undefined);
});
