// `npm start` on a bare machine: no DATABASE_URL, so embedded PostgreSQL in DATA_DIR.
// It prints a demo key that works, stops cleanly on SIGTERM, and a second start on the
// same DATA_DIR finds the same store, key and products. With no INTERNAL_TOKEN it makes
// one, kept in DATA_DIR, which its services demand and store-admin finds there.
import { OPERATOR } from "../../common/actor.js";
import { readdirSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import test from "ava";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { AccountService } from "../../gen/catalog/v1/account_pb.js";
import { StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { INTERNAL_TOKEN_FILE, keptInternalToken } from "../../platform/rpc-auth.js";
import { createRpcChannel } from "../../platform/rpc-client.js";
import { api } from "../helpers/http.js";
import { freePort, spawnProcess, type Spawned } from "../helpers/process.js";

const BANNER = /Store Order API listening on (\S+)/;
const DEMO_KEY = /Demo API key: (sk_live_\w+)/;
const DEMO_STORE = /Demo store (\S+)/;
const DEMO_SIGN_IN = /Dashboard: sign in as (\S+) with this one-time link \(until [^)]+\): (\S+)/;
const DEMO_PASSWORD_SIGN_IN = /Dashboard: sign in at (\S+) as (\S+) with the password you chose/;
/** The banner's last line at the default level: where the log went. */
const LOG_LINE = /^Log: (\S+) \(warnings and errors show on this terminal too; LOG_LEVEL=info prints every line to this terminal instead\)$/m;

let dataDir: string | undefined;
const started: Spawned[] = [];
/** Every process seen below an `npm start`, so none outlives the test. */
const descendants = new Set<number>();

/** The pids of every live process below `root` (Linux /proc). */
function processTree(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid …; comm may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const children = parents.get(ppid) ?? [];
      children.push(Number(entry));
      parents.set(ppid, children);
    } catch {}
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = pids.filter(alive);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test.before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "npm-start-"));
  // Run as root, embedded PostgreSQL drops to the `postgres` user, which must be able
  // to enter this directory.
  await chmod(dataDir, 0o755);
});

