// The fast layer's databases (test/helpers/template-db.ts): each test gets a database of
// its own with every schema migrated, and what one test writes no other test sees.
import test from "ava";
import { ORDER_SCHEMA } from "../../services/order/service.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { migratedDatabase } from "../helpers/template-db.js";

test("a cloned database has every service's migrations applied", async (t) => {
  const db = await migratedDatabase(t);
  const sql = db.pool(ORDER_SCHEMA);
  const [migrations] = await sql<{ count: number }[]>`select count(*)::int as count from schema_migrations`;
  t.true(migrations!.count > 0);
  const [webhook] = await sql<{ tables: number }[]>`select count(*)::int as tables from information_schema.tables where table_schema = ${WEBHOOK_SCHEMA}`;
  t.true(webhook!.tables > 0);
});

test("two clones do not share rows", async (t) => {
  const [a, b] = await Promise.all([migratedDatabase(t), migratedDatabase(t)]);
  await a.pool(ORDER_SCHEMA)`create table mark (id int)`;
  const [found] = await b.pool(ORDER_SCHEMA)`select 1 from information_schema.tables where table_name = 'mark'`;
  t.is(found, undefined);
});
