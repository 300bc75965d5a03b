// A nats-server with JetStream of the test's own on a reserved port, NOT started until
// asked: for tests of roles started while NATS is unreachable. startPrivateNats
// (nats.ts) is this, started at once.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect } from "@nats-io/transport-node";
import { freePort, spawnProcess, type Spawned } from "./process.js";

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

export async function reservePrivateNats() {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), "nats-"));
  const url = `nats://127.0.0.1:${port}`;
  let server: Spawned | undefined;
  const running = () => server !== undefined && server.child.exitCode === null && server.child.signalCode === null;
  return {
    url,
    port,
    get running() {
      return running();
    },
    /** Starts the server (same port, same store directory) and waits until it answers. */
    async start() {
      if (running()) return;
      server = spawnProcess("/usr/sbin/nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir]);
      for (let waited = 0; !(await reachable(url)); waited += 100) {
        if (waited > 10_000) throw new Error(`nats-server did not start:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      await server?.stop("SIGTERM");
    },
    async close() {
      await server?.stop("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type PrivateNats = Awaited<ReturnType<typeof reservePrivateNats>>;
