// Limits per client address: which addresses count as one client (IPv6 by /64, IPv4
// by address, IPv4-mapped as IPv4), and that a token is taken before the work, so
// attempts under way at once never outnumber the budget. In memory, no clock tricks:
// every case here runs well inside one token's refill time.
import test from "ava";
import { addressBucket, perAddress, perAddressFailures } from "../../gateway/per-address.js";
import { createMemoryRateLimiter } from "../../gateway/rate-limit.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

test("IPv6 addresses in one /64 share a bucket; another /64 does not", (t) => {
  const home = addressBucket("2001:db8:1:2::1");
  t.is(addressBucket("2001:db8:1:2:ffff:ffff:ffff:fffe"), home);
  t.is(addressBucket("2001:0db8:0001:0002:0000:0000:0000:0abc"), home, "however the address is written");
  t.not(addressBucket("2001:db8:1:3::1"), home);
  t.not(addressBucket("2001:db8:2:2::1"), home);
  t.not(addressBucket("::1"), home);
});

test("IPv4 counts per address, and an IPv4-mapped IPv6 address is that IPv4 address", (t) => {
  t.is(addressBucket("::ffff:203.0.113.5"), addressBucket("203.0.113.5"));
  t.is(addressBucket("::ffff:cb00:7105"), addressBucket("203.0.113.5"));
  t.not(addressBucket("203.0.113.6"), addressBucket("203.0.113.5"));
  t.not(addressBucket("::ffff:203.0.113.6"), addressBucket("203.0.113.5"));
  t.is(addressBucket(""), "", "no peer (a socket already closed) is a bucket of its own");
});

test("20 concurrent takes at 5 a minute: exactly 5 pass", async (t) => {
  const limit = perAddress(createMemoryRateLimiter(), "orders", 5);
  const decisions = await Promise.all(Array.from({ length: 20 }, () => limit.take("198.51.100.1")));
  t.is(decisions.filter((d) => d.allowed).length, 5);
  for (const refused of decisions.filter((d) => !d.allowed)) t.true(refused.retryAfterSeconds >= 1);
  t.true((await limit.take("198.51.100.2")).allowed, "another address has its own bucket");
});

/** Runs `count` attempts at once from `address`, each failing (or not) after a pause; answers how many ran. */
async function burst(limit: ReturnType<typeof perAddressFailures>, address: string, count: number, fails: boolean) {
  let ran = 0;
  const outcomes = await Promise.all(
    Array.from({ length: count }, async () => {
      const attempt = await limit.begin(address);
      if (!attempt.allowed) return attempt;
      try {
        ran += 1;
        await tick(); // the work (a key lookup, a password hash) takes a while
        if (fails) attempt.failed();
      } finally {
        await attempt.end();
      }
      return attempt;
    }),
  );
  return { ran, refused: outcomes.filter((o) => !o.allowed) };
}

test("20 concurrent failing attempts at 5 a minute: only 5 are tried, the rest refused with a time to retry", async (t) => {
  const limit = perAddressFailures(createMemoryRateLimiter(), "sign-in", 5);
  const { ran, refused } = await burst(limit, "2001:db8:7:7::1", 20, true);
  t.is(ran, 5);
  t.is(refused.length, 15);
  for (const r of refused) if (!r.allowed) t.true(r.retryAfterSeconds >= 1);
  t.false((await limit.begin("2001:db8:7:7:abcd::9")).allowed, "the rest of the /64 is spent too");
  t.true((await limit.begin("2001:db8:7:8::1")).allowed, "the next /64 is another client");
});

test("successes never use up the budget: 20 concurrent good attempts all go through, and 5 failures still may follow", async (t) => {
  const limit = perAddressFailures(createMemoryRateLimiter(), "sign-in", 5);
  const good = await burst(limit, "203.0.113.9", 20, false);
  t.is(good.ran, 20);
  t.is(good.refused.length, 0);
  const bad = await burst(limit, "::ffff:203.0.113.9", 8, true);
  t.is(bad.ran, 5, "the whole budget is left for failures, counted with the IPv4-mapped form");
});

test("an attempt that ends without failing (the check itself could not run) gives its token back", async (t) => {
  const limit = perAddressFailures(createMemoryRateLimiter(), "auth", 1);
  const first = await limit.begin("192.0.2.10");
  if (!first.allowed) return t.fail("the first attempt is allowed");
  await first.end();
  await first.end(); // ending twice gives back once
  const second = await limit.begin("192.0.2.10");
  if (!second.allowed) return t.fail("the token came back");
  second.failed();
  await second.end();
  t.false((await limit.begin("192.0.2.10")).allowed, "a failure keeps its token, and a double end gave back no extra");
});
