import http2 from "node:http2";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthListResponseSchema,
} from "../gen/grpc/health/v1/health_pb.js";
import type { Logger } from "./logger.js";
import { rpcMetricsInterceptor } from "./metrics.js";
import { rpcTracingInterceptor, type Role } from "./tracing.js";
import { installLeanUnaryPath } from "../lean-grpc/index.js";
import { queryDeadlineInterceptor } from "./query-deadline.js";
import { requireInternalToken } from "./rpc-auth.js";
import { toRpcError } from "./rpc-errors.js";
import { assertRequestText } from "./rpc-text.js";

/**
 * Every request's text is checked (rpc-text.ts) and every handler's failure leaves as
 * a ConnectError fit for the client (rpc-errors.ts).
 */
function rpcErrorInterceptor(logger: Logger): Interceptor {
  return (next) => async (request) => {
    try {
      if (!request.stream) assertRequestText(request.method.input, request.message);
      return await next(request);
    } catch (error) {
      throw toRpcError(error, logger, { service: request.service.typeName, method: request.method.name });
    }
  };
}

/**
 * What every service's server runs around each handler, on both the lean path and
 * Connect's: the trace's server span outermost (continuing the caller's
 * `traceparent`), then metrics (they count the code the client gets, refusals too),
 * then, with `internalToken`, the refusal of a call without it (rpc-auth.ts), then the
 * text check and error mapping, and innermost the call's signal for its queries to be
 * cancelled with (query-deadline.ts). In-memory tests pass the same to
 * createRouterTransport.
 */
export function serverInterceptors(logger: Logger, role: Role = "service", internalToken?: string): Interceptor[] {
  return [
    rpcTracingInterceptor("server", role),
    rpcMetricsInterceptor("server"),
    ...(internalToken === undefined ? [] : [requireInternalToken(internalToken, logger, role)]),
    rpcErrorInterceptor(logger),
    queryDeadlineInterceptor(),
  ];
}

export interface RpcServerOptions {
  /** The service's role (`catalog`, `order`, `webhook`): logs and trace spans name it. */
  name: string;
  host: string;
  port: number;
  logger: Logger;
  /** Registers the service's handlers. */
  routes: (router: ConnectRouter) => void;
  /** Fully-qualified names of the services `routes` registers, for gRPC health. */
  services: string[];
  /** Throws when the service cannot serve (its database is gone, say). */
  ready: () => Promise<void>;
  /** INTERNAL_TOKEN: set, every call but a health check must carry it (rpc-auth.ts). */
  internalToken?: string;
}

/**
 * A server's handlers as this process can call them without a socket: the same routes
 * (health included) behind the same interceptors (rpc-client.ts createInProcessChannel).
 */
export interface InProcessTarget {
  /** The service's routes plus grpc.health.v1, exactly as the HTTP/2 server registers them. */
  routes: (router: ConnectRouter) => void;
  /** serverInterceptors, preceded by a refusal once the server is closing. */
  interceptors: Interceptor[];
}

export interface RpcServer {
  port: number;
  /** The same handlers for callers in this process (`npm start`). */
  inProcess: InProcessTarget;
  /** Stops accepting, lets in-flight calls finish (up to `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/**
 * One HTTP/2 cleartext server that answers gRPC, gRPC-Web and Connect for the given
 * routes plus the standard gRPC health service (`grpc.health.v1.Health`).
 */
export async function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const { logger } = options;
  let shuttingDown = false;
  const status = async (service: string): Promise<ServingStatus> => {
    if (service !== "" && !options.services.includes(service)) {
      throw new ConnectError(`unknown service ${service}`, Code.NotFound);
    }
    if (shuttingDown) return ServingStatus.NOT_SERVING;
    try {
      await options.ready();
      return ServingStatus.SERVING;
    } catch (error) {
      logger.warn({ err: error }, "not ready");
      return ServingStatus.NOT_SERVING;
    }
  };
  const healthRoutes = (router: import("@connectrpc/connect").ConnectRouter) =>
    router.service(Health, {
        async check(request) {
          return create(HealthCheckResponseSchema, { status: await status(request.service) });
        },
        async list() {
          const statuses: Record<string, ReturnType<typeof create<typeof HealthCheckResponseSchema>>> = {};
          for (const service of ["", ...options.services]) {
            statuses[service] = create(HealthCheckResponseSchema, { status: await status(service) });
          }
          return create(HealthListResponseSchema, { statuses });
        },
        async *watch(request) {
          yield create(HealthCheckResponseSchema, { status: await status(request.service) });
        },
      });
  const allRoutes = (router: import("@connectrpc/connect").ConnectRouter) => {
    options.routes(router);
    healthRoutes(router);
  };
  // Outermost first: metrics count the code the client gets, after the error mapping.
  const interceptors = serverInterceptors(logger, options.name, options.internalToken);
  const handler = connectNodeAdapter({ interceptors, routes: allRoutes });
  const server = http2.createServer({ settings: { initialWindowSize: 8 * 1024 * 1024 } }, handler);
  // Unary binary gRPC calls take the lean path (lean-grpc/, with the same interceptors);
  // every other stream goes on to Connect's handler.
  installLeanUnaryPath(server, allRoutes, { interceptors, bypass: () => shuttingDown });
  // Answers are small frames: send them now, not after the client's delayed ACK.
  server.on("connection", (socket: import("node:net").Socket) => socket.setNoDelay(true));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    // The connection-level window is not a SETTING; widen it once per session.
    session.once("localSettings", () => session.setLocalWindowSize(32 * 1024 * 1024));
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  // A closing server refuses new streams (GOAWAY, then a refused connection), which a
  // gRPC client sees as UNAVAILABLE; in-process callers get the same answer.
  const refuseWhenClosing: Interceptor = (next) => async (request) => {
    if (shuttingDown) throw new ConnectError(`${options.name} is shutting down`, Code.Unavailable);
    return next(request);
  };
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  logger.info({ address: `http://${options.host}:${port}` }, `${options.name} listening`);

  return {
    port,
    inProcess: { routes: allRoutes, interceptors: [refuseWhenClosing, ...interceptors] },
    async close(graceMs = 8_000) {
      shuttingDown = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // GOAWAY lets clients finish their streams and open no new ones here.
      for (const session of sessions) session.close();
      const timer = setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
