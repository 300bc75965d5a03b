import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: http.IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
  at: number;
}

export type Reply = { status: number; headers?: Record<string, string>; body?: string | Buffer } | "hang";

/**
 * A real HTTP server on loopback that records every webhook request and answers as
 * the test says (`respond` may change between requests).
 */
export async function startReceiver(respond: (request: Received, index: number) => Reply = () => ({ status: 200 })) {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  let handler = respond;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      received.push(entry);
      const reply = handler(entry, received.length - 1);
      if (reply === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    respondWith(next: typeof respond) {
      handler = next;
    },
    /** Parsed bodies of what arrived, in arrival order. */
    events(): any[] {
      return received.map((entry) => JSON.parse(entry.body));
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
