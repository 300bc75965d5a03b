// The per-endpoint rate (docs/webhooks.md#rate) as a token bucket: a burst of at most the rate,
// then the rate a second; what finds no token waits.
import test from "ava";
import { takeTokens, type Bucket } from "../../services/webhook/endpoint-rate.js";

const at = (ms: number) => new Date(Date.UTC(2026, 10, 24) + ms);

test("a fresh bucket allows a burst of the rate, then nothing until it refills", (t) => {
  const first = takeTokens({ tokens: null, at: null }, 2, at(0), 10);
  t.is(first.taken, 2);
  t.is(takeTokens(first.bucket, 2, at(0), 10).taken, 0);
  t.is(takeTokens(first.bucket, 2, at(499), 10).taken, 0, "under one token after 0.499 s at 2/s");
  t.is(takeTokens(first.bucket, 2, at(500), 10).taken, 1);
  t.is(takeTokens(first.bucket, 2, at(60_000), 10).taken, 2, "an idle minute refills to the burst, not beyond");
});

test("the schedule: 20 deliveries at 2 a second go out over about 9 seconds; any one second holds the burst and one refill at most", (t) => {
  let bucket: Bucket = { tokens: null, at: null };
  let left = 20;
  const sentAt: number[] = [];
  // The worker asks every 100 ms.
  for (let ms = 0; left > 0 && ms < 60_000; ms += 100) {
    const step = takeTokens(bucket, 2, at(ms), left);
    bucket = step.bucket;
    left -= step.taken;
    for (let i = 0; i < step.taken; i++) sentAt.push(ms);
  }
  t.is(sentAt.length, 20, "none dropped");
  t.true(sentAt.at(-1)! >= 9_000 && sentAt.at(-1)! <= 9_100, `last at ${sentAt.at(-1)} ms`);
  for (const start of sentAt) {
    const within = sentAt.filter((ms) => ms >= start && ms < start + 1_000).length;
    t.true(within <= 3, `${within} in the second from ${start} ms (the burst of 2 plus one refill)`);
  }
});

test("asking for fewer than the tokens takes only those", (t) => {
  const { taken, bucket } = takeTokens({ tokens: 5, at: at(0) }, 10, at(0), 3);
  t.is(taken, 3);
  t.is(bucket.tokens, 2);
});
