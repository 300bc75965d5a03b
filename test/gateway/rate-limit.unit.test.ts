// The bucket a keyed call spends from (docs/api.md#rate-limit): one per store and mode, so a
// test suite on test keys never starves the store's live traffic.
import test from "ava";
import { createMemoryRateLimiter, storeBucket } from "../../gateway/rate-limit.js";

test("a store's live and test calls have buckets of their own; the live one keeps its old name", (t) => {
  t.is(storeBucket({ storeId: "s1", livemode: true }), "store:s1");
  t.is(storeBucket({ storeId: "s1", livemode: false }), "store:s1:test");
  t.not(storeBucket({ storeId: "s1", livemode: false }), storeBucket({ storeId: "s2", livemode: false }), "and per store in test mode too");
});

test("test calls that empty their bucket leave the live bucket of the same store full", async (t) => {
  const limiter = createMemoryRateLimiter();
  const testKey = { storeId: "s1", livemode: false };
  for (let n = 0; n < 3; n++) t.true((await limiter.take(storeBucket(testKey), 3)).allowed);
  t.false((await limiter.take(storeBucket(testKey), 3)).allowed);
  const live = await limiter.take(storeBucket({ storeId: "s1", livemode: true }), 3);
  t.true(live.allowed);
  t.is(live.remaining, 2);
});
