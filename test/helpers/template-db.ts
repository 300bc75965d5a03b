// Real SQL for the fast layer: a database of the test's own, cloned from a template that
// already holds every service's migrated schema. Migrating takes seconds; cloning the
// migrated template takes a fraction of one (tens of milliseconds on an idle server,
// up to a second under the whole suite), so a router test can have a fresh database
// per test and still prove the SQL rather than an imitation of it.
//
// The template is named after a hash of every migration file, so a changed migration
// makes a new template and two checkouts with different migrations never share one. It
// is built once per PostgreSQL server under an advisory lock (ava runs test files in
// several processes at once) and under a temporary name renamed only when complete, so
// a run killed halfway leaves nothing a later run would trust.
import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import test, { type ExecutionContext } from "ava";
import { connectDb, migrate, type Sql } from "../../platform/db.js";
import { createLogger } from "../../platform/logger.js";
import { CATALOG_SCHEMA } from "../../services/catalog/service.js";
import { ORDER_SCHEMA } from "../../services/order/service.js";
import { WEBHOOK_SCHEMA } from "../../services/webhook/service.js";
import { GATEWAY_SCHEMA } from "../../gateway/service.js";
import { createTestDatabase, databaseUrl, withAdmin, type TestDatabase } from "./db.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Each role's schema and the folder of its numbered migrations. */
const SCHEMAS: readonly { schema: string; directory: string }[] = [
  { schema: CATALOG_SCHEMA, directory: path.join(root, "services/catalog/migrations") },
  { schema: ORDER_SCHEMA, directory: path.join(root, "services/order/migrations") },
  { schema: WEBHOOK_SCHEMA, directory: path.join(root, "services/webhook/migrations") },
  { schema: GATEWAY_SCHEMA, directory: path.join(root, "gateway/migrations") },
];

let templateName: Promise<string> | undefined;

/**
 * Drops still running. Dropping a database waits for a checkpoint, seconds under a busy
 * suite, so a test's teardown starts its drop and moves on; the file waits for them all
 * at its end.
 */
const drops = new Set<Promise<void>>();
test.after.always("drop the test databases", async () => {
  await Promise.all(drops);
});

/**
 * At most this many live databases per test file. ava starts all of a file's tests at
 * once, and forty databases with their pools would take most of a server's 100
 * connections while the rest of the suite runs beside them; the others wait their turn.
 */
const MAX_LIVE = 6;
let live = 0;
const waiting: (() => void)[] = [];

async function takeSlot(): Promise<void> {
  if (live < MAX_LIVE) {
    live += 1;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function giveSlot(): void {
  const next = waiting.shift();
  if (next) next();
  else live -= 1;
}

/** Starts dropping `db`; the file's end waits for it. */
function dropLater(db: TestDatabase): void {
  const tracked: Promise<void> = db
    .drop()
    .catch(() => {})
    .finally(() => drops.delete(tracked));
  drops.add(tracked);
}

/** The template's name: `tpl_` and a hash of every migration's schema, name and text. */
async function fingerprint(): Promise<string> {
  const hash = createHash("sha256");
  for (const { schema, directory } of SCHEMAS) {
    for (const name of (await readdir(directory)).filter((file) => file.endsWith(".sql")).sort()) {
      hash.update(`${schema}\0${name}\0`).update(await readFile(path.join(directory, name))).update("\0");
    }
  }
  return `tpl_store_order_${hash.digest("hex").slice(0, 16)}`;
}

async function ensureTemplate(): Promise<string> {
  const name = await fingerprint();
  await withAdmin(async (admin) => {
    // One session holds the lock while it builds; the others wait, then find it built.
    await admin`select pg_advisory_lock(hashtext(${"template:" + name}))`;
    const [built] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!built) {
      const building = `${name}_${randomBytes(3).toString("hex")}`;
      await admin.unsafe(`create database "${building}"`);
      const logger = createLogger("test", "silent");
      for (const { schema, directory } of SCHEMAS) {
        const sql = connectDb(databaseUrl(building), { schema, max: 1 });
        try {
          await migrate(sql, schema, directory, logger);
        } finally {
          await sql.end({ timeout: 1 });
        }
      }
      await admin.unsafe(`alter database "${building}" rename to "${name}"`);
    }
    await admin`select pg_advisory_unlock(hashtext(${"template:" + name}))`;
  });
  return name;
}

export interface MigratedDatabase {
  url: string;
  /** A pool on the database whose search_path is `schema`, ended at teardown. */
  pool(schema: string, max?: number): Sql;
}

/**
 * A fresh database with every service's schema migrated, dropped when the test ends.
 * Pools made with `pool()` are ended before the drop.
 */
export async function migratedDatabase(t: ExecutionContext): Promise<MigratedDatabase> {
  templateName ??= ensureTemplate();
  const template = await templateName;
  await takeSlot();
  const pools: Sql[] = [];
  let db: TestDatabase;
  try {
    db = await createTestDatabase("t", template);
  } catch (error) {
    giveSlot();
    throw error;
  }
  t.teardown(async () => {
    await Promise.all(pools.map((sql) => sql.end({ timeout: 1 })));
    giveSlot();
    dropLater(db);
  });
  const url = db.url;
  return {
    url,
    pool(schema: string, max = 4) {
      const sql = connectDb(url, { schema, max });
      pools.push(sql);
      return sql;
    },
  };
}
