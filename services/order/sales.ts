// The store's sales for its overview (docs/dashboard.md#overview): paid today and this month, in
// Jakarta days, what waits for payment, and 30 days of paid amounts. A paid order counts
// on the day it was paid, whatever happened to it since (a refund is its own record).
import { jakartaDate, jakartaDayStart, jakartaMonthStart } from "../../common/jakarta-time.js";
import type { Sql } from "../../platform/db.js";
import { salesSummary, type SalesSummaryRow } from "./db/sales.js";

export const SALES_CHART_DAYS = 30;

export interface SalesSummary {
  paidToday: { count: number; amount: number };
  paidThisMonth: { count: number; amount: number };
  pending: { count: number; amount: number };
  /** SALES_CHART_DAYS days, oldest first, today last; 0 on a day without sales. */
  days: { day: string; amount: number }[];
}

const DAY_MS = 86_400_000;

/**
 * The chart's days, oldest first, each with its sales or 0. Counted back from today's
 * Jakarta date as calendar dates (Jakarta keeps no daylight saving): one time zone
 * lookup per chart, not sixty.
 */
export function chartDays(now: Date, sold: SalesSummaryRow["days"]): SalesSummary["days"] {
  const byDay = new Map(sold.map((row) => [row.day, row.amount]));
  const today = Date.parse(`${jakartaDate(now)}T00:00:00Z`);
  return Array.from({ length: SALES_CHART_DAYS }, (_, i) => {
    const day = new Date(today - (SALES_CHART_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    return { day, amount: byDay.get(day) ?? 0 };
  });
}

export function createSales({ sql }: { sql: Sql }) {
  return {
    async summary(storeId: string, now = new Date()): Promise<SalesSummary> {
      const row = await salesSummary(sql, storeId, {
        today: jakartaDayStart(now),
        month: jakartaMonthStart(now),
        chart: jakartaDayStart(now, SALES_CHART_DAYS - 1),
      });
      return {
        paidToday: { count: row.today_count, amount: row.today_amount },
        paidThisMonth: { count: row.month_count, amount: row.month_amount },
        pending: { count: row.pending_count, amount: row.pending_amount },
        days: chartDays(now, row.days),
      };
    },
  };
}

export type Sales = ReturnType<typeof createSales>;
