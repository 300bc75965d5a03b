// The upgrade to reserved transfer amounts (004_bank_reconciliation.sql) on a database
// that already holds orders: the codes in use stay taken (pending orders, and orders
// expired or cancelled within the default 7-day grace), where older data shares an
// amount the newest order keeps it, and paid orders' codes are free.
import test from "ava";
import { ORDER_SCHEMA } from "../../services/order/service.js";
import { transferAmountUse } from "../../services/order/db/transfer-amounts.js";
import { bankTransferOrderRow, orderSchemaBefore } from "../helpers/order-migrations.js";

const STORE = "5e1f0000-0000-4000-8000-000000000001";
const OTHER_STORE = "5e1f0000-0000-4000-8000-000000000002";
const DAY = 86_400_000;

test("existing orders keep their codes through the upgrade; the newest of a shared amount wins", async (t) => {
  const { sql, upgrade } = await orderSchemaBefore(t, "004");

  const now = Date.now();
  let n = 0;
  async function order(amount: number, status: string, created: number, changed = created, fields: Record<string, unknown> = {}) {
    n++;
    const [row] = await sql<{ id: string }[]>`insert into orders ${sql(
      bankTransferOrderRow({
        store_id: STORE,
        status,
        payment_reference: `SO-MIGRATE${String(n).padStart(4, "0")}`,
        amount,
        expires_at: new Date(now + created + DAY),
        created_at: new Date(now + created),
        updated_at: new Date(now + changed),
        ...fields,
      }),
    )} returning id`;
    return row!.id;
  }
  const pending = await order(10_001, "pending", -DAY / 2);
  const expiredRecently = await order(10_002, "expired", -2 * DAY, -DAY); // expired a day ago
  await order(10_003, "expired", -9 * DAY, -8 * DAY); // expired 8 days ago: free
  const cancelledRecently = await order(10_004, "cancelled", -3 * DAY, -2 * DAY);
  await order(10_005, "expired", -4 * DAY, -3 * DAY); // expired 3 days ago, then its amount was reused
  const reusedPending = await order(10_005, "pending", -DAY / 4);
  await order(10_006, "expired", -5 * DAY, -4 * DAY);
  const reusedCancelled = await order(10_006, "cancelled", -2 * DAY, -DAY);
  await order(10_007, "paid", -DAY, -DAY / 2);
  await order(10_008, "pending", -DAY / 2, -DAY / 2, { payment_kind: "gateway", payment_method: "qris", payment_provider: "sandbox", settlement_channel: "gateway" });
  await order(10_009, "pending", -DAY / 2, -DAY / 2, { store_id: OTHER_STORE });

  await upgrade();

  // Held now (006 adds rows, already ended, for the amounts used before: see
  // transfer-code-migration.test.ts).
  const held = await sql<{ amount: number; order_id: string; forever: boolean; reserved_until: Date }[]>`
    select amount, order_id, reserved_until = 'infinity' as forever, least(reserved_until, '9999-01-01') as reserved_until
    from transfer_amount_reservations where store_id = ${STORE} and reserved_until >= clock_timestamp() order by amount`;
  t.deepEqual(
    held.map((row) => [row.amount, row.order_id]),
    [
      [10_001, pending],
      [10_002, expiredRecently],
      [10_004, cancelledRecently],
      [10_005, reusedPending],
      [10_006, reusedCancelled],
    ],
  );
  const until = Object.fromEntries(held.map((row) => [row.amount, row]));
  t.true(until[10_001]!.forever, "a pending order holds its amount until it leaves pending");
  t.true(until[10_005]!.forever);
  t.is(until[10_002]!.reserved_until.getTime(), now - 2 * DAY + DAY + 7 * DAY, "expiry + 7 days");
  t.is(until[10_004]!.reserved_until.getTime(), now - 2 * DAY + 7 * DAY, "cancellation + 7 days");

  // What a new order of this store may not take, through the service's own query.
  const taken = async (storeId: string) => {
    const { now: clock, uses } = await transferAmountUse(sql, storeId, 10_001, 10_999);
    return uses.filter((use) => use.reserved_until >= clock).map((use) => use.amount).sort();
  };
  t.deepEqual(await taken(STORE), [10_001, 10_002, 10_004, 10_005, 10_006]);
  t.deepEqual(await taken(OTHER_STORE), [10_009]);
  const [history] = await sql<{ column_name: string }[]>`
    select column_name from information_schema.columns where table_schema = ${ORDER_SCHEMA} and table_name = 'order_status_history' and column_name = 'detail'`;
  t.truthy(history, "history rows can carry a detail");
});

test("the upgrade that keeps the amount received fills it in for payments by a bank mutation made before it, and for nothing else", async (t) => {
  const { sql, upgrade } = await orderSchemaBefore(t, "018");
  const now = Date.now();
  async function paidOrder(reference: string, amount: number) {
    const [row] = await sql<{ id: string }[]>`insert into orders ${sql(
      bankTransferOrderRow({
        store_id: STORE,
        status: "paid",
        payment_reference: reference,
        amount,
        expires_at: new Date(now + DAY),
        created_at: new Date(now - DAY),
        updated_at: new Date(now),
      }),
    )} returning id`;
    return row!.id;
  }
  const assigned = await paidOrder("SO-HISTORY0001", 10_152);
  const marked = await paidOrder("SO-HISTORY0002", 10_001);
  await sql`insert into bank_mutations ${sql([
    { store_id: STORE, mutation_id: "BCA-1", amount: 10_000, type: "credit", occurred_at: new Date(now), description: "", status: "assigned", order_id: assigned, received_at: new Date(now), request_position: 0 },
    // The same bank id in another store, paying nothing here.
    { store_id: OTHER_STORE, mutation_id: "BCA-1", amount: 1, type: "credit", occurred_at: new Date(now), description: "", status: "unmatched", order_id: null, received_at: new Date(now), request_position: 0 },
  ])}`;
  await sql`insert into order_status_history ${sql([
    { order_id: assigned, from_status: null, to_status: "pending", cause: "created", detail: null },
    { order_id: assigned, from_status: "pending", to_status: "paid", cause: "bank_mutation", detail: "BCA-1" },
    { order_id: marked, from_status: "pending", to_status: "paid", cause: "marked paid by the seller", detail: null },
  ])}`;

  await upgrade();

  const rows = await sql<{ order_id: string; cause: string; amount_received: number | null }[]>`
    select order_id, cause, amount_received from order_status_history order by id`;
  t.deepEqual(
    rows.map((row) => [row.order_id, row.cause, row.amount_received]),
    [
      [assigned, "created", null],
      [assigned, "bank_mutation", 10_000],
      [marked, "marked paid by the seller", null],
    ],
  );
});
