import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import { freePort, spawnProcess, type Spawned } from "./process.js";

/** Stream and consumer names of their own, so tests on the shared NATS never meet. */
export function uniqueBusNames(prefix = "T") {
  const tag = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`.toUpperCase();
  return { EVENTS_STREAM: tag, EVENTS_CONSUMER: `c-${tag.toLowerCase()}` };
}

export const SHARED_NATS_URL = process.env.TEST_NATS_URL ?? "nats://127.0.0.1:4222";

/** True when a NATS server answers at `url`. */
export async function reachable(url: string): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, timeout: 500, reconnect: false });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * A nats-server with JetStream of this test's own, on a free port and a temporary
 * store directory, for tests that stop and start NATS without disturbing the others.
 */
export async function startPrivateNats() {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), "nats-"));
  const url = `nats://127.0.0.1:${port}`;
  let server: Spawned | undefined;
  const start = async () => {
    server = spawnProcess("/usr/sbin/nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir]);
    for (let waited = 0; !(await reachable(url)); waited += 100) {
      if (waited > 10_000) throw new Error(`nats-server did not start:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await start();
  return {
    url,
    start,
    async stop() {
      await server?.stop("SIGTERM");
    },
    async close() {
      await server?.stop("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    },
  };
}