test.after.always(async () => {
  for (const child of started) {
    if (child.child.exitCode !== null || child.child.signalCode !== null) continue;
    for (const pid of processTree(child.child.pid!)) descendants.add(pid);
    child.child.kill("SIGKILL");
  }
  await stopLeftovers([...descendants]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/**
 * Stops what an `npm start` left running: SIGTERM to the top-most survivors (the
 * launcher, which then stops its PostgreSQL cleanly), SIGKILL to whatever remains.
 */
async function stopLeftovers(pids: number[]): Promise<void> {
  const left = pids.filter(alive);
  if (left.length === 0) return;
  const below = new Set(left.flatMap((pid) => processTree(pid)));
  for (const pid of left.filter((pid) => !below.has(pid))) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {}
  }
  for (const pid of await waitGone(left, 10_000)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

interface Run {
  npm: Spawned;
  baseUrl: string;
  key: string;
  storeId: string;
  startupMs: number;
  catalogAddr: string;
  /** The one-time link, or undefined once the demo member has a password. */
  signIn?: { email: string; link: string };
}

/** `npm start` on the test's DATA_DIR; `env` adds to (or unsets, with undefined) its environment. */
async function npmStart(env: Record<string, string | undefined> = {}): Promise<Run> {
  const port = await freePort();
  const catalogAddr = `http://127.0.0.1:${await freePort()}`;
  const spawnedAt = performance.now();
  const npm = spawnProcess("npm", ["start"], {
    DATABASE_URL: undefined,
    DATA_DIR: dataDir,
    PORT: String(port),
    // Every internal service on a free port of its own, so parallel runs never meet.
    CATALOG_ADDR: catalogAddr,
    ORDER_ADDR: `http://127.0.0.1:${await freePort()}`,
    WEBHOOK_ADDR: `http://127.0.0.1:${await freePort()}`,
    // Metrics on any free port: the banner prints where.
    METRICS_PORT: "0",
    PUBLIC_BASE_URL: undefined,
    NATS_URL: undefined,
    INTERNAL_TOKEN: undefined,
    ...env,
  });
  started.push(npm);
  await npm.waitFor(BANNER, 90_000);
  const startupMs = performance.now() - spawnedAt;
  const [, key] = await npm.waitFor(DEMO_KEY, 5_000);
  const [, storeId] = await npm.waitFor(DEMO_STORE, 5_000);
  // The banner's end: its last line and the blank line after it.
  await npm.waitFor(/^(?:Metrics|Log)[^\n]*\n\n/m, 5_000);
  const [, email, link] = npm.output().match(DEMO_SIGN_IN) ?? [];
  for (const pid of processTree(npm.child.pid!)) descendants.add(pid);
  return { npm, baseUrl: `http://127.0.0.1:${port}`, key: key!, storeId: storeId!, startupMs, catalogAddr, signIn: email ? { email, link: link! } : undefined };
}

/** SIGTERM to `npm start`: exit code 0 within 10 s, and nothing of it keeps running. */
async function stop(t: import("ava").ExecutionContext, run: Run) {
  const tree = processTree(run.npm.child.pid!);
  for (const pid of tree) descendants.add(pid);
  const signalledAt = performance.now();
  run.npm.child.kill("SIGTERM");
  const code = await Promise.race([run.npm.exited, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000))]);
  const ms = performance.now() - signalledAt;
  // The server itself must be gone too, not only npm: no child lives on, the port refuses.
  const left = await waitGone(tree, Math.max(500, 10_000 - ms));
  const answered = await fetch(`${run.baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
    () => true,
    () => false,
  );
  t.log(
    `npm start after SIGTERM: ${code === "timeout" ? "still running" : `exit code ${code}, signal ${run.npm.child.signalCode}`} after ${Math.round(ms)} ms` +
      (left.length > 0 ? `; still running below it: ${left.map(describe).join(", ")}` : ""),
  );
  // Clear the way for the next start on the same DATA_DIR before asserting.
  await stopLeftovers(left);

  t.is(code, 0, `npm start exits 0 within 10 s of SIGTERM; output:\n${run.npm.output().slice(-1500)}`);
  t.deepEqual(left.map(describe), [], "no process started by npm start outlives it");
  t.false(answered, "the API stopped answering");
}

function describe(pid: number): string {
  try {
    return `${pid} (${readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim().slice(0, 80)})`;
  } catch {
    return String(pid);
  }
}

let first: { key: string; storeId: string; items: unknown[]; lastUsedAt?: string; internalToken?: string; signInLink?: string } | undefined;

/** The invitation token of a printed one-time link. */
const tokenOf = (link: string) => decodeURIComponent(link.slice(link.indexOf("/dashboard/invite/") + "/dashboard/invite/".length));

/** The store's audit entries of the demo member's invitations. */
async function demoInvitations(run: Run) {
  const channel = createRpcChannel(run.catalogAddr, { actor: OPERATOR, internalToken: keptInternalToken(dataDir!) });
  try {
    const { entries } = await channel.client(AccountService).listAudit({ storeId: run.storeId, action: "member.invited" });
    return entries.filter((entry) => entry.target === "member:demo@example.com");
  } finally {
    channel.close();
  }
}

/** The demo key's "Last used", as the dashboard shows it (the catalog's key list). */
async function lastUsedOf(run: Run): Promise<string | undefined> {
  const channel = createRpcChannel(run.catalogAddr, { actor: OPERATOR, internalToken: keptInternalToken(dataDir!) });
  try {
    const { apiKeys } = await channel.client(StoreService).listApiKeys({ storeId: run.storeId });
    const used = apiKeys.find((key) => key.prefix && run.key.startsWith(key.prefix))?.lastUsedAt;
    return used ? timestampDate(used).toISOString() : undefined;
  } finally {
    channel.close();
  }
}

test.serial("npm start on a fresh DATA_DIR serves the API with a printed demo key and stops on SIGTERM", async (t) => {
  // LOG_LEVEL unset, as a newcomer runs it.
  const run = await npmStart({ LOG_LEVEL: undefined });
  t.log(`fresh DATA_DIR: spawn → "listening" banner in ${(run.startupMs / 1000).toFixed(2)} s`);
  t.regex(run.key, /^sk_live_[0-9A-Za-z]{32,}$/);

  const page = await api(run.baseUrl, "/v1/products?limit=2", { key: run.key });
  t.is(page.status, 200, page.text);
  t.deepEqual(Object.keys(page.body).sort(), ["data", "success"]);
  t.true(page.body.success);
  t.is(page.body.data.items.length, 2);
  t.true(page.body.data.has_more);
  const all = await api(run.baseUrl, "/v1/products?limit=50", { key: run.key });
  t.is(all.status, 200);
  first = { key: run.key, storeId: run.storeId, items: all.body.data.items, signInLink: run.signIn?.link };

  // The banner shows the URL the API is on (PUBLIC_BASE_URL follows PORT).
  const printed = run.npm.output().match(BANNER)![1]!;
  t.is(printed, `http://localhost:${new URL(run.baseUrl).port}`);

  // And where every role's metrics are: not on the API's port.
  const metricsUrl = run.npm.output().match(/Metrics of every role \(Prometheus, not on the API's port\): (\S+)/)?.[1];
  t.truthy(metricsUrl, run.npm.output());
  const metrics = await (await fetch(metricsUrl!)).text();
  t.regex(metrics, /^http_requests_total\{route="\/v1\/products",method="GET",code="200"\} [1-9]/m);
  t.regex(metrics, /^rpc_calls_total\{side="server",service="catalog\.v1\.CatalogService",/m);
  t.is((await api(run.baseUrl, "/metrics")).status, 404);

  // The dashboard link is a one-time invitation of the demo member, still open.
  const invitePrefix = `${printed}/dashboard/invite/`;
  t.truthy(run.signIn, run.npm.output());
  t.true(run.signIn!.link.startsWith(invitePrefix), run.signIn!.link);
  t.is(run.signIn!.email, "demo@example.com");
  const accounts = createRpcChannel(run.catalogAddr, { actor: OPERATOR, internalToken: keptInternalToken(dataDir!) });
  try {
    const link = await accounts.client(AccountService).checkLink({ kind: "invitation", token: tokenOf(run.signIn!.link) });
    t.deepEqual([link.state, link.email], ["pending", "demo@example.com"]);
  } finally {
    accounts.close();
  }

  // At the default level the terminal shows the banner alone: no JSON line before it
  // (npm's own two lines aside), and none after it while requests were served (the
  // refused call below is the first thing here that warns).
  const lines = run.npm.output().split("\n").filter((line) => line.trim() !== "");
  t.deepEqual(lines.filter((line) => line.startsWith("{")), [], "no log line on the terminal");
  t.regex(lines.at(-1)!, LOG_LINE, "the banner's last line is the last thing printed");
  t.true(lines.indexOf(lines.find((line) => BANNER.test(line))!) <= 2, `the banner comes right after npm's own lines:\n${lines.join("\n")}`);
  // Every line went to the file the banner names instead, JSON as ever.
  const logPath = run.npm.output().match(LOG_LINE)![1]!;
  t.is(logPath, path.join(dataDir!, "logs", "start.log"));
  const logText = readFileSync(logPath, "utf8");
  const logged = logText.split("\n").filter(Boolean).map((line) => JSON.parse(line) as { msg: string; path?: string });
  t.true(logged.some((line) => line.msg === "gateway listening"), logText.slice(0, 2_000));
  t.true(logged.some((line) => line.msg === "request" && line.path?.startsWith("/v1/products")), "the API's requests are logged to the file");

  first.lastUsedAt = await lastUsedOf(run);
  t.truthy(first.lastUsedAt, "the requests above used the key");

  // The internal token it made: kept in DATA_DIR for its owner alone, demanded by its
  // services, and found there by store-admin.
  const token = keptInternalToken(dataDir!);
  t.regex(token ?? "", /^[A-Za-z0-9_-]{43}$/);
  t.is((await stat(path.join(dataDir!, INTERNAL_TOKEN_FILE))).mode & 0o777, 0o600);
  t.false(run.npm.output().includes(token!), "never printed or logged");
  first.internalToken = token;
  const stranger = createRpcChannel(run.catalogAddr, { actor: OPERATOR });
  try {
    const refused = await t.throwsAsync(stranger.client(StoreService).listApiKeys({ storeId: run.storeId }));
    t.regex(refused?.message ?? "", /asks for the internal token/);
  } finally {
    stranger.close();
  }
  const admin = spawnProcess(process.execPath, ["cli/store-admin.js", "key", "list", "--store", run.storeId], {
    DATA_DIR: dataDir,
    INTERNAL_TOKEN: undefined,
    CATALOG_ADDR: run.catalogAddr,
  });
  t.is(await admin.exited, 0, admin.output());
  t.is(JSON.parse(admin.output()).keys.length, 1, "store-admin lists the demo key");

  t.false(readFileSync(logPath, "utf8").includes(token!), "the internal token is not in the log file either");

  await stop(t, run);
});

test.serial("npm start again on the same DATA_DIR keeps the demo store, key and products", async (t) => {
  t.truthy(first, "the first start ran");
  // LOG_LEVEL set: every line on the terminal, as before.
  const run = await npmStart({ LOG_LEVEL: "info" });
  t.log(`used DATA_DIR: spawn → "listening" banner in ${(run.startupMs / 1000).toFixed(2)} s`);
  const logLines = run.npm.output().split("\n").filter((line) => line.startsWith("{"));
  t.true(logLines.some((line) => JSON.parse(line).msg === "gateway listening"), run.npm.output().slice(0, 2_000));
  t.notRegex(run.npm.output(), LOG_LINE, "no log file is named: there is none this time");
  t.is(run.key, first!.key, "the same demo key is printed");
  t.is(run.storeId, first!.storeId, "the same demo store");
  t.notRegex(run.npm.output(), /demo store seeded/, "nothing was seeded again");
  t.is(await lastUsedOf(run), first!.lastUsedAt, "starting is not a use: the key's Last used is untouched");
  // The invitation still open is printed again, not made anew: one in the audit log.
  t.is(run.signIn?.link && tokenOf(run.signIn.link), tokenOf(first!.signInLink!), "the same sign-in link");
  t.is((await demoInvitations(run)).length, 1, "the demo member was invited once");
  // Used once, it signs the demo member in to the demo store.
  const accounts = createRpcChannel(run.catalogAddr, { actor: OPERATOR, internalToken: keptInternalToken(dataDir!) });
  try {
    const client = accounts.client(AccountService);
    const token = tokenOf(run.signIn!.link);
    const accepted = await client.acceptInvitation({ token, password: "a demo password" });
    t.is(accepted.member!.email, "demo@example.com");
    const session = await client.resolveSession({ token: accepted.session!.token });
    t.deepEqual(session.stores.map((store) => store.id), [run.storeId]);
    await t.throwsAsync(client.acceptInvitation({ token, password: "a demo password" }), undefined, "the link works once");
  } finally {
    accounts.close();
  }
  t.is(keptInternalToken(dataDir!), first!.internalToken, "the same internal token");

  const all = await api(run.baseUrl, "/v1/products?limit=50", { key: run.key });
  t.is(all.status, 200, all.text);
  t.deepEqual(all.body.data.items, first!.items);
  const page = await api(run.baseUrl, "/v1/products?limit=2", { key: run.key });
  t.is(page.status, 200);
  t.is(page.body.data.items.length, 2);
  t.true(page.body.data.has_more);

  await stop(t, run);
});

/** The pid of the Node process running cli/start.ts below `npm start`. */
function startProcessOf(run: Run): number {
  const pid = processTree(run.npm.child.pid!).find((candidate) => {
    try {
      return readFileSync(`/proc/${candidate}/cmdline`, "utf8").includes("cli/start.ts");
    } catch {
      return false;
    }
  });
  if (!pid) throw new Error("no cli/start.ts process below npm start");
  return pid;
}

test.serial("a second npm start on the same DATA_DIR says so in one line and exits 1; the first keeps serving; after a kill -9 the next start recovers", async (t) => {
  const first = await npmStart();
  const second = spawnProcess("npm", ["start"], {
    DATABASE_URL: undefined,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    CATALOG_ADDR: `http://127.0.0.1:${await freePort()}`,
    ORDER_ADDR: `http://127.0.0.1:${await freePort()}`,
    WEBHOOK_ADDR: `http://127.0.0.1:${await freePort()}`,
    METRICS_PORT: "0",
    PUBLIC_BASE_URL: undefined,
    NATS_URL: undefined,
    INTERNAL_TOKEN: undefined,
  });
  started.push(second);
  const code = await Promise.race([second.exited, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 60_000))]);
  t.is(code, 1, second.output().slice(-2_000));
  const fatal = second
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{") && JSON.parse(line).level === "fatal");
  t.is(fatal.length, 1, second.output().slice(-2_000));
  t.regex(fatal[0] ?? "", new RegExp(`DATA_DIR .* is in use by another run \\(pid ${startProcessOf(first)}\\)`));
  const still = await api(first.baseUrl, "/v1/products?limit=1", { key: first.key });
  t.is(still.status, 200, "the first start still serves");

  // The first run is killed outright: its lock and its PostgreSQL are left behind.
  for (const pid of processTree(first.npm.child.pid!)) descendants.add(pid);
  process.kill(startProcessOf(first), "SIGKILL");
  await first.npm.exited;
  const third = await npmStart();
  t.is(third.key, first.key, "the same demo store, from the same database");
  // The invitation was used: the banner says to sign in with the password, and no new one is made.
  t.is(third.signIn, undefined, third.npm.output());
  const [, loginUrl, email] = third.npm.output().match(DEMO_PASSWORD_SIGN_IN) ?? [];
  t.is(loginUrl, `http://localhost:${new URL(third.baseUrl).port}/dashboard/login`);
  t.is(email, "demo@example.com");
  t.regex(third.npm.output(), /Forgot it\? \S+\/dashboard\/forgot-password mails a reset link/);
  t.true(third.npm.output().includes(`npx store-admin user invite --store ${third.storeId} --email demo@example.com`));
  t.is((await demoInvitations(third)).length, 1, "still one invitation in the audit log");
  t.is((await api(third.baseUrl, "/v1/products?limit=1", { key: third.key })).status, 200);
  await stop(t, third);
});
