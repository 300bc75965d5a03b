/**
 * Child process for test/platform/postgres-drops.test.ts: keeps the project's own pool
 * (`connectDb`) busy with plain selects, parameterised inserts over 1 KiB of protocol and
 * `sql.begin` transactions, while the test terminates the pool's backends from outside.
 *
 * It installs no uncaughtException / unhandledRejection handler on purpose: a driver
 * bug that throws from a timer (postgres.js #1066/#1208) must kill this process, as it
 * would kill a service.
 *
 * Environment: DATABASE_URL (required), PG_DROP_CONCURRENCY (default 32).
 * Prints one JSON object a line on stdout:
 *   {"event":"ready","applicationName":…}      the load is running
 *   {"event":"drained",…}                      after SIGUSR2: the load stopped, every query settled (or
 *                                              not, after 25 s), failures by kind
 *   {"event":"probe",…}                        then: fresh queries, retried for up to 10 s, and how many
 *                                              distinct backends 10 concurrent queries reach
 * SIGTERM ends the pool and exits 0.
 */
import { connectDb } from "../../platform/db.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const concurrency = Number(process.env.PG_DROP_CONCURRENCY ?? 32);
const sql = connectDb(url, { max: 10 });
// What connectDb sets without a schema; the test filters pg_stat_activity on it.
const applicationName = `store-order/${process.pid}/admin`;

const print = (event: string, data: Record<string, unknown> = {}) => console.log(JSON.stringify({ event, ...data }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Failures by `<constructor name>:<code>`, with the first message of each kind. */
const failures = new Map<string, { count: number; sample: string }>();
let ok = 0;

function record(error: unknown) {
  const e = error as { constructor?: { name?: string }; code?: string | number; message?: unknown; stack?: unknown };
  const key = `${e?.constructor?.name ?? typeof error}:${e?.code === undefined ? "" : String(e.code)}`;
  const seen = failures.get(key);
  if (seen) seen.count++;
  else failures.set(key, { count: 1, sample: String(e?.stack ?? e?.message ?? error).split("\n").slice(0, 4).join(" | ") });
}

// Over 1024 bytes, so the Bind message is flushed at once rather than from setImmediate.
const BIG = "x".repeat(1200);

async function one(i: number): Promise<void> {
  switch (i % 3) {
    case 0:
      await sql`select ${i}::int as n`;
      return;
    case 1:
      await sql`insert into drops (body) values (${BIG + i})`;
      return;
    default:
      await sql.begin(async (tx) => {
        const [row] = await tx<{ id: number }[]>`insert into drops (body) values (${BIG}) returning id`;
        await tx`select count(*) from drops where id <= ${row!.id}`;
        await tx`update drops set body = ${"y" + i} where id = ${row!.id}`;
      });
  }
}

const KINDS = ["select", "insert", "transaction"];
/** What each worker is waiting for, to name a query that never settles. */
const inFlight = new Map<number, { kind: string; since: number }>();
let running = true;
async function worker(w: number) {
  for (let i = w; running; i += concurrency) {
    inFlight.set(w, { kind: KINDS[i % 3]!, since: Date.now() });
    try {
      await one(i);
      ok++;
    } catch (error) {
      record(error);
    }
  }
  inFlight.delete(w);
}

await sql`create table if not exists drops (id bigserial primary key, body text not null)`;
const workers = Array.from({ length: concurrency }, (_, w) => worker(w));
print("ready", { applicationName, concurrency });

// The signal handlers' promises are not awaited, and a rejection in them is left unhandled
// on purpose: like a driver bug, it kills this process, which the test reports.
process.once("SIGUSR2", () => void drainAndProbe());

async function drainAndProbe() {
  running = false;
  const drainStarted = Date.now();
  // 25 s: a query handed to a connection that is reconnecting waits out postgres.js's
  // reconnect backoff, which reaches 20 s after many connection errors in a row.
  const settled = await Promise.race([Promise.all(workers).then(() => true), sleep(25_000).then(() => false)]);
  const now = Date.now();
  print("drained", {
    settled,
    ms: now - drainStarted,
    pending: [...inFlight.values()].map(({ kind, since }) => `${kind} for ${now - since} ms`),
    ok,
    failures: Object.fromEntries(failures),
  });

  // Fresh queries must work again within 10 s.
  let started = Date.now();
  let attempts = 0;
  let lastError = "";
  let recoveredMs: number | null = null;
  while (recoveredMs === null && Date.now() - started < 10_000) {
    attempts++;
    try {
      await sql`select 1 as one`;
      await sql`insert into drops (body) values (${BIG})`;
      await sql.begin(async (tx) => {
        await tx`select count(*) from drops`;
      });
      recoveredMs = Date.now() - started;
    } catch (error) {
      lastError = String((error as Error)?.message ?? error);
      await sleep(100);
    }
  }
  // And the pool must be whole: 10 concurrent queries on 10 distinct backends. A
  // connection that waits for the reply to a query it never sent is lost for good; one
  // in reconnect backoff (postgres.js waits up to 20 s after repeated errors) comes back.
  started = Date.now();
  let backends = 0;
  while (recoveredMs !== null && backends < 10 && Date.now() - started < 25_000) {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.1)`),
    );
    backends = new Set(results.flatMap((result) => (result.status === "fulfilled" ? [result.value[0]!.pid] : []))).size;
  }
  print("probe", { ok: recoveredMs !== null, ms: recoveredMs, attempts, lastError, backends, wholeMs: Date.now() - started });
}

process.once("SIGTERM", () => {
  running = false;
  void sql.end({ timeout: 5 }).then(() => process.exit(0));
});
