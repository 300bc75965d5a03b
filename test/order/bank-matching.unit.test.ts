// Which order a bank credit pays, and how long an order keeps its transfer amount
// (docs/reconciliation.md#matching): services/order/bank-matching.ts on hand-made orders. No database.
import test from "ava";
import { decideMatch, reservationAfter, UNMATCHED_REASONS, type CandidateOrder } from "../../services/order/bank-matching.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GRACE = 7 * DAY;
const T0 = Date.parse("2026-11-20T03:00:00Z");
const AMOUNT = 170_906;

/** A bank-transfer order of AMOUNT made at `created` (hours after T0) with a 24 h window. */
function order(id: string, status: CandidateOrder["status"], created: number, changed = created + 1, fields: Partial<CandidateOrder> = {}): CandidateOrder {
  return {
    id,
    status,
    payment_kind: "bank_transfer",
    amount: AMOUNT,
    created_at: new Date(T0 + created * HOUR),
    expires_at: new Date(T0 + (created + 24) * HOUR),
    updated_at: new Date(T0 + changed * HOUR),
    ...fields,
  };
}

/** A credit of AMOUNT at `at` hours after T0. */
const credit = (at: number, amount = AMOUNT) => ({ amount, occurredAt: new Date(T0 + at * HOUR) });

test("a pending order made before the transfer is paid by it", (t) => {
  t.deepEqual(decideMatch(credit(2), [order("a", "pending", 0)], GRACE), { result: "matched", orderId: "a" });
});

test("orders of another amount or kind are not candidates", (t) => {
  const others = [order("a", "pending", 0, 1, { amount: AMOUNT + 1 }), order("b", "pending", 0, 1, { payment_kind: "gateway" })];
  t.deepEqual(decideMatch(credit(2), others, GRACE), { result: "unmatched", reason: "no order with this amount" });
  t.deepEqual(decideMatch(credit(2), [], GRACE), { result: "unmatched", reason: UNMATCHED_REASONS.none });
});

test("an expired order matches a transfer up to the grace after its expiry, not a moment later", (t) => {
  const expired = [order("a", "expired", 0, 24)];
  // Expiry at hour 24; the grace ends at hour 24 + 168.
  t.deepEqual(decideMatch(credit(30), expired, GRACE), { result: "matched", orderId: "a" });
  t.deepEqual(decideMatch(credit(24 + 168), expired, GRACE), { result: "matched", orderId: "a" }, "at most the grace: the last instant counts");
  t.deepEqual(decideMatch({ amount: AMOUNT, occurredAt: new Date(T0 + (24 + 168) * HOUR + 1) }, expired, GRACE), {
    result: "unmatched",
    reason: "no order with this amount",
  });
  t.deepEqual(decideMatch(credit(24 + 168), expired, 0), { result: "unmatched", reason: "no order with this amount" }, "no grace, no late payment");
});

test("a pending order the sweeper has not reached yet counts as expired at its expires_at", (t) => {
  const overdue = [order("a", "pending", 0)];
  t.deepEqual(decideMatch(credit(100), overdue, GRACE), { result: "matched", orderId: "a" });
  t.deepEqual(decideMatch(credit(200), overdue, GRACE), { result: "unmatched", reason: "no order with this amount" });
});

test("an order made after the transfer is not paid by it", (t) => {
  t.deepEqual(decideMatch(credit(5), [order("a", "pending", 6)], GRACE), { result: "unmatched", reason: "transfer before order" });
  t.deepEqual(decideMatch(credit(6), [order("a", "pending", 6)], GRACE), { result: "unmatched", reason: "transfer before order" }, "created before, strictly");
});

test("a cancelled order within the grace says so; past it, nothing does", (t) => {
  const cancelled = [order("a", "cancelled", 0, 3)];
  t.deepEqual(decideMatch(credit(5), cancelled, GRACE), { result: "unmatched", reason: "order cancelled" });
  t.deepEqual(decideMatch(credit(3 + 168), cancelled, GRACE), { result: "unmatched", reason: "order cancelled" });
  t.deepEqual(decideMatch(credit(3 + 169), cancelled, GRACE), { result: "unmatched", reason: "no order with this amount" });
});

test("a paid (or refunded) order means a double payment to refund", (t) => {
  t.deepEqual(decideMatch(credit(5), [order("a", "paid", 0, 2)], GRACE), { result: "unmatched", reason: "order already paid" });
  // Marked paid by the seller after this very transfer arrived, before the feed did.
  t.deepEqual(decideMatch(credit(5), [order("a", "paid", 0, 9)], GRACE), { result: "unmatched", reason: "order already paid" });
  t.deepEqual(decideMatch(credit(5), [order("a", "refunded", 0, 4)], GRACE), { result: "unmatched", reason: "order already paid" });
});

