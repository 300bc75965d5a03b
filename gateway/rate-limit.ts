import type { Sql } from "../platform/db.js";
import type { Principal } from "./auth.js";

export interface RateDecision {
  allowed: boolean;
  /** Whole requests left in the bucket. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next request may pass (0 when allowed). */
  retryAfterSeconds: number;
}

/**
 * The bucket a keyed call spends from (docs/api.md#rate-limit): one per store and mode,
 * each of the full size, so a test suite running against test keys never starves the
 * store's live traffic. The live bucket keeps the name it had before test mode existed.
 */
export function storeBucket(principal: Pick<Principal, "storeId" | "livemode">): string {
  return principal.livemode ? `store:${principal.storeId}` : `store:${principal.storeId}:test`;
}

export interface RateLimiter {
  take(bucket: string, perMinute: number): Promise<RateDecision>;
}

function decision(allowed: boolean, tokens: number, perMinute: number): RateDecision {
  const perSecond = perMinute / 60;
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.max(0, Math.ceil((perMinute - tokens) / perSecond)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perSecond)),
  };
}

/**
 * Token buckets (burst = the per-minute rate, refilled continuously) kept in
 * PostgreSQL, shared by every gateway instance. One upsert refills, takes and answers
 * atomically. Under load a gateway takes a small batch at once, at most what refills
 * in `leaseMs`, and spends it locally until it runs out or `leaseMs` passes (unspent
 * tokens are then dropped, never returned): the shared limit is never exceeded, and
 * a busy store costs one statement per batch instead of one per request. At ordinary
 * rates (300 a minute) a batch is a single token, so every request is counted exactly.
 */
export function createPostgresRateLimiter(sql: Sql, options: { leaseMs?: number } = {}): RateLimiter {
  const leaseMs = options.leaseMs ?? 250;
  const leases = new Map<string, { tokens: number; expires: number; globalTokens: number }>();
  const refills = new Map<string, Promise<void>>();

  async function refill(bucket: string, perMinute: number, want: number): Promise<{ granted: number; tokens: number }> {
    const capacity = perMinute;
    const perSecond = perMinute / 60;
    const [row] = await sql<{ tokens: number; granted: number }[]>`
      insert into rate_buckets as b (bucket, tokens, allowed, granted, refreshed_at)
      values (${bucket}, ${capacity}::float8 - least(${want}::float8, ${capacity}::float8), true, least(${want}::float8, ${capacity}::float8), clock_timestamp())
      on conflict (bucket) do update set
        tokens = least(${capacity}::float8, b.tokens + greatest(0, extract(epoch from excluded.refreshed_at - b.refreshed_at)::float8) * ${perSecond}::float8)
                 - least(${want}::float8, floor(least(${capacity}::float8, b.tokens + greatest(0, extract(epoch from excluded.refreshed_at - b.refreshed_at)::float8) * ${perSecond}::float8))),
        granted = least(${want}::float8, floor(least(${capacity}::float8, b.tokens + greatest(0, extract(epoch from excluded.refreshed_at - b.refreshed_at)::float8) * ${perSecond}::float8))),
        allowed = least(${capacity}::float8, b.tokens + greatest(0, extract(epoch from excluded.refreshed_at - b.refreshed_at)::float8) * ${perSecond}::float8) >= 1,
        -- A caller that read the clock before waiting for the row lock must not move
        -- the bucket's time back (the gap would be refilled twice).
        refreshed_at = greatest(b.refreshed_at, excluded.refreshed_at)
      returning tokens, granted`;
    return { granted: row!.granted, tokens: row!.tokens };
  }

  return {
    async take(bucket, perMinute) {
      const batch = Math.max(1, Math.min(Math.floor(perMinute / 10), Math.floor((perMinute / 60) * (leaseMs / 1000))));
      for (let round = 0; round < 3; round++) {
        const lease = leases.get(bucket);
        if (lease && lease.tokens >= 1 && lease.expires > Date.now()) {
          lease.tokens -= 1;
          return decision(true, lease.globalTokens + lease.tokens, perMinute);
        }
        // One statement per bucket at a time: concurrent requests wait for its batch.
        const running = refills.get(bucket);
        if (running) {
          await running;
          continue;
        }
        let answer!: { granted: number; tokens: number };
        const done = refill(bucket, perMinute, batch).then((result) => {
          answer = result;
          // This request spends one token now; only the rest is leased to others.
          if (result.granted > 1) leases.set(bucket, { tokens: result.granted - 1, expires: Date.now() + leaseMs, globalTokens: result.tokens });
          else leases.delete(bucket);
        });
        refills.set(bucket, done);
        try {
          await done;
        } finally {
          refills.delete(bucket);
        }
        const left = (leases.get(bucket)?.tokens ?? 0) + answer.tokens;
        return decision(answer.granted >= 1, answer.granted >= 1 ? left : answer.tokens, perMinute);
      }
      // Others drained each batch before this request's turn: ask once more for itself.
      const own = await refill(bucket, perMinute, 1);
      return decision(own.granted >= 1, own.tokens, perMinute);
    },
  };
}

/** A limiter that can take a token back, for limits that count only failed attempts. */
export interface RefundableRateLimiter extends RateLimiter {
  /** Returns one token that take() handed out (the bucket never holds more than its burst). */
  giveBack(bucket: string, perMinute: number): Promise<void>;
}

/**
 * The same buckets in this process's memory: for limits that need not be shared,
 * such as failed authentications per client address. A take is one synchronous step
 * (refill, compare, spend), so concurrent requests can never spend the same token.
 */
export function createMemoryRateLimiter(maxBuckets = 100_000): RefundableRateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const refill = (bucket: string, perMinute: number) => {
    const now = Date.now();
    const state = buckets.get(bucket) ?? { tokens: perMinute, at: now };
    state.tokens = Math.min(perMinute, state.tokens + ((now - state.at) / 60_000) * perMinute);
    state.at = now;
    buckets.delete(bucket); // re-insert: Map order doubles as least-recently-used order
    buckets.set(bucket, state);
    if (buckets.size > maxBuckets) buckets.delete(buckets.keys().next().value!);
    return state;
  };
  return {
    async take(bucket, perMinute) {
      const state = refill(bucket, perMinute);
      const allowed = state.tokens >= 1;
      if (allowed) state.tokens -= 1;
      return decision(allowed, state.tokens, perMinute);
    },
    async giveBack(bucket, perMinute) {
      const state = refill(bucket, perMinute);
      state.tokens = Math.min(perMinute, state.tokens + 1);
    },
  };
}
