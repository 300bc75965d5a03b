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

/**
 * `Retry-After` in milliseconds from now, or undefined when it says nothing we can read
 * (then the schedule alone decides).
 *
 * RFC 9110 §10.2.3 allows delay-seconds (`1*DIGIT`) or an HTTP-date. A decimal such as
 * "1.5" is neither, but its meaning is plain: "not before 1.5 s". A careful client
 * neither drops that request nor comes back early, so it is rounded up to whole
 * seconds (delay-seconds' own unit): "1.5" → 2 s, "0.2" → 1 s. Rounding down could
 * retry before the receiver asked; ignoring it would retry on the schedule alone, which
 * may be sooner. Since a Retry-After only ever lengthens the schedule's delay
 * (nextAttemptDelay), rounding up costs at most one second of waiting.
 *
 * Dates are read only in the HTTP-date forms (they start with a day name): Date.parse
 * alone would take "1.5" for 5 January 2001 and "2.1.2099" for a day in 2099.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const seconds = /^(\d{1,9})(?:\.(\d{1,9}))?$/.exec(text);
  if (seconds) return (Number(seconds[1]) + (/[1-9]/.test(seconds[2] ?? "") ? 1 : 0)) * 1_000;
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Retry-After is honoured on these statuses only (docs/webhooks.md#retries). */
export const RETRY_AFTER_STATUSES = new Set([429, 502, 503, 504]);
