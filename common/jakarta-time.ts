// Jakarta wall-clock time (WIB, UTC+7, no daylight saving) through the platform's time
// zone database rather than a hand-written offset.

const parts = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Asia/Jakarta",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

const display = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Asia/Jakarta",
  day: "numeric",
  month: "long",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** "2026-11-21 17:40:00": Midtrans' wall-clock format, in Jakarta time. */
export function jakartaWallClock(date: Date): string {
  const p = Object.fromEntries(parts.formatToParts(date).map((part) => [part.type, part.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** An RFC 3339 time's Jakarta calendar fields (month 1–12, hour and minute two digits); undefined when unparsable. */
export function jakartaParts(iso: string): { day: string; month: number; year: string; hour: string; minute: string } | undefined {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  const p = Object.fromEntries(parts.formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  return { day: String(Number(p.day)), month: Number(p.month), year: p.year!, hour: p.hour!, minute: p.minute! };
}

/** "21 November 2026, 17:40 WIB" for an RFC 3339 time; an unparsable one as given. */
export function jakartaDisplay(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const p = Object.fromEntries(display.formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  return `${p.day} ${p.month} ${p.year}, ${p.hour}:${p.minute} WIB`;
}

/** "2026-11-21T17:40": a time as a `datetime-local` input shows it, in Jakarta time. */
export function jakartaLocalInput(date: Date): string {
  return jakartaWallClock(date).slice(0, 16).replace(" ", "T");
}

/**
 * A `datetime-local` value ("2026-11-21T17:40", seconds optional) read as Jakarta time;
 * undefined when it is not one. WIB has been UTC+7 without daylight saving since 1964,
 * so the offset is fixed here, and checked against the zone database above.
 */
export function fromJakartaLocalInput(value: string): Date | undefined {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(value)) return undefined;
  const date = new Date(`${value.length === 16 ? `${value}:00` : value}+07:00`);
  if (Number.isNaN(date.getTime()) || jakartaLocalInput(date) !== value.slice(0, 16)) return undefined;
  return date;
}

/** The Jakarta date of an instant, "2026-11-24". */
export function jakartaDate(date: Date): string {
  return jakartaWallClock(date).slice(0, 10);
}

/** Midnight in Jakarta at the start of `date`'s Jakarta day, `daysBack` days earlier. */
export function jakartaDayStart(date: Date, daysBack = 0): Date {
  const midnight = new Date(`${jakartaDate(date)}T00:00:00+07:00`);
  return new Date(midnight.getTime() - daysBack * 86_400_000);
}

/** Midnight in Jakarta on the first of `date`'s Jakarta month. */
export function jakartaMonthStart(date: Date): Date {
  return new Date(`${jakartaDate(date).slice(0, 8)}01T00:00:00+07:00`);
}
