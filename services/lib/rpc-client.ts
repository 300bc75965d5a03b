import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { rpcMetricsInterceptor } from "./metrics.js";
import { createUnaryGrpcTransport } from "./grpc-unary.js";

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
  // Connect's own transport serves what the lean path does not (streaming calls, and
  // channels with extra interceptors); the lean path has its own sessions.
  const sessionManager = new Http2SessionManager(baseUrl, { pingIntervalMs: 30_000, pingTimeoutMs: 5_000, idleConnectionTimeoutMs: 60_000 });
  const connect = createGrpcTransport({
    baseUrl,
    sessionManager,
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
      sessionManager.abort();
      if ("close" in transport) (transport as { close(): void }).close();
    },
  };
}
