// Max deliveries per second per endpoint (docs/webhooks.md#rate): a token bucket per endpoint that
// holds at most `rate` tokens (the burst) and refills at `rate` a second. Each delivery
// sent takes one; what finds no token waits, due, and is never dropped. leaseDue
// (db/deliveries.ts) keeps the bucket on the endpoint's row with this same arithmetic,
// so every webhook-service instance shares it; this is the rule as data, for the unit
// tests (requireRate, beside it, is the setting's bound).
import { fieldError } from "./validation.js";

export const MAX_RATE = 1000;

export interface Bucket {
  /** Tokens left at `at`; null: a full bucket (never used). */
  tokens: number | null;
  at: Date | null;
}

/** Whole deliveries the bucket allows at `now`, and the bucket once `taken` of them are sent. */
export function takeTokens(bucket: Bucket, rate: number, now: Date, wanted: number): { taken: number; bucket: Bucket } {
  const elapsed = bucket.at ? Math.max(0, (now.getTime() - bucket.at.getTime()) / 1000) : 0;
  const available = Math.min(rate, (bucket.tokens ?? rate) + elapsed * rate);
  const taken = Math.max(0, Math.min(wanted, Math.floor(available)));
  return { taken, bucket: { tokens: available - taken, at: now } };
}

/**
 * The rate as UpdateEndpoint takes it, as typed: empty is no limit (null); otherwise a
 * whole number from 1 to 1000. Anything else, 0 included, is INVALID_ARGUMENT naming
 * max_per_second: 0 used to remove the limit without a word.
 */
export function requireRate(value: string): number | null {
  if (value === "") return null;
  const rate = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!(rate >= 1 && rate <= MAX_RATE)) throw fieldError("max_per_second", `must be a whole number from 1 to ${MAX_RATE}, or empty for no limit`);
  return rate;
}
