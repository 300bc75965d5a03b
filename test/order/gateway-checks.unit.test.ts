// The pure rules of money moving on evidence: when a silent gateway order is asked
// about (gateway-checks.ts), what a person may do to an order and how much is left to
// refund (order-actions.ts), how an Idempotency-Key of a refund is answered and when a
// pending refund is tried again (refunds.ts), and what a gateway reports as refunded
// (notifications.ts). No database, no network.
import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { finalCheckAt, firstStatusCheckAt, gatewaySweepEvery, MAX_CHECK_INTERVAL_MS, nextStatusCheckAt } from "../../services/order/gateway-checks.js";
import { reportedRefunds, statusFromMidtrans } from "../../services/order/notifications.js";
import { allowedActions, refundAmount, refundableLeft, refusal } from "../../services/order/order-actions.js";
import { REFUND_IN_FLIGHT_MS, replayDecision, retryDelay } from "../../services/order/refunds.js";
import { fieldViolations } from "../../platform/field-errors.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const at = (ms: number) => new Date(Date.UTC(2026, 10, 24) + ms);

test("the first check comes after the silence, spread by up to a tenth of it, never after the final check", (t) => {
  const created = at(0);
  const expires = at(24 * HOUR);
  t.deepEqual(firstStatusCheckAt(created, expires, 15 * MIN, () => 0), at(15 * MIN));
  t.deepEqual(firstStatusCheckAt(created, expires, 15 * MIN, () => 0.999), at(15 * MIN + 59_940), "at most a minute later");
  t.deepEqual(firstStatusCheckAt(created, expires, 10 * 1000, () => 0.5), at(10_500), "a tenth of a short interval");
  // A window shorter than the silence: the one check is the final one.
  t.deepEqual(firstStatusCheckAt(created, at(10 * MIN), 15 * MIN, () => 0), finalCheckAt(at(10 * MIN), 15 * MIN));
  t.deepEqual(finalCheckAt(at(10 * MIN), 15 * MIN), at(9 * MIN), "a minute before expiry");
  t.deepEqual(finalCheckAt(at(10_000), 1_000), at(9_500), "or half a short interval");
});

test("later checks double their interval up to six hours, the last one just before expiry, then none", (t) => {
  const after = 15 * MIN;
  const expires = at(24 * HOUR);
  const times: number[] = [];
  let now = firstStatusCheckAt(at(0), expires, after, () => 0);
  for (let done = 0; now && done < 50; done++) {
    times.push(now.getTime() - at(0).getTime());
    now = nextStatusCheckAt(now, expires, after, done)!;
  }
  t.deepEqual(
    times.map((ms) => ms / MIN),
    [15, 45, 105, 225, 465, 825, 1185, 24 * 60 - 1],
  );
  t.is(times.length, 8, "eight questions over a day, not one every 15 minutes");
  t.is(nextStatusCheckAt(at(24 * HOUR - MIN), expires, after, 7), null, "after the final check: none");
  t.is(nextStatusCheckAt(at(25 * HOUR), expires, after, 3), null, "past expiry: none");
  t.is(nextStatusCheckAt(at(HOUR), at(1000 * HOUR), after, 40)!.getTime() - at(HOUR).getTime(), MAX_CHECK_INTERVAL_MS);
});

test("the sweep runs every 5 s, or a quarter of a shorter check interval", (t) => {
  t.is(gatewaySweepEvery(15 * MIN), 5_000);
  t.is(gatewaySweepEvery(1_000), 250);
  t.is(gatewaySweepEvery(10), 100);
});

