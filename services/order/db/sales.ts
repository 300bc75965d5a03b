// A store's sales: sales_days, grown by updateStatuses (orders.ts) as orders are paid,
// and what waits for payment.
import { jakartaDate } from "../../../common/jakarta-time.js";
import type { Db } from "../../../platform/db.js";
import { pendingWhere } from "./orders.js";

export interface SalesSummaryRow {
  today_count: number;
  today_amount: number;
  month_count: number;
  month_amount: number;
  pending_count: number;
  pending_amount: number;
  /** Paid amount per Jakarta day ("2026-11-24") from `since`; days without sales absent. */
  days: { day: string; amount: number }[];
}

/**
 * The store's sales (docs/dashboard.md#overview): orders paid since the starts of today, of this month
 * and of the chart (Jakarta midnights), by Jakarta day from sales_days, and what live orders wait
 * for payment (sales are live only: docs/keys.md#test-mode) (orders_store_status_recent; one past its expiry no longer waits).
 */
export async function salesSummary(db: Db, storeId: string, starts: { today: Date; month: Date; chart: Date }): Promise<SalesSummaryRow> {
  const day = (start: Date) => db`(${start}::timestamptz at time zone 'Asia/Jakarta')::date`;
  const from = new Date(Math.min(starts.month.getTime(), starts.chart.getTime()));
  const sold = await db<{ day: string; count: number; amount: number }[]>`
    select to_char(day, 'YYYY-MM-DD') as day, sum(paid_count)::int as count, sum(paid_amount)::bigint as amount
    from sales_days where store_id = ${storeId} and day >= ${day(from)}
    group by day order by day`;
  const [pending] = await db<{ pending_count: number; pending_amount: number }[]>`
    select count(*)::int as pending_count, coalesce(sum(amount), 0)::bigint as pending_amount
    from orders where store_id = ${storeId} and livemode and ${pendingWhere(db, false)}`;
  const since = (start: Date) => {
    const first = jakartaDate(start);
    return sold.filter((row) => row.day >= first);
  };
  const total = (rows: { count: number; amount: number }[]) => ({ count: rows.reduce((n, row) => n + row.count, 0), amount: rows.reduce((n, row) => n + row.amount, 0) });
  const today = total(since(starts.today));
  const month = total(since(starts.month));
  return {
    today_count: today.count,
    today_amount: today.amount,
    month_count: month.count,
    month_amount: month.amount,
    ...pending!,
    days: since(starts.chart).map((row) => ({ day: row.day, amount: row.amount })),
  };
}
