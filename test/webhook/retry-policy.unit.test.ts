// When a failed delivery is tried again (docs/webhooks.md#retries): the WEBHOOK_RETRY_SCHEDULE
// delays, up to 10 % of jitter, a longer Retry-After honoured (at most a day), and
// nothing after the last delay. Pure functions, no I/O.
import test from "ava";
import { loadConfig } from "../../platform/config.js";
import { nextAttemptDelay, parseRetryAfter, RETRY_AFTER_STATUSES } from "../../services/webhook/retry-policy.js";

const SCHEDULE = loadConfig({}).WEBHOOK_RETRY_SCHEDULE;
const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const noJitter = () => 0;
const fullJitter = () => 0.999_999;

test("the default schedule is 5s, 5m, 30m, 2h, 5h, 10h, 10h", (t) => {
  t.deepEqual(SCHEDULE, [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
});

test("after attempt n the delay is the schedule's n-th, stretched by at most 10 %; after the last, none", (t) => {
  for (const [index, base] of SCHEDULE.entries()) {
    const attemptsMade = index + 1;
    t.is(nextAttemptDelay(SCHEDULE, attemptsMade, undefined, noJitter), base, `attempt ${attemptsMade}, no jitter`);
    const stretched = nextAttemptDelay(SCHEDULE, attemptsMade, undefined, fullJitter)!;
    t.true(stretched > base && stretched <= Math.round(base * 1.1), `attempt ${attemptsMade}: ${stretched} within 10 % of ${base}`);
    for (let n = 0; n < 20; n++) {
      const delay = nextAttemptDelay(SCHEDULE, attemptsMade, undefined)!;
      t.true(delay >= base && delay <= Math.round(base * 1.1));
    }
  }
  t.is(nextAttemptDelay(SCHEDULE, SCHEDULE.length + 1, undefined), undefined, "eight attempts in all, then failed");
  t.is(nextAttemptDelay(SCHEDULE, 100, 10 * S), undefined, "Retry-After does not add attempts");
  t.is(nextAttemptDelay([], 1, undefined), undefined, "an empty schedule: no retries");
});

test("Retry-After is honoured only when it is longer than the schedule's delay, and never past a day", (t) => {
  t.is(nextAttemptDelay(SCHEDULE, 1, 60 * S, noJitter), 60 * S, "longer: the receiver's pause");
  t.is(nextAttemptDelay(SCHEDULE, 1, 2 * S, noJitter), 5 * S, "shorter: the schedule's delay");
  t.is(nextAttemptDelay(SCHEDULE, 1, 0, noJitter), 5 * S);
  t.is(nextAttemptDelay(SCHEDULE, 2, 10 * M, fullJitter), 10 * M, "longer than the jittered delay too");
  t.is(nextAttemptDelay(SCHEDULE, 1, 30 * 24 * H, noJitter), 24 * H, "capped at a day");
  t.is(nextAttemptDelay(SCHEDULE, 7, 30 * 24 * H, noJitter), 24 * H);
});

test("parseRetryAfter reads delta-seconds", (t) => {
  t.is(parseRetryAfter("0"), 0);
  t.is(parseRetryAfter("2"), 2 * S);
  t.is(parseRetryAfter(" 120 "), 120 * S);
  t.is(parseRetryAfter("999999999"), 999_999_999 * S);
});

test("parseRetryAfter reads an HTTP date, in milliseconds from now, never negative", (t) => {
  const now = Date.parse("2025-06-01T12:00:00Z");
  t.is(parseRetryAfter("Sun, 01 Jun 2025 12:00:30 GMT", now), 30 * S);
  t.is(parseRetryAfter("Sun, 01 Jun 2025 13:00:00 GMT", now), H);
  t.is(parseRetryAfter("Sun, 01 Jun 2025 11:00:00 GMT", now), 0, "a date in the past: at once");
});

test("parseRetryAfter rounds fractional seconds up: never sooner than the receiver asked", (t) => {
  t.is(parseRetryAfter("1.5"), 2 * S);
  t.is(parseRetryAfter(" 1.5 "), 2 * S);
  t.is(parseRetryAfter("0.2"), 1 * S);
  t.is(parseRetryAfter("2.0"), 2 * S, "a zero fraction is the whole number");
  t.is(parseRetryAfter("2.000000001"), 3 * S);
  t.is(parseRetryAfter("59.999"), 60 * S);
  // Honoured like any Retry-After: only when longer than the schedule's delay.
  t.is(nextAttemptDelay([1 * S, 1 * S], 1, parseRetryAfter("1.5"), noJitter), 2 * S);
  t.is(nextAttemptDelay(SCHEDULE, 1, parseRetryAfter("1.5"), noJitter), 5 * S);
});

test("parseRetryAfter ignores what is neither delay-seconds nor an HTTP date", (t) => {
  t.is(parseRetryAfter(undefined), undefined);
  t.is(parseRetryAfter(""), undefined);
  t.is(parseRetryAfter("soon"), undefined);
  t.is(parseRetryAfter("-5"), undefined);
  t.is(parseRetryAfter("1."), undefined);
  t.is(parseRetryAfter(".5"), undefined);
  t.is(parseRetryAfter("1,5"), undefined);
  t.is(parseRetryAfter("1e3"), undefined);
  t.is(parseRetryAfter("1.5s"), undefined);
  t.is(parseRetryAfter("1234567890"), undefined, "more than 9 digits");
  // Date.parse alone reads these as dates (5 January 2001; 1 February 2099).
  t.is(parseRetryAfter("2.1.2099", Date.parse("2025-06-01T12:00:00Z")), undefined);
  t.is(parseRetryAfter("2099-01-01T00:00:00Z", Date.parse("2025-06-01T12:00:00Z")), undefined, "ISO 8601 is not an HTTP date");
  t.is(parseRetryAfter("Sun, 99 Foo 2025 12:00:00 GMT"), undefined, "a day name but no date");
});

test("parseRetryAfter reads the obsolete HTTP date forms too (RFC 850, asctime)", (t) => {
  const now = Date.parse("2025-06-01T12:00:00Z");
  t.is(parseRetryAfter("Sunday, 01-Jun-25 12:00:30 GMT", now), 30 * S);
  t.not(parseRetryAfter("Sun Jun  1 12:01:00 2025", now), undefined, "asctime (no zone: read as this machine's, GMT in containers)");
});

test("Retry-After counts on 429, 502, 503 and 504 only", (t) => {
  t.deepEqual([...RETRY_AFTER_STATUSES].sort(), [429, 502, 503, 504]);
  t.false(RETRY_AFTER_STATUSES.has(500));
});
