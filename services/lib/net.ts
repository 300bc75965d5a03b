import { createServer } from "node:net";

function tryPort(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port free on loopback right now, drawn below the kernel's ephemeral range
 * (32768 and up on Linux): a port the kernel handed out could be taken by any
 * outgoing connection before the process meant to listen on it does.
 */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await tryPort(port, host)) return port;
  }
  throw new Error("no free port found");
}
