// The upgrade to least-recently-used transfer codes (006_transfer_code_use.sql) on a
// database that already holds orders: amounts whose row went (paid orders) or was never
// copied (released before 004) get one saying when they were last used, held codes are
// untouched, and a new order then takes a code never used before any of them.
import test from "ava";
import { pickUniqueCode } from "../../services/order/pricing.js";
import { transferAmountUse } from "../../services/order/db/transfer-amounts.js";
import { bankTransferOrderRow, orderSchemaBefore } from "../helpers/order-migrations.js";

const STORE = "5e1f0000-0000-4000-8000-000000000061";
const DAY = 86_400_000;

test("amounts used before the upgrade keep the time they were last used; held ones are untouched", async (t) => {
  const { sql, upgrade } = await orderSchemaBefore(t, "006");

  const now = Date.now();
  let n = 0;
  /** A bank-transfer order of 10 000 + code, made `created` ms from now and last changed `changed` ms from now. */
  async function order(code: number, status: string, created: number, changed = created, reserve?: Date | "infinity") {
    n++;
    const [row] = await sql<{ id: string }[]>`insert into orders ${sql(
      bankTransferOrderRow({
        store_id: STORE,
        status,
        payment_reference: `SO-LRU${String(n).padStart(6, "0")}`,
        amount: 10_000 + code,
        expires_at: new Date(now + created + DAY),
        created_at: new Date(now + created),
        updated_at: new Date(now + changed),
      }),
    )} returning id`;
    if (reserve) {
      await sql`insert into transfer_amount_reservations (store_id, amount, order_id, reserved_until)
        values (${STORE}, ${10_000 + code}, ${row!.id}, ${reserve === "infinity" ? sql`'infinity'` : reserve})`;
    }
    return row!.id;
  }
  const paidLongAgo = await order(1, "paid", -30 * DAY, -29 * DAY);
  const paidYesterday = await order(2, "paid", -2 * DAY, -DAY);
  await order(2, "paid", -20 * DAY, -19 * DAY); // the same amount, earlier: the newer use counts
  const refunded = await order(3, "refunded", -10 * DAY, -3 * DAY);
  const expiredLongAgo = await order(4, "expired", -40 * DAY, -39 * DAY); // its grace ended 32 days ago
  const pending = await order(5, "pending", -DAY / 2, -DAY / 2, "infinity");
  const cancelled = await order(6, "cancelled", -2 * DAY, -DAY, new Date(now + 6 * DAY));
  await order(6, "paid", -25 * DAY, -24 * DAY); // an older holder of a held amount: the row stays the new one's

  await upgrade();

  const rows = await sql<{ amount: number; order_id: string; reserved_until: Date }[]>`
    select amount, order_id, least(reserved_until, '9999-12-31') as reserved_until
    from transfer_amount_reservations where store_id = ${STORE} order by amount`;
  t.deepEqual(
    rows.map((row) => [row.amount, row.order_id, row.reserved_until.getTime()]),
    [
      [10_001, paidLongAgo, now - 29 * DAY],
      [10_002, paidYesterday, now - DAY],
      [10_003, refunded, now - 3 * DAY],
      [10_004, expiredLongAgo, now - 40 * DAY + DAY + 7 * DAY],
      [10_005, pending, Date.parse("9999-12-31T00:00:00Z")],
      [10_006, cancelled, now + 6 * DAY],
    ],
  );

  // Read through the service's own query: a new order skips every used code while any
  // code was never used, and once none is left takes the one released longest ago.
  const { now: clock, uses } = await transferAmountUse(sql, STORE, 10_001, 10_999);
  t.is(uses.length, 6);
  t.true(Math.abs(clock.getTime() - Date.now()) < 60_000, "the database's clock");
  t.is(pickUniqueCode(10_000, uses, clock, () => 0), 7);
  const allUsed = [...uses, ...Array.from({ length: 993 }, (_, i) => ({ amount: 10_007 + i, reserved_until: new Date("9999-12-31") }))];
  t.is(pickUniqueCode(10_000, allUsed, clock), 4, "expired 40 days ago: the least recently used");
});
