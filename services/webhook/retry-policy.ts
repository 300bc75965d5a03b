/**
 * When to try a failed delivery again: the configured schedule, stretched by up to
 * 10 % of jitter so many deliveries failing together do not return together, and never
 * sooner than a longer `Retry-After` the receiver asked for. Undefined: give up.
 */
export function nextAttemptDelay(
  schedule: number[],
  attemptsMade: number,
  retryAfterMs: number | undefined,
  random = Math.random,
): number | undefined {
  const base = schedule[attemptsMade - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 + random() * 0.1));
  // A receiver may ask for a longer pause, but not for more than a day.
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, 86_400_000));
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Retry-After is honoured on these statuses only (CONTRACT §6). */
export const RETRY_AFTER_STATUSES = new Set([429, 502, 503, 504]);