test("who may do what: mark paid only a pending or expired bank transfer, cancel only pending, refund only paid with something left", (t) => {
  const order = (status: string, payment_kind: string, refunded_amount = 0) => ({ status, payment_kind, amount: 100_000, refunded_amount }) as never;
  t.deepEqual(allowedActions(order("pending", "bank_transfer"), []), ["mark_paid", "cancel"]);
  t.deepEqual(allowedActions(order("expired", "bank_transfer"), []), ["mark_paid"]);
  t.deepEqual(allowedActions(order("pending", "gateway"), []), ["cancel"]);
  t.deepEqual(allowedActions(order("failed", "gateway"), []), []);
  t.deepEqual(allowedActions(order("expired", "gateway"), []), []);
  t.deepEqual(allowedActions(order("paid", "gateway"), []), ["refund"]);
  t.deepEqual(allowedActions(order("paid", "gateway", 60_000), [{ status: "pending", amount: 40_000 }]), [], "pending refunds count");
  t.deepEqual(allowedActions(order("paid", "gateway", 60_000), [{ status: "failed", amount: 40_000 }]), ["refund"], "failed ones do not");
  t.deepEqual(allowedActions(order("paid", "none"), []), [], "a free order has nothing to refund");
  t.deepEqual(allowedActions(order("refunded", "bank_transfer", 100_000), []), []);
  t.regex(refusal("mark_paid", order("failed", "gateway"))!, /only a bank-transfer order/);
  t.regex(refusal("refund", order("cancelled", "bank_transfer"))!, /only a paid order can be refunded; this one is cancelled/);
});

test("refund arithmetic: all that is left by default, never more, never zero", (t) => {
  t.is(refundableLeft({ amount: 100_000, refunded_amount: 30_000 }, [{ status: "pending", amount: 20_000 }, { status: "succeeded", amount: 30_000 }, { status: "failed", amount: 50_000 }]), 50_000);
  t.is(refundAmount(undefined, 50_000), 50_000);
  t.is(refundAmount(50_000, 50_000), 50_000);
  t.is(refundAmount(1, 50_000), 1);
  const field = (run: () => unknown) => {
    const error = t.throws<ConnectError>(run);
    t.is(error.code, Code.InvalidArgument);
    return fieldViolations(error)[0]?.field;
  };
  t.is(field(() => refundAmount(50_001, 50_000)), "amount");
  t.is(field(() => refundAmount(0, 50_000)), "amount");
  t.is(field(() => refundAmount(1.5, 50_000)), "amount");
  t.is(field(() => refundAmount(undefined, 0)), "amount");
});

test("a refund's Idempotency-Key: the same request replays, another is refused, a dead first request answers as it is now", (t) => {
  const now = Date.now();
  const response = new Uint8Array([1, 2, 3]);
  t.deepEqual(replayDecision({ request_hash: "a", response, created_at: new Date(now) }, "a", now), { kind: "replay", response });
  t.is(replayDecision({ request_hash: "a", response, created_at: new Date(now) }, "b", now).kind, "refuse");
  t.is(replayDecision({ request_hash: "a", response: null, created_at: new Date(now - 1_000) }, "a", now).kind, "refuse", "still in flight");
  t.is(replayDecision({ request_hash: "a", response: null, created_at: new Date(now - REFUND_IN_FLIGHT_MS) }, "a", now).kind, "current");
});

test("a refund the gateway could not be reached for is tried again at growing intervals", (t) => {
  t.deepEqual([0, 1, 2, 3, 4, 5, 50].map((attempts) => retryDelay(attempts)), [5_000, 30_000, 120_000, 600_000, 1_800_000, 1_800_000, 1_800_000]);
});

test("what the gateway reports as refunded: refunds[] keyed by refund_key, else its own id; the rest is ignored", (t) => {
  t.deepEqual(
    reportedRefunds([
      { refund_key: "ours", refund_chargeback_id: 1, refund_amount: "10000.00", reason: "asked" },
      { refund_chargeback_id: 2, refund_amount: 5000 },
      { refund_amount: "100.00" },
      { refund_chargeback_id: 3, refund_amount: "0.00" },
      { refund_chargeback_id: 4, refund_amount: "12.50" },
      "junk",
    ]),
    [
      { key: "ours", amount: 10_000, reason: "asked" },
      { key: "2", amount: 5_000 },
    ],
  );
  t.deepEqual(reportedRefunds(undefined), []);
  t.is(statusFromMidtrans({ transaction_status: "partial_refund" }), undefined, "refunds are not a status change by themselves");
});
