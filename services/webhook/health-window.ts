// The window of "health at a glance" (docs/dashboard.md#overview): an endpoint's attempts are counted
// per UTC hour (endpoint_attempt_hours), so "the last 24 h" is the hour 24 h ago and
// every hour since: between 24 and 25 hours of attempts.
const HOUR_MS = 3_600_000;

export const HEALTH_WINDOW_MS = 24 * HOUR_MS;

/** Hours of health are kept this long, a day past the window, then purged. */
export const HEALTH_KEPT_MS = 2 * HEALTH_WINDOW_MS;

/** The UTC hour an instant falls in: the key its attempt is counted under. */
export function attemptHour(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}
