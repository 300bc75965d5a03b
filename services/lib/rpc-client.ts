import type http2 from "node:http2";
import net from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { rpcMetricsInterceptor } from "./metrics.js";
import { createUnaryGrpcTransport } from "./grpc-unary.js";

// HTTP/2 starts every connection with 64 KiB flow-control windows; many concurrent
// answers on one connection then wait on WINDOW_UPDATE round trips. Internal calls
// are trusted and bounded, so the windows are opened wide.
const STREAM_WINDOW = 8 * 1024 * 1024;
const CONNECTION_WINDOW = 32 * 1024 * 1024;

type SessionManager = Pick<Http2SessionManager, "authority" | "request" | "notifyResponseByteRead" | "abort">;

/**
 * Several HTTP/2 sessions to one service, used in turn. Each session's connection
 * window is widened on first use, and sockets send small frames at once (no Nagle).
 */
class SessionPool implements SessionManager {
  readonly authority: string;
  private readonly managers: Http2SessionManager[];
  private readonly owners = new WeakMap<http2.ClientHttp2Stream, Http2SessionManager>();
  private readonly widened = new WeakSet<http2.Http2Session>();
  private next = 0;

  constructor(baseUrl: string, size: number) {
    const target = new URL(baseUrl);
    const host = target.hostname.replace(/^\[|\]$/g, "");
    const port = Number(target.port || 80);
    this.managers = Array.from(
      { length: size },
      () =>
        new Http2SessionManager(
          baseUrl,
          { pingIntervalMs: 30_000, pingTimeoutMs: 5_000, idleConnectionTimeoutMs: 60_000 },
          {
            createConnection: () => net.connect({ host, port, noDelay: true }),
            settings: { initialWindowSize: STREAM_WINDOW },
          },
        ),
    );
    this.authority = this.managers[0]!.authority;
  }

  async request(method: string, path: string, headers: http2.OutgoingHttpHeaders, options: Omit<http2.ClientSessionRequestOptions, "signal">) {
    const manager = this.managers[this.next++ % this.managers.length]!;
    const stream = await manager.request(method, path, headers, options);
    this.owners.set(stream, manager);
    const session = stream.session;
    if (session && !this.widened.has(session)) {
      this.widened.add(session);
      session.setLocalWindowSize(CONNECTION_WINDOW);
    }
    return stream;
  }

  notifyResponseByteRead(stream: http2.ClientHttp2Stream) {
    this.owners.get(stream)?.notifyResponseByteRead(stream);
  }

  abort(reason?: unknown) {
    for (const manager of this.managers) manager.abort(reason as Error);
  }
}

export interface RpcChannel {
  client<T extends DescService>(service: T): Client<T>;
  close(): void;
}

export interface RpcChannelOptions {
  /** Deadline for every call unless the call sets its own. */
  timeoutMs?: number;
  interceptors?: Interceptor[];
  /** HTTP/2 sessions to open to the service (calls are spread over them). */
  sessions?: number;
}

/**
 * gRPC to one service over a small pool of HTTP/2 sessions. `close()` ends the
 * connections: otherwise they keep a process (or a test) alive.
 */
export function createRpcChannel(baseUrl: string, options: RpcChannelOptions = {}): RpcChannel {
  const pool = new SessionPool(baseUrl, 1);
  const connect = createGrpcTransport({
    baseUrl,
    sessionManager: pool as unknown as Http2SessionManager,
    defaultTimeoutMs: options.timeoutMs ?? 5_000,
    // Loopback and a private network: compressing costs CPU and saves nothing.
    acceptCompression: [],
    interceptors: [rpcMetricsInterceptor("client"), ...(options.interceptors ?? [])],
  });
  // Unary calls (all but health Watch) take the lean path; it counts them in metrics
  // itself. Extra interceptors need Connect's path, so they keep it.
  const transport = options.interceptors?.length
    ? connect
    : createUnaryGrpcTransport({ baseUrl, sessions: options.sessions ?? 2, defaultTimeoutMs: options.timeoutMs ?? 5_000, fallback: connect });
  return {
    client: (service) => createClient(service, transport),
    close: () => {
      pool.abort();
      if ("close" in transport) (transport as { close(): void }).close();
    },
  };
}
