import type { DescService } from "@bufbuild/protobuf";
import { createClient, createRouterTransport, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { actorHeaders, type Actor } from "../common/actor.js";
import { rpcMetricsInterceptor } from "./metrics.js";
import { rpcTracingInterceptor, type Role } from "./tracing.js";
import { createLeanGrpcTransport, DEFAULT_READ_MAX_BYTES } from "../lean-grpc/index.js";
import type { InProcessTarget } from "./rpc-server.js";
import { createLogger, type Logger } from "./logger.js";
import { internalTokenInterceptor } from "./rpc-auth.js";

export interface RpcChannel {
  client<T extends DescService>(service: T): Client<T>;
  close(): void;
}

export interface RpcChannelOptions {
  /** Deadline for every call unless the call sets its own. */
  timeoutMs?: number;
  interceptors?: Interceptor[];
  /** HTTP/2 sessions to open to each of the service's addresses (calls are spread over them). */
  sessions?: number;
  /**
   * Who acts behind every call (CONTRACT §13): one actor (the CLI is the operator), or
   * a function asked at each call (the gateway: acting-as.ts's current actor). Unset
   * or undefined: the call states no actor, which only reads may do.
   */
  actor?: Actor | (() => Actor | undefined);
  /**
   * INTERNAL_TOKEN, carried by every call (rpc-auth.ts). A service that refuses the
   * token (or its lack) fails the call UNAVAILABLE, naming the variable.
   */
  internalToken?: string;
  /** The calling role, which its client spans name (tracing.ts); default "client". */
  role?: Role;
  /** Where address changes and failed lookups are logged (default: a logger named after `role`). */
  logger?: Logger;
  /** A host name's addresses (default: the system resolver's); tests inject their own. */
  lookup?: (host: string) => Promise<string[]>;
  /** How often host names are looked up again (default 5 s, lean-grpc's RESOLVE_EVERY_MS); tests shorten it. */
  resolveEveryMs?: number;
}

/** The one client interceptor that states the actor in each request's headers. */
export function actorInterceptor(actor: Actor | (() => Actor | undefined)): Interceptor {
  return (next) => async (request) => {
    const current = typeof actor === "function" ? actor() : actor;
    if (current) for (const [name, value] of Object.entries(actorHeaders(current))) request.header.set(name, value);
    return next(request);
  };
}

/**
 * The client interceptors of a channel: the trace's client span first (it covers the
 * whole call and writes `traceparent`), metrics, the internal token, the actor's
 * headers, then the caller's own.
 */
function clientInterceptors(options: RpcChannelOptions): Interceptor[] {
  return [
    rpcTracingInterceptor("client", options.role ?? "client"),
    rpcMetricsInterceptor("client"),
    internalTokenInterceptor(options.internalToken, options.role ?? "this client"),
    ...(options.actor ? [actorInterceptor(options.actor)] : []),
    ...(options.interceptors ?? []),
  ];
}

/**
 * gRPC to one service, spread round robin over every address it has (lean-grpc/
 * README.md, "Several addresses"): `baseUrl` is one URL or a comma list of them, and a
 * host name stands for all its A and AAAA records, looked up again every 5 s. Each
 * address gets a small pool of HTTP/2 sessions. `close()` ends the connections:
 * otherwise they keep a process (or a test) alive.
 */
export function createRpcChannel(baseUrl: string, options: RpcChannelOptions = {}): RpcChannel {
  const interceptors = clientInterceptors(options);
  // Made only if there is something to say: most channels never log.
  let logger = options.logger;
  const channelLogger = () => (logger ??= createLogger(options.role ?? "client", process.env.LOG_LEVEL || "info"));
  const log = {
    info: (fields: Record<string, unknown>, message: string) => channelLogger().info(fields, message),
    warn: (fields: Record<string, unknown>, message: string) => channelLogger().warn(fields, message),
  };
  const transport = createLeanGrpcTransport({
    baseUrl,
    sessions: options.sessions ?? 2,
    defaultTimeoutMs: options.timeoutMs ?? 5_000,
    interceptors,
    // Connect's own transport carries what the lean path does not (streaming calls).
    fallback: (addressUrl) => {
      const sessionManager = new Http2SessionManager(addressUrl, { pingIntervalMs: 30_000, pingTimeoutMs: 5_000, idleConnectionTimeoutMs: 60_000 });
      const connect = createGrpcTransport({
        baseUrl: addressUrl,
        sessionManager,
        defaultTimeoutMs: options.timeoutMs ?? 5_000,
        // Loopback and a private network: compressing costs CPU and saves nothing.
        acceptCompression: [],
        interceptors,
      });
      return Object.assign(connect, { close: () => sessionManager.abort() });
    },
    lookup: options.lookup,
    resolveEveryMs: options.resolveEveryMs,
    log,
  });
  return {
    client: (service) => createClient(service, transport),
    close: () => transport.close(),
  };
}

/**
 * The same client as createRpcChannel for a service running in this process
 * (RpcServer.inProcess): Connect's router transport calls its handlers directly, behind
 * the server's own interceptors, with no HTTP/2 hop. What a caller can observe stays
 * as over gRPC: the same default deadline (the handler's signal is aborted with it and
 * the call fails DEADLINE_EXCEEDED even if the handler ignores it), the same client
 * interceptors and metrics, the same ConnectError codes and details, and the same
 * 4 MiB read limit. Messages are still encoded and decoded, so neither side can hold
 * on to or change the other's objects.
 */
export function createInProcessChannel(target: InProcessTarget, options: RpcChannelOptions = {}): RpcChannel {
  const transport = createRouterTransport(target.routes, {
    router: { interceptors: target.interceptors, readMaxBytes: DEFAULT_READ_MAX_BYTES },
    transport: {
      defaultTimeoutMs: options.timeoutMs ?? 5_000,
      interceptors: clientInterceptors(options),
      readMaxBytes: DEFAULT_READ_MAX_BYTES,
    },
  });
  return {
    client: (service) => createClient(service, transport),
    close: () => {},
  };
}

/** gRPC to an address, or in-process to a service running here. */
export function openRpcChannel(target: string | InProcessTarget, options: RpcChannelOptions = {}): RpcChannel {
  return typeof target === "string" ? createRpcChannel(target, options) : createInProcessChannel(target, options);
}
