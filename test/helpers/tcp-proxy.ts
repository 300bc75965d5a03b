// A TCP proxy of the test's own between a process and a server (PostgreSQL, say), to
// cut the network without touching the shared server: `down()` closes the listener
// AND tears down every forwarded connection pair (new connections are refused, open
// ones die mid-stream); `up()` listens again on the same port.
import net, { type Server, type Socket } from "node:net";
import { freePort } from "./process.js";

export interface TcpProxy {
  port: number;
  readonly isUp: boolean;
  /** Connections accepted since the proxy was made. */
  readonly accepted: number;
  /** Forwarded pairs open right now. */
  readonly open: number;
  up(): Promise<void>;
  down(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(options: {
  targetPort: number;
  targetHost?: string;
  /** The port to listen on; a free one by default. */
  port?: number;
  /** Listen at once (default true). */
  listen?: boolean;
}): Promise<TcpProxy> {
  const targetHost = options.targetHost ?? "127.0.0.1";
  const port = options.port ?? (await freePort());
  const pairs = new Set<[Socket, Socket]>();
  let server: Server | undefined;
  let accepted = 0;

  // Not resetAndDestroy(): on Node 20 a socket reset that way while it has writes
  // pending can leave the process spinning at exit (seen as an ava worker that never
  // exits). destroy() closes at once; the peer sees the connection end mid-stream.
  const kill = (socket: Socket) => socket.destroy();

  const onConnection = (client: Socket) => {
    accepted++;
    const upstream = net.connect(options.targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    let done = false;
    const teardown = () => {
      if (done) return;
      done = true;
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", teardown);
    upstream.on("error", teardown);
    client.on("close", teardown);
    upstream.on("close", teardown);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const proxy: TcpProxy = {
    port,
    get isUp() {
      return server !== undefined;
    },
    get accepted() {
      return accepted;
    },
    get open() {
      return pairs.size;
    },
    async up() {
      if (server) return;
      const made = net.createServer(onConnection);
      await new Promise<void>((resolve, reject) => {
        made.once("error", reject);
        made.listen(port, "127.0.0.1", () => {
          made.off("error", reject);
          resolve();
        });
      });
      server = made;
    },
    async down() {
      const current = server;
      server = undefined;
      const closed = current ? new Promise<void>((resolve) => current.close(() => resolve())) : Promise.resolve();
      for (const [client, upstream] of [...pairs]) {
        kill(client);
        kill(upstream);
      }
      pairs.clear();
      await closed;
    },
    async close() {
      await proxy.down();
    },
  };
  if (options.listen !== false) await proxy.up();
  return proxy;
}