test("an order that can still be paid wins over cancelled ones, and over orders paid longer than the grace ago", (t) => {
  // Data from before reservations: a cancelled order said nothing about the money.
  t.deepEqual(decideMatch(credit(4), [order("old", "cancelled", 0, 2), order("new", "pending", 3)], GRACE), { result: "matched", orderId: "new" });
  // The paid order freed the amount long ago and a new order took it: the new one is paid.
  const orders = [order("old", "paid", 0, 2), order("new", "pending", 100)];
  t.deepEqual(decideMatch(credit(2 + 168 + 1), orders, GRACE), { result: "matched", orderId: "new" });
  t.deepEqual(decideMatch(credit(201), [order("old", "refunded", 0, 2), order("new", "pending", 200)], GRACE), { result: "matched", orderId: "new" });
});

test("one payable order while another with its amount was paid within the grace: ambiguous, never paid automatically", (t) => {
  // "old" was paid at hour 2, freeing its code; "new" got it at hour 3. A transfer of
  // that amount may be new's payment or old's buyer paying twice: a person decides.
  const orders = [order("old", "paid", 0, 2), order("new", "pending", 3)];
  t.deepEqual(decideMatch(credit(4), orders, GRACE), { result: "unmatched", reason: UNMATCHED_REASONS.ambiguous });
  t.deepEqual(decideMatch(credit(4), orders, GRACE), { result: "unmatched", reason: "ambiguous" });
  t.deepEqual(decideMatch(credit(2 + 168), orders, GRACE), { result: "unmatched", reason: "ambiguous" }, "the last instant of the grace counts");
  t.deepEqual(decideMatch({ amount: AMOUNT, occurredAt: new Date(T0 + (2 + 168) * HOUR + 1) }, orders, GRACE), {
    result: "matched",
    orderId: "new",
  });
  // Refunded counts as paid (its change time is the refund's), and so does an expired order as the payable one.
  t.deepEqual(decideMatch(credit(30), [order("old", "refunded", 0, 2), order("new", "expired", 3, 27)], GRACE), {
    result: "unmatched",
    reason: "ambiguous",
  });
  // Another amount, or a gateway order, is no cause for doubt.
  t.deepEqual(decideMatch(credit(4), [order("old", "paid", 0, 2, { amount: AMOUNT + 1 }), order("new", "pending", 3)], GRACE), {
    result: "matched",
    orderId: "new",
  });
  t.deepEqual(decideMatch(credit(4), [order("old", "paid", 0, 2, { payment_kind: "gateway" }), order("new", "pending", 3)], GRACE), {
    result: "matched",
    orderId: "new",
  });
  t.deepEqual(decideMatch(credit(4), orders, 0), { result: "matched", orderId: "new" }, "no grace, no doubt");
});

test("among closed orders the newest one gives the reason", (t) => {
  const orders = [order("paid", "paid", 0, 1), order("cancelled", "cancelled", 2, 3)];
  t.deepEqual(decideMatch(credit(5), orders, GRACE), { result: "unmatched", reason: "order cancelled" });
  t.deepEqual(decideMatch(credit(5), [order("cancelled", "cancelled", 0, 1), order("paid", "paid", 2, 3)], GRACE), {
    result: "unmatched",
    reason: "order already paid",
  });
});

test("a late transfer pays the expired order, not the newer one that took its amount after the grace", (t) => {
  // "old" expired at hour 24 and kept its amount until hour 192; "new" took it at 200.
  const orders = [order("old", "expired", 0, 24), order("new", "pending", 200)];
  t.deepEqual(decideMatch(credit(190), orders, GRACE), { result: "matched", orderId: "old" });
  t.deepEqual(decideMatch(credit(201), orders, GRACE), { result: "matched", orderId: "new" });
});

test("two orders that could both be paid (data from before reservations) match neither", (t) => {
  const orders = [order("a", "expired", 0, 24), order("b", "pending", 30)];
  t.deepEqual(decideMatch(credit(31), orders, GRACE), { result: "unmatched", reason: "several orders with this amount" });
});

test("a failed order is not a candidate", (t) => {
  t.deepEqual(decideMatch(credit(2), [order("a", "failed", 0)], GRACE), { result: "unmatched", reason: "no order with this amount" });
});

test("reservations: kept for the grace after expiry (from expires_at) or cancellation, ended (not deleted) at payment", (t) => {
  const row = { payment_kind: "bank_transfer" as const, expires_at: new Date(T0), updated_at: new Date(T0 + HOUR) };
  t.deepEqual(reservationAfter(row, "expired", GRACE), new Date(T0 + GRACE));
  t.deepEqual(reservationAfter(row, "cancelled", GRACE), new Date(T0 + HOUR + GRACE));
  // The changed order's updated_at is the time of the change: free from then, and remembered as its last use.
  t.deepEqual(reservationAfter(row, "paid", GRACE), new Date(T0 + HOUR));
  t.deepEqual(reservationAfter(row, "refunded", GRACE), new Date(T0 + HOUR));
  t.is(reservationAfter(row, "pending", GRACE), undefined);
  t.is(reservationAfter({ ...row, payment_kind: "gateway" }, "expired", GRACE), undefined, "only transfer amounts are reserved");
});
