import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { rpcMetricsInterceptor } from "./metrics.js";
import { createLeanGrpcTransport } from "../../lean-grpc/index.js";

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
  const sessionManager = new Http2SessionManager(baseUrl, { pingIntervalMs: 30_000, pingTimeoutMs: 5_000, idleConnectionTimeoutMs: 60_000 });
  const interceptors = [rpcMetricsInterceptor("client"), ...(options.interceptors ?? [])];
  // Connect's own transport carries what the lean path does not (streaming calls).
  const connect = createGrpcTransport({
    baseUrl,
    sessionManager,
    defaultTimeoutMs: options.timeoutMs ?? 5_000,
    // Loopback and a private network: compressing costs CPU and saves nothing.
    acceptCompression: [],
    interceptors,
  });
  const transport = createLeanGrpcTransport({
    baseUrl,
    sessions: options.sessions ?? 2,
    defaultTimeoutMs: options.timeoutMs ?? 5_000,
    interceptors,
    fallback: connect,
  });
  return {
    client: (service) => createClient(service, transport),
    close: () => {
      sessionManager.abort();
      transport.close();
    },
  };
}
