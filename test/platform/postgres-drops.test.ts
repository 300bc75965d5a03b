import test from "ava";
import postgres from "postgres";
import { createTestDatabase } from "../helpers/db.js";
import { spawnEntry } from "../helpers/process.js";
import { startTcpProxy } from "../helpers/tcp-proxy.js";
import { connectDb } from "../../platform/db.js";

/*
 * postgres.js 3.4.9 kills the process when backends die under load: a sql.begin scope
 * sends its ROLLBACK to a connection whose socket is already gone, and nextWrite() throws
 * "Cannot read properties of null (reading 'write')" from a setImmediate callback
 * (porsager/postgres #1066, #1154, #1208), or the internal array-types query of a fresh
 * connection rejects with nobody listening (#1192, #1223). patches/postgres+3.4.9.patch,
 * applied by patch-package on install, settles such queries with CONNECTION_CLOSED, resets
 * the write buffer and timer on teardown, and settles queries sent between a socket's
 * 'error' and 'close' (which otherwise leave a connection waiting forever). Without the
 * patch this test fails: the child process exits within the first few terminations.
 * Remove the patch, not this test, once a postgres.js release fixes the issues.
 */

const KILL_FOR_MS = 6_000;

/**
 * Errors that only say "the connection went away": what a caller may retry. CONNECT_TIMEOUT
 * is left out on purpose: unpatched, a reconnect after a teardown that left nextWriteTimer
 * set never sent its startup message and timed out; on localhost it means that bug.
 */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "ECONNRESET",
  "EPIPE",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_WRITE_AFTER_END",
  "57P01", // admin_shutdown: pg_terminate_backend
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
]);
const isConnectionCode = (code: string) => CONNECTION_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("terminating the pool's backends under concurrent queries fails queries, not the process", async (t) => {
  const db = await createTestDatabase("pgdrop");
  const child = spawnEntry("test/helpers/pg-drop-load.ts", { DATABASE_URL: db.url, PG_DROP_CONCURRENCY: "32" });
  const killer = postgres(db.url, { max: 1, onnotice: () => {} });
  const alive = () => child.child.exitCode === null && child.child.signalCode === null;
  const event = async (name: string, ms: number) =>
    JSON.parse((await child.waitFor(new RegExp(`\\{"event":"${name}".*\\}`), ms))[0]);
  try {
    const { applicationName } = await event("ready", 20_000);

    let rounds = 0;
    let terminated = 0;
    const started = Date.now();
    while (Date.now() - started < KILL_FOR_MS && alive()) {
      const rows = await killer<{ done: boolean }[]>`
        select pg_terminate_backend(pid) as done from pg_stat_activity
        where datname = ${db.name} and application_name = ${applicationName}`;
      rounds++;
      terminated += rows.filter((row) => row.done).length;
      await sleep(50 + Math.random() * 150);
    }
    await sleep(200); // a crash from a timer lands right after the last termination
    t.true(alive(), `the load process died (after ${rounds} rounds of terminations):\n${child.output().slice(-3000)}`);
    if (!alive()) return;
    t.true(terminated > 0, "the test terminated some backends");

    child.child.kill("SIGUSR2");
    const drained = await event("drained", 30_000);
    t.true(drained.settled, `every query of the load settled once the terminations stopped; pending: ${drained.pending}`);
    const failures = drained.failures as Record<string, { count: number; sample: string }>;
    t.true(Object.keys(failures).length > 0, "the terminations failed some queries (else the test proves nothing)");
    for (const [key, { count, sample }] of Object.entries(failures)) {
      const [name, code = ""] = key.split(":");
      t.not(name, "TypeError", `${count} queries failed with a TypeError: ${sample}`);
      t.true(isConnectionCode(code), `${count} queries failed with ${key}, not a connection error: ${sample}`);
    }

    const probe = await event("probe", 45_000);
    t.true(probe.ok, `queries kept failing for 10 s after the terminations stopped: ${probe.lastError}`);
    t.is(probe.backends, 10, "every connection of the pool (max 10) serves queries again");
    t.true(alive(), `the load process died after the terminations:\n${child.output().slice(-3000)}`);
    t.log(
      `${rounds} rounds terminated ${terminated} backends; ${drained.ok} queries succeeded, failures:`,
      Object.fromEntries(Object.entries(failures).map(([key, { count }]) => [key, count])),
      `; in-flight queries settled in ${drained.ms} ms, fresh ones worked after ${probe.ms} ms more,` +
        ` all 10 connections after ${probe.wholeMs} ms more`,
    );
  } finally {
    await child.stop("SIGTERM", 5_000);
    await killer.end({ timeout: 1 });
    await db.drop();
  }
});

/*
 * postgres.js's own reconnect backoff grows with every failed connect anywhere in the
 * pool (3^n / 100 s, up to 20 s) and resets only on a success: a 3 s cut under load
 * left queries waiting 10–20 s after the database was back, and the API answered 503
 * for that long. connectDb caps the delay at 1 s (reconnectDelaySeconds).
 */
test("a pool cut off for 3 s under load answers every client again within 10 s of the database's return", async (t) => {
  t.timeout(90_000);
  const db = await createTestDatabase("pgcut");
  const proxy = await startTcpProxy({ targetPort: 5432 });
  const url = new URL(db.url);
  url.port = String(proxy.port);
  const pool = connectDb(url.toString(), { max: 10 });
  try {
    await pool`create table counter (id int primary key, n int not null)`;
    await pool`insert into counter values (1, 0)`;
    let running = true;
    let upAt = Infinity;
    // Per client: when its first success after the database's return arrived.
    const backAt: number[] = [];
    const client = async (i: number) => {
      while (running) {
        try {
          if (i % 2 === 0) await pool.begin(async (tx) => {
            await tx`select n from counter where id = 1 for update`;
            await tx`update counter set n = n + 1 where id = 1`;
          });
          else await pool`select ${i}::int as i, pg_sleep(0.005)`;
          if (Date.now() > upAt && backAt[i] === undefined) backAt[i] = Date.now();
        } catch {}
        await sleep(5);
      }
    };
    const clients = Array.from({ length: 20 }, (_, i) => client(i));
    await sleep(1_500);
    await proxy.down();
    await sleep(3_000);
    await proxy.up();
    upAt = Date.now();
    await sleep(10_000);
    const late = Array.from({ length: 20 }, (_, i) => i).filter((i) => backAt[i] === undefined);
    running = false;
    await Promise.race([Promise.all(clients), sleep(30_000)]);
    t.log("first success after the return (ms), per client:", backAt.map((at) => at - upAt));
    t.deepEqual(late, [], "clients with no successful query within 10 s of the database's return");
  } finally {
    await pool.end({ timeout: 1 });
    await proxy.close();
    await db.drop();
  }
});
