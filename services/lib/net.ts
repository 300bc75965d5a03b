import { createServer } from "node:net";

function tryPort(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

const BLOCKS = 24;
const BLOCK_SIZE = 500;
const handedOut = new Set<number>();

/**
 * A TCP port free on loopback right now, drawn below the kernel's ephemeral range
 * (32768 and up on Linux): a port the kernel handed out could be taken by any
 * outgoing connection before the process meant to listen on it does. Each process
 * draws from its own block (by pid) and never hands a port out twice, so processes
 * running side by side (test workers) do not pick the same one.
 */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const base = 20_000 + (process.pid % BLOCKS) * BLOCK_SIZE;
  for (let attempt = 0; attempt < 400; attempt++) {
    const port = attempt < 300 ? base + Math.floor(Math.random() * BLOCK_SIZE) : 20_000 + Math.floor(Math.random() * BLOCKS * BLOCK_SIZE);
    if (handedOut.has(port)) continue;
    if (await tryPort(port, host)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("no free port found");
}
