// The order schema as an older release left it, for upgrade tests: a database of the
// test's own migrated with only the order service's migrations named before `upTo`.
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ExecutionContext } from "ava";
import { connectDb, migrate } from "../../services/lib/db.js";
import { createLogger } from "../../services/lib/logger.js";
import { ORDER_SCHEMA } from "../../services/order/service.js";
import { createTestDatabase } from "./db.js";

export const ORDER_MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../services/order/migrations");

/** A pool on a fresh database whose order schema has every migration named before `upTo`; dropped at teardown. */
export async function orderSchemaBefore(t: ExecutionContext, upTo: string) {
  const db = await createTestDatabase();
  const sql = connectDb(db.url, { schema: ORDER_SCHEMA, max: 2 });
  const logger = createLogger("test", "silent");
  const before = await mkdtemp(path.join(tmpdir(), "order-migrations-"));
  t.teardown(async () => {
    await sql.end({ timeout: 1 });
    await db.drop();
    await rm(before, { recursive: true, force: true });
  });
  for (const name of await readdir(ORDER_MIGRATIONS)) {
    if (name < upTo) await cp(path.join(ORDER_MIGRATIONS, name), path.join(before, name));
  }
  await migrate(sql, ORDER_SCHEMA, before, logger);
  /** Applies the rest, as the new release does at start. */
  const upgrade = () => migrate(sql, ORDER_SCHEMA, ORDER_MIGRATIONS, logger);
  return { sql, upgrade };
}
