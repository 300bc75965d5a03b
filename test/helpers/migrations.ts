// A service's schema as an older release left it, for upgrade tests: a database of the
// test's own migrated with only the service's migrations named before `upTo`, and the
// rest applied when the test says, as the new release does at start.
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ExecutionContext } from "ava";
import { connectDb, migrate } from "../../platform/db.js";
import { createLogger } from "../../platform/logger.js";
import { createTestDatabase } from "./db.js";

/** A pool on a fresh database whose `schema` has every migration of `directory` named before `upTo`; dropped at teardown. */
export async function schemaBefore(t: ExecutionContext, schema: string, directory: string, upTo: string) {
  const db = await createTestDatabase();
  const sql = connectDb(db.url, { schema, max: 2 });
  const logger = createLogger("test", "silent");
  const before = await mkdtemp(path.join(tmpdir(), `${schema}-migrations-`));
  t.teardown(async () => {
    await sql.end({ timeout: 1 });
    await db.drop();
    await rm(before, { recursive: true, force: true });
  });
  for (const name of await readdir(directory)) {
    if (name < upTo) await cp(path.join(directory, name), path.join(before, name));
  }
  await migrate(sql, schema, before, logger);
  /** Applies the rest, as the new release does at start. */
  const upgrade = () => migrate(sql, schema, directory, logger);
  return { sql, upgrade, url: db.url };
}
