import type { Sql } from "../services/lib/db.js";

export interface RateDecision {
  allowed: boolean;
  /** Whole requests left in the bucket. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next request may pass (0 when allowed). */
  retryAfterSeconds: number;
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
 * PostgreSQL. One upsert per request does refill, take and answer atomically, so
 * any number of gateway instances share one limit per store.
 */
export function createPostgresRateLimiter(sql: Sql): RateLimiter {
  return {
    async take(bucket, perMinute) {
      const capacity = perMinute;
      const perSecond = perMinute / 60;
      const [row] = await sql<{ tokens: number; allowed: boolean }[]>`
        insert into rate_buckets as b (bucket, tokens, allowed, refreshed_at)
        values (${bucket}, ${capacity - 1}::float8, true, clock_timestamp())
        on conflict (bucket) do update set
          tokens = least(${capacity}::float8, b.tokens + greatest(0, extract(epoch from excluded.refreshed_at - b.refreshed_at)::float8) * ${perSecond}::float8)
                   - case when least(${capacity}::float8, b.tokens + greatest(0, extract(epoch from excluded.refreshed_at - b.refreshed_at)::float8) * ${perSecond}::float8) >= 1 then 1 else 0 end,
          allowed = least(${capacity}::float8, b.tokens + greatest(0, extract(epoch from excluded.refreshed_at - b.refreshed_at)::float8) * ${perSecond}::float8) >= 1,
          refreshed_at = excluded.refreshed_at
        returning tokens, allowed`;
      return decision(row!.allowed, row!.tokens, perMinute);
    },
  };
}

/**
 * The same buckets in this process's memory: for limits that need not be shared,
 * such as failed authentications per client address.
 */
export function createMemoryRateLimiter(maxBuckets = 100_000): RateLimiter & { peek(bucket: string, perMinute: number): RateDecision } {
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
    peek(bucket, perMinute) {
      const state = refill(bucket, perMinute);
      return decision(state.tokens >= 1, state.tokens, perMinute);
    },
  };
}
