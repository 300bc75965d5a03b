import type { DescService } from "@bufbuild/protobuf";
import type http2 from "node:http2";
import net from "node:net";
import { Code, ConnectError, createClient, createRouterTransport, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { actorHeaders, type Actor } from "../common/actor.js";
import { rpcMetricsInterceptor } from "./metrics.js";
import { rpcTracingInterceptor, type Role } from "./tracing.js";
import { DEFAULT_READ_MAX_BYTES } from "../lean-grpc/index.js";
import { createLeanAddressTransport } from "../lean-grpc/client.js";
import { createBalancedTransport, markUnsent, type AddressEvents, type AddressTransport, type BalancerOptions } from "../lean-grpc/balancer.js";
import type { BalancerLog, ServiceAddress } from "../lean-grpc/resolver.js";
import type { InProcessTarget } from "./rpc-server.js";
import { createLogger, type Logger } from "./logger.js";
import { internalTokenInterceptor } from "./rpc-auth.js";

export interface RpcChannel {
  client<T extends DescService>(service: T): Client<T>;
  close(): void;
}

/** How calls to another role travel (RPC_TRANSPORT): lean-grpc/'s unary client, or Connect's own. */
export type RpcTransport = "lean" | "connect";

export interface RpcChannelOptions {
  /** RPC_TRANSPORT (default "lean"). */
  transport?: RpcTransport;
  /** Deadline for every call unless the call sets its own. */
  timeoutMs?: number;
  interceptors?: Interceptor[];
  /** HTTP/2 sessions the lean wire opens to each of the service's addresses (calls are spread over them). */
  sessions?: number;
  /**
   * Who acts behind every call (docs/team.md#who-acts): one actor (the CLI is the operator), or
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
  /** What an address's backoff out of the rotation counts time with (default Date.now); tests move it. */
  now?: () => number;
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
 * host name stands for all its A and AAAA records, looked up again every 5 s. The wire
 * to each address is lean-grpc's (a small pool of HTTP/2 sessions), or Connect's own
 * transport with `transport: "connect"`: it costs the caller about 2.5× the CPU per
 * call (bench/README.md, "The transport, measured again"). `close()` ends the
 * connections: otherwise they keep a process (or a test) alive.
 */
export function createRpcChannel(baseUrl: string, options: RpcChannelOptions = {}): RpcChannel {
  const interceptors = clientInterceptors(options);
  // The balancing is one for both wires; only how an address is dialled differs.
  const dial: BalancerOptions["dial"] =
    options.transport === "connect"
      ? (address, events) => connectAddressTransport(address, events, options, interceptors)
      : (address, events) =>
          createLeanAddressTransport(address, events, {
            sessions: options.sessions ?? 2,
            // Connect's own transport carries what the lean path does not (streaming calls).
            fallback: (addressUrl) => connectTransport(addressUrl, options, interceptors),
          });
  const transport = createBalancedTransport({
    baseUrl,
    defaultTimeoutMs: options.timeoutMs ?? 5_000,
    interceptors,
    dial,
    lookup: options.lookup,
    resolveEveryMs: options.resolveEveryMs,
    now: options.now,
    log: channelLog(options),
  });
  return {
    client: (service) => createClient(service, transport),
    close: () => transport.close(),
  };
}

/** Connect's own gRPC transport to one URL, over one HTTP/2 session it keeps alive. */
function connectTransport(url: string, options: RpcChannelOptions, interceptors: Interceptor[], sessionOptions?: http2.ClientSessionOptions) {
  const sessionManager = new Http2SessionManager(url, { pingIntervalMs: 30_000, pingTimeoutMs: 5_000, idleConnectionTimeoutMs: 60_000 }, sessionOptions);
  const connect = createGrpcTransport({
    baseUrl: url,
    sessionManager,
    defaultTimeoutMs: options.timeoutMs ?? 5_000,
    // Loopback and a private network: compressing costs CPU and saves nothing.
    acceptCompression: [],
    readMaxBytes: DEFAULT_READ_MAX_BYTES,
    interceptors,
  });
  return Object.assign(connect, { sessionManager, close: () => sessionManager.abort() });
}

/**
 * RPC_TRANSPORT=connect: Connect's own transport to each address, under the same
 * balancing as the lean one (lean-grpc/balancer.ts). Connect's transport speaks to one
 * URL; the socket is ours, to reach one address under the service's name and to tell
 * the balancer whether it connected.
 */
function connectAddressTransport(address: ServiceAddress, events: AddressEvents, options: RpcChannelOptions, interceptors: Interceptor[]): AddressTransport {
  const createConnection = () => {
    const socket = net.connect({ host: address.host, port: address.port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 30_000 });
    let connected = false;
    socket.once("connect", () => {
      connected = true;
      events.connected();
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      if (!connected) events.failed(error.code ?? error.message);
    });
    return socket;
  };
  // Streaming calls run the interceptors in Connect's transport; unary ones have run them in the balancer.
  const streaming = connectTransport(address.authority, options, interceptors, { createConnection });
  const unary = createGrpcTransport({ baseUrl: address.authority, sessionManager: streaming.sessionManager, acceptCompression: [], readMaxBytes: DEFAULT_READ_MAX_BYTES });
  return {
    async unary(attempt) {
      try {
        const answer = await unary.unary(attempt.method, attempt.signal, attempt.timeoutMs, attempt.header, attempt.message, attempt.contextValues);
        return { header: answer.header, trailer: answer.trailer, message: answer.message };
      } catch (error) {
        throw connectFailure(error, attempt.signal);
      }
    },
    stream: (...args) => streaming.stream(...args),
    close: () => streaming.close(),
  };
}

/**
 * What the balancer needs to know of a failed Connect call: whether the server cannot
 * have seen it (the connection was never made, or the stream was refused unprocessed),
 * and a dropped connection said as UNAVAILABLE (an outage), as the lean transport says it.
 */
function connectFailure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (!(error instanceof ConnectError)) return error;
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const { syscall } = cause as NodeJS.ErrnoException;
    // Node and connect-node name a refused stream only in the message.
    if (syscall === "connect" || syscall === "getaddrinfo" || cause.message.includes("REFUSED_STREAM")) {
      return markUnsent(new ConnectError(error.rawMessage, Code.Unavailable, undefined, undefined, error));
    }
  }
  // A status the server sent has no cause and names no reset; only the connection's own failure is re-said.
  const fromConnection = error.cause !== undefined || error.rawMessage.startsWith("http/2 stream closed");
  if ((error.code === Code.Canceled || error.code === Code.Aborted) && fromConnection && !signal?.aborted) {
    return new ConnectError(`the connection dropped: ${error.rawMessage}`, Code.Unavailable, undefined, undefined, error);
  }
  return error;
}

/** Where a channel says what it has to say; the logger is made only then: most channels never log. */
function channelLog(options: RpcChannelOptions): BalancerLog {
  let logger = options.logger;
  const channelLogger = () => (logger ??= createLogger(options.role ?? "client", process.env.LOG_LEVEL || "info"));
  return {
    info: (fields, message) => channelLogger().info(fields, message),
    warn: (fields, message) => channelLogger().warn(fields, message),
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
