// The failing-endpoint rule (docs/webhooks.md#failing-endpoints) as data: a streak starts at the first failed
// attempt after a success, a success ends it, and an endpoint is due to be disabled when
// its streak is WEBHOOK_DISABLE_AFTER old.
import test from "ava";
import { dueForDisable, failingSinceAfter, spokenDuration } from "../../services/webhook/failing-endpoints.js";

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 24, 0, 0, seconds));
const DISABLE_AFTER = 10_000;

/** The streak after each attempt of a sequence: ✓ succeeded, ✗ failed, at second i. */
function streak(sequence: string): (Date | null)[] {
  let since: Date | null = null;
  return [...sequence].map((mark, i) => (since = failingSinceAfter(since, { succeeded: mark === "✓", at: at(i) })));
}

test("a failure starts the streak, later failures keep its start, a success ends it", (t) => {
  t.deepEqual(streak("✓✗✗✗✓✗"), [null, at(1), at(1), at(1), null, at(5)]);
});

test("due once every attempt failed for the whole bound, not a moment before", (t) => {
  t.false(dueForDisable(null, at(100), DISABLE_AFTER), "no streak: never");
  t.false(dueForDisable(at(0), at(9), DISABLE_AFTER));
  t.true(dueForDisable(at(0), at(10), DISABLE_AFTER));
  t.true(dueForDisable(at(0), at(60), DISABLE_AFTER));
});

test("one success within the bound starts it over", (t) => {
  const [, , , success, ...after] = streak("✗✗✗✓✗✗");
  t.is(success, null);
  t.false(dueForDisable(after.at(-1)!, at(12), DISABLE_AFTER), "the new streak began at second 4");
  t.true(dueForDisable(after.at(-1)!, at(14), DISABLE_AFTER));
});

test("the bound as the reason and the mail say it", (t) => {
  t.is(spokenDuration(5 * 86_400_000), "5 days");
  t.is(spokenDuration(86_400_000), "1 day");
  t.is(spokenDuration(10_000), "10 seconds");
  t.is(spokenDuration(90 * 60_000), "90 minutes");
  t.is(spokenDuration(1_500), "1500 ms");
});
