// Jakarta time as the dashboard's date-time inputs show and read it (WIB, UTC+7).
import test from "ava";
import { fromJakartaLocalInput, jakartaDisplay, jakartaLocalInput } from "../../common/jakarta-time.js";

test("an instant shows as Jakarta wall-clock time in a datetime-local input, and reads back", (t) => {
  const instant = new Date("2026-11-24T03:05:00Z");
  t.is(jakartaLocalInput(instant), "2026-11-24T10:05");
  t.is(fromJakartaLocalInput("2026-11-24T10:05")?.toISOString(), "2026-11-24T03:05:00.000Z");
  t.is(fromJakartaLocalInput("2026-11-24T10:05:30")?.toISOString(), "2026-11-24T03:05:30.000Z");
  t.is(jakartaDisplay(fromJakartaLocalInput("2026-12-31T23:59")!.toISOString()), "31 December 2026, 23:59 WIB");
});

test("what is not a datetime-local value is refused", (t) => {
  for (const value of ["", "yesterday", "2026-11-24", "2026-11-24 10:05", "2026-13-01T10:00", "2026-02-30T10:00", "2026-11-24T25:00"]) {
    t.is(fromJakartaLocalInput(value), undefined, value);
  }
});
