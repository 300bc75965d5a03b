// The overview's sales on PostgreSQL (docs/dashboard.md#overview), kept per store and Jakarta day
// (012_sales_days.sql): orders paid before the upgrade are counted from it, orders
// paid after it through the statement that marks them paid, none lost when payments of
// one store land at once; another store's sales and pending orders past their expiry
// are not counted.
import { randomUUID } from "node:crypto";
import test from "ava";
import { jakartaDate, jakartaDayStart, jakartaMonthStart } from "../../common/jakarta-time.js";
import { createSales } from "../../services/order/sales.js";
import { updateStatuses } from "../../services/order/db/orders.js";
import { connectDb, transaction } from "../../platform/db.js";
import { ORDER_SCHEMA } from "../../services/order/service.js";
import { bankTransferOrderRow, orderSchemaBefore } from "../helpers/order-migrations.js";

const DAY = 86_400_000;

test("paid before the upgrade, paid after it, ten paid at once: each counted once on its Jakarta day", async (t) => {
  const { sql, upgrade } = await orderSchemaBefore(t, "012");
  const storeId = randomUUID();
  const otherStore = randomUUID();
  const now = new Date();
  let n = 0;
  async function order(store: string, amount: number, status: string, paidAt: Date | null, expiresAt = new Date(now.getTime() + DAY)) {
    n++;
    const [row] = await sql<{ id: string }[]>`insert into orders ${sql(
      bankTransferOrderRow({
        store_id: store,
        status,
        payment_reference: `SO-SALE${String(n).padStart(5, "0")}`,
        subtotal: amount - 1,
        amount,
        expires_at: expiresAt,
        created_at: new Date((paidAt ?? now).getTime() - 60_000),
        updated_at: paidAt ?? now,
        paid_at: paidAt,
      }),
    )} returning id`;
    return row!.id;
  }
  const today = jakartaDayStart(now);
  const month = jakartaMonthStart(now);
  const tenDaysAgo = jakartaDayStart(now, 10);
  const fortyDaysAgo = jakartaDayStart(now, 40);
  const paid: { amount: number; at: Date }[] = [
    { amount: 100_000, at: new Date(today.getTime() + 1_000) },
    { amount: 50_000, at: new Date(month.getTime() + 1_000) },
    { amount: 70_000, at: new Date(tenDaysAgo.getTime() + 3_600_000) },
    { amount: 900_000, at: new Date(fortyDaysAgo.getTime() + 3_600_000) },
  ];
  for (const sale of paid) await order(storeId, sale.amount, "paid", sale.at);
  await order(storeId, 33_000, "refunded", new Date(today.getTime() + 2_000)); // a refund keeps its sale
  paid.push({ amount: 33_000, at: new Date(today.getTime() + 2_000) });
  await order(otherStore, 5_000_000, "paid", new Date(today.getTime() + 1_000));
  await order(storeId, 12_000, "pending", null);
  await order(storeId, 99_000, "pending", null, new Date(now.getTime() - 1_000)); // past its expiry: no longer waits
  t.true((await upgrade()).includes("012_sales_days.sql"));

  const sales = createSales({ sql });
  const expected = () => {
    const since = (start: Date) => paid.filter((sale) => sale.at >= start);
    const total = (sales: typeof paid) => ({ count: sales.length, amount: sales.reduce((sum, sale) => sum + sale.amount, 0) });
    const byDay = new Map<string, number>();
    for (const sale of since(jakartaDayStart(now, 29))) byDay.set(jakartaDate(sale.at), (byDay.get(jakartaDate(sale.at)) ?? 0) + sale.amount);
    return { today: total(since(today)), month: total(since(month)), byDay };
  };
  const check = async (message: string, pending: { count: number; amount: number }) => {
    const summary = await sales.summary(storeId, now);
    const want = expected();
    t.deepEqual(summary.paidToday, want.today, message);
    t.deepEqual(summary.paidThisMonth, want.month, message);
    t.deepEqual(summary.pending, pending, message);
    t.is(summary.days.length, 30);
    t.deepEqual(
      summary.days.filter((day) => day.amount > 0),
      [...want.byDay].sort(([a], [b]) => a.localeCompare(b)).map(([day, amount]) => ({ day, amount })),
      message,
    );
  };
  await check("counted from the orders paid before the upgrade", { count: 1, amount: 12_000 });

  // Paid after the upgrade: one call with two orders, then ten calls at once.
  const two = [await order(storeId, 40_000, "pending", null), await order(storeId, 60_000, "pending", null)];
  await updateStatuses(sql, two.map((id) => ({ id, expireAtGateway: false })), "paid");
  const ten = await Promise.all(Array.from({ length: 10 }, (_, i) => order(storeId, 1_000 * (i + 1), "pending", null)));
  await Promise.all(ten.map((id) => transaction(sql, (tx) => updateStatuses(tx, [{ id, expireAtGateway: false }], "paid"))));
  const paidNow = await sql<{ amount: number; paid_at: Date }[]>`select amount, paid_at from orders where id = any(${[...two, ...ten]}::uuid[])`;
  for (const row of paidNow) paid.push({ amount: row.amount, at: row.paid_at });
  // Cancelling is not a sale.
  const cancelled = await order(storeId, 777_000, "pending", null);
  await updateStatuses(sql, [{ id: cancelled, expireAtGateway: false }], "cancelled");
  await check("and the twelve paid since", { count: 1, amount: 12_000 });
  t.deepEqual((await sales.summary(otherStore, now)).paidToday, { count: 1, amount: 5_000_000 }, "the other store's own");
});

test("two payments of one store on one day, from two connections: neither waits for the other's commit, and both count", async (t) => {
  const { sql, upgrade, url } = await orderSchemaBefore(t, "012");
  await upgrade();
  const storeId = randomUUID();
  const now = new Date();
  const pool = connectDb(url, { schema: ORDER_SCHEMA, max: 20 });
  t.teardown(() => pool.end({ timeout: 1 }));
  const pending = async (n: number) => {
    const [row] = await sql<{ id: string }[]>`insert into orders ${sql(
      bankTransferOrderRow({ store_id: storeId, status: "pending", payment_reference: `SO-SLOT${n}`, amount: 10_000 + n, created_at: now, updated_at: now, expires_at: new Date(now.getTime() + DAY) }),
    )} returning id`;
    return row!.id;
  };
  const [first, second] = [await pending(1), await pending(2)];
  // Two connections of different slots (a slot is the connection's backend pid modulo 16).
  const pidOf = async (db: typeof sql) => (await db<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
  const a = await pool.reserve();
  const held: (typeof a)[] = [];
  let b = await pool.reserve();
  while ((await pidOf(b)) % 16 === (await pidOf(a)) % 16) {
    held.push(b);
    b = await pool.reserve();
  }
  t.teardown(() => [a, b, ...held].forEach((connection) => connection.release()));
  await a`begin`;
  await updateStatuses(a, [{ id: first, expireAtGateway: false }], "paid");
  // The first payment is not committed: a second one that waited for its day row would run into this.
  await b`begin`;
  await b`set local lock_timeout = '5s'`;
  await t.notThrowsAsync(updateStatuses(b, [{ id: second, expireAtGateway: false }], "paid"), "the second payment did not wait for the first's commit");
  await b`commit`;
  await a`commit`;
  const summary = await createSales({ sql }).summary(storeId, now);
  t.deepEqual(summary.paidToday, { count: 2, amount: 20_003 });
});
