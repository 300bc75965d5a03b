import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { rpcMetricsInterceptor } from "./metrics.js";

export interface RpcChannel {
  client<T extends DescService>(service: T): Client<T>;
  close(): void;
}

export interface RpcChannelOptions {
  /** Deadline for every call unless the call sets its own. */
  timeoutMs?: number;
  interceptors?: Interceptor[];
}

/**
 * One HTTP/2 session to one service, speaking gRPC. The session manager is kept so
 * `close()` can end the connection: otherwise it keeps a process (or a test) alive.
 */
export function createRpcChannel(baseUrl: string, options: RpcChannelOptions = {}): RpcChannel {
  const sessionManager = new Http2SessionManager(baseUrl, {
    pingIntervalMs: 30_000,
    pingTimeoutMs: 5_000,
    idleConnectionTimeoutMs: 60_000,
  });
  const transport = createGrpcTransport({
    baseUrl,
    sessionManager,
    defaultTimeoutMs: options.timeoutMs ?? 5_000,
    interceptors: [rpcMetricsInterceptor("client"), ...(options.interceptors ?? [])],
  });
  return {
    client: (service) => createClient(service, transport),
    close: () => sessionManager.abort(),
  };
}
