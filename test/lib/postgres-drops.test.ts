import test from "ava";
import postgres from "postgres";
import { createTestDatabase } from "../helpers/db.js";
import { spawnEntry } from "../helpers/process.js";

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
