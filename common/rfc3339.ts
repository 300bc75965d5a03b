// RFC 3339 date-times as the system accepts them from outside (event log filters, bank
// mutations): a full date and time with an offset, nothing guessed.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/i;

/**
 * The instant of an RFC 3339 date-time with its offset (`Z` or `±hh:mm`), or undefined.
 * Stricter than Date.parse, which takes February 30th and 24:00 and guesses a zone when
 * there is none.
 */
export function parseRfc3339(value: string): Date | undefined {
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, , zone, , offsetHours, offsetMinutes] = match;
  const local = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  const check = new Date(local);
  const fits =
    check.getUTCFullYear() === Number(year) &&
    check.getUTCMonth() === Number(month) - 1 &&
    check.getUTCDate() === Number(day) &&
    check.getUTCHours() === Number(hour) &&
    check.getUTCMinutes() === Number(minute) &&
    check.getUTCSeconds() === Number(second);
  if (!fits) return undefined;
  if (zone!.toUpperCase() !== "Z" && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return undefined;
  const parsed = Date.parse(value.toUpperCase());
  return Number.isNaN(parsed) ? undefined : new Date(parsed);
}
