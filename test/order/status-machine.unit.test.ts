// The status machine of docs/orders.md#status-machine, every pair of statuses: allowed, refused, or a
// harmless repeat; and the events each change announces. Pure.
import test from "ava";
import { checkTransition, eventsForChange, ORDER_STATUSES, type OrderStatus } from "../../services/order/status-machine.js";

const ALLOWED: Record<OrderStatus, OrderStatus[]> = {
  pending: ["paid", "failed", "expired", "cancelled"],
  expired: ["paid"],
  failed: ["paid"],
  paid: ["refunded"],
  cancelled: [],
  refunded: [],
};

test("the statuses are the six documented ones", (t) => {
  t.deepEqual([...ORDER_STATUSES].sort(), ["cancelled", "expired", "failed", "paid", "pending", "refunded"]);
});

for (const from of ORDER_STATUSES) {
  for (const to of ORDER_STATUSES) {
    const expected = from === to ? "repeat" : ALLOWED[from].includes(to) ? "change" : "refused";
    test(`${from} → ${to} is ${expected}`, (t) => {
      t.deepEqual(checkTransition(from, to), { kind: expected });
    });
  }
}

test("every status change announces orderUpdated and the status event, in that order", (t) => {
  for (const to of ["paid", "failed", "expired", "cancelled", "refunded"] as const) {
    t.deepEqual(eventsForChange(to), ["orderUpdated", `order.${to}`]);
  }
});

test("a change to pending (never made by the machine) would announce only orderUpdated", (t) => {
  t.deepEqual(eventsForChange("pending"), ["orderUpdated"]);
});
