// Sales by Jakarta day (docs/dashboard.md#overview): day and month boundaries at midnight WIB,
// and the chart's 30 days with today last.
import test from "ava";
import { jakartaDayStart, jakartaMonthStart } from "../../common/jakarta-time.js";
import { chartDays } from "../../services/order/sales.js";

test("days and months start at midnight in Jakarta, not UTC", (t) => {
  // 23:30 UTC on the 30th is 06:30 on the 1st in Jakarta.
  const now = new Date("2026-11-30T23:30:00Z");
  t.is(jakartaDayStart(now).toISOString(), "2026-11-30T17:00:00.000Z");
  t.is(jakartaMonthStart(now).toISOString(), "2026-11-30T17:00:00.000Z", "already December in Jakarta");
  t.is(jakartaDayStart(now, 29).toISOString(), "2026-11-01T17:00:00.000Z");
  t.is(jakartaMonthStart(new Date("2026-11-24T03:00:00Z")).toISOString(), "2026-10-31T17:00:00.000Z");
});

test("the chart: 30 days oldest first, today last, 0 where nothing sold", (t) => {
  const days = chartDays(new Date("2026-11-24T03:00:00Z"), [
    { day: "2026-11-24", amount: 50_000 },
    { day: "2026-10-26", amount: 7_000 },
    { day: "2026-10-01", amount: 1 },
  ]);
  t.is(days.length, 30);
  t.deepEqual(days[0], { day: "2026-10-26", amount: 7_000 });
  t.deepEqual(days.at(-1), { day: "2026-11-24", amount: 50_000 });
  t.is(days.filter((day) => day.amount > 0).length, 2, "a day outside the window is left out");
});

test("the chart's days are Jakarta dates, across a month and a year, each once", (t) => {
  const dates = (now: string) => chartDays(new Date(now), []).map((day) => day.day);
  const december = dates("2026-11-30T23:30:00Z"); // 06:30 on 1 December in Jakarta
  t.is(december.at(-1), "2026-12-01");
  t.is(december[0], "2026-11-02");
  const newYear = dates("2026-12-31T17:00:00Z"); // midnight, 1 January 2027, in Jakarta
  t.is(newYear.at(-1), "2027-01-01");
  t.is(newYear[0], "2026-12-03");
  t.is(new Set(newYear).size, 30);
  t.deepEqual(dates("2026-12-31T16:59:59Z").at(-1), "2026-12-31", "a second before Jakarta's midnight");
});
