// `npm start` calls its services in process (createInProcessChannel over
// RpcServer.inProcess) instead of over loopback gRPC. A caller must not be able to
// tell: every check here runs against the same server through both channels and
// expects the same answer — deadlines (the channel's and a call's own, with the
// handler's signal aborted), client and server interceptors, an outage as UNAVAILABLE
// (503 at the gateway), the read limit, health, and a closing server refusing calls.
// No database: fake handlers.
import test from "ava";
import { waitFor } from "../helpers/http.js";
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { pino } from "pino";
import { HealthCheckResponse_ServingStatus as ServingStatus, Health } from "../../gen/grpc/health/v1/health_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { fromConnectError } from "../../gateway/errors.js";
import { createServiceClients } from "../../gateway/clients.js";
import { rpcCalls } from "../../platform/metrics.js";
import { createInProcessChannel, createRpcChannel, type RpcChannel, type RpcChannelOptions } from "../../platform/rpc-client.js";
import { startRpcServer, type RpcServer } from "../../platform/rpc-server.js";

const silent = pino({ level: "silent" });
let server: RpcServer;
/** Whether the handler of each call (by order id) saw its signal aborted, and why. */
const aborted = new Map<string, Code>();

function routes(router: ConnectRouter) {
  router.service(OrderService, {
    async getOrder(request, context) {
      const [kind, id = ""] = request.orderId.split(":");
      switch (kind) {
        case "wait":
          // A handler that listens to its signal, as a database query does.
          await new Promise<void>((resolve) => {
            context.signal.addEventListener("abort", () => {
              aborted.set(id, ConnectError.from(context.signal.reason).code);
              resolve();
            });
          });
          throw ConnectError.from(context.signal.reason);
        case "deaf":
          // One that does not: the caller's deadline must still hold.
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          return {};
        case "outage":
          throw Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { code: "ECONNREFUSED" });
        case "huge":
          return { detail: { order: { id: "x".repeat(5 * 1024 * 1024) } } };
        default:
          return { detail: { order: { id: request.orderId } } };
      }
    },
  });
}

const start = () =>
  startRpcServer({ name: "test", host: "127.0.0.1", port: 0, logger: silent, routes, services: [OrderService.typeName], ready: async () => {} });

test.before(async () => {
  server = await start();
});

test.after.always(async () => {
  await server?.close(100);
});

const channels: Record<string, (target: RpcServer, options?: RpcChannelOptions) => RpcChannel> = {
  gRPC: (target, options) => createRpcChannel(`http://127.0.0.1:${target.port}`, options),
  "in process": (target, options) => createInProcessChannel(target.inProcess, options),
};

async function failure(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call succeeded");
}

/** rpc_calls_total for getOrder on one side and code. */
async function count(side: "client" | "server", code: string): Promise<number> {
  const { values } = await rpcCalls.get();
  return values.find((v) => v.labels.side === side && v.labels.method === "GetOrder" && v.labels.code === code)?.value ?? 0;
}

let next = 0;
const unique = () => String(++next);

for (const [name, open] of Object.entries(channels)) {
  test.serial(`${name}: the channel's deadline ends the call with DEADLINE_EXCEEDED and aborts the handler`, async (t) => {
    const channel = open(server, { timeoutMs: 150 });
    t.teardown(() => channel.close());
    const id = unique();
    const started = performance.now();
    const error = await failure(channel.client(OrderService).getOrder({ storeId: "s", orderId: `wait:${id}` }));
    const ms = performance.now() - started;
    t.is(error.code, Code.DeadlineExceeded, error.message);
    t.true(ms >= 140 && ms < 1_000, `failed after ${Math.round(ms)} ms`);
    await waitFor(async () => aborted.has(id), 2_000, 10).catch(() => {});
    // In process the deadline itself aborts the handler. Over gRPC the server's own timer
    // (from grpc-timeout) and the client's cancel at its deadline race on a loaded
    // machine: either way the handler is aborted when the deadline passes.
    const expected = name === "gRPC" ? [Code.DeadlineExceeded, Code.Canceled] : [Code.DeadlineExceeded];
    t.true(expected.includes(aborted.get(id)!), `the handler's signal carried the deadline (got ${Code[aborted.get(id)!]})`);
    t.is(fromConnectError(error).status, 503);
  });

  test.serial(`${name}: a call's own timeout wins over the channel's, even against a handler that ignores it`, async (t) => {
    const channel = open(server, { timeoutMs: 5_000 });
    t.teardown(() => channel.close());
    const started = performance.now();
    const error = await failure(channel.client(OrderService).getOrder({ storeId: "s", orderId: "deaf" }, { timeoutMs: 100 }));
    const ms = performance.now() - started;
    t.is(error.code, Code.DeadlineExceeded, error.message);
    t.true(ms < 1_000, `failed after ${Math.round(ms)} ms`);
  });

  test.serial(`${name}: a handler's outage is UNAVAILABLE without the driver's text, and 503 at the gateway`, async (t) => {
    const channel = open(server);
    t.teardown(() => channel.close());
    const error = await failure(channel.client(OrderService).getOrder({ storeId: "s", orderId: "outage" }));
    t.is(error.code, Code.Unavailable);
    t.notRegex(error.rawMessage, /ECONNREFUSED|10\.0\.0\.5/);
    const answer = fromConnectError(error);
    t.is(answer.status, 503);
    t.is(answer.code, "SERVICE_UNAVAILABLE");
  });

  test.serial(`${name}: client interceptors run around the call, and both sides count it in rpc_calls_total`, async (t) => {
    const seen: string[] = [];
    const spy: Interceptor = (next) => async (request) => {
      seen.push(`${request.service.typeName}/${request.method.name}`);
      const response = await next(request);
      seen.push(response.stream ? "stream" : (response.message as { detail?: { order?: { id?: string } } }).detail?.order?.id ?? "");
      return response;
    };
    const channel = open(server, { interceptors: [spy] });
    t.teardown(() => channel.close());
    const [clientOk, serverOk, clientUnavailable, serverUnavailable] = [
      await count("client", "ok"),
      await count("server", "ok"),
      await count("client", "Unavailable"),
      await count("server", "Unavailable"),
    ];
    const answer = await channel.client(OrderService).getOrder({ storeId: "s", orderId: "o-1" });
    t.is(answer.detail?.order?.id, "o-1");
    t.deepEqual(seen, ["order.v1.OrderService/GetOrder", "o-1"]);
    await failure(channel.client(OrderService).getOrder({ storeId: "s", orderId: "outage" }));
    t.is(await count("client", "ok"), clientOk + 1);
    t.is(await count("server", "ok"), serverOk + 1);
    t.is(await count("client", "Unavailable"), clientUnavailable + 1);
    t.is(await count("server", "Unavailable"), serverUnavailable + 1, "the server side counts the code after its error mapping");
  });

  test.serial(`${name}: an answer over 4 MiB is RESOURCE_EXHAUSTED`, async (t) => {
    const channel = open(server);
    t.teardown(() => channel.close());
    const error = await failure(channel.client(OrderService).getOrder({ storeId: "s", orderId: "huge" }));
    t.is(error.code, Code.ResourceExhausted, error.message);
  });

  test.serial(`${name}: grpc.health.v1 answers for the service`, async (t) => {
    const channel = open(server);
    t.teardown(() => channel.close());
    const health = channel.client(Health);
    t.is((await health.check({ service: OrderService.typeName })).status, ServingStatus.SERVING);
    t.is((await failure(health.check({ service: "nope.v1.Nope" }))).code, Code.NotFound);
  });

  test.serial(`${name}: once the server is closing, a new call is UNAVAILABLE (503 at the gateway)`, async (t) => {
    const closing = await start();
    const channel = open(closing, { timeoutMs: 2_000 });
    t.teardown(() => channel.close());
    t.is((await channel.client(OrderService).getOrder({ storeId: "s", orderId: "before" })).detail?.order?.id, "before");
    await closing.close(100);
    const error = await failure(channel.client(OrderService).getOrder({ storeId: "s", orderId: "after" }));
    t.is(error.code, Code.Unavailable, error.message);
    t.is(fromConnectError(error).status, 503);
  });
}

test.serial("createServiceClients calls a service given in process with its deadline (at least 10 s for orders), and the others over gRPC", async (t) => {
  const clients = createServiceClients({ catalog: "http://127.0.0.1:9", order: "http://127.0.0.1:9" }, 200, { order: server.inProcess });
  t.teardown(() => clients.close());
  t.is((await clients.order.getOrder({ storeId: "s", orderId: "o-2" })).detail?.order?.id, "o-2");
  // Order calls get the longer deadline: the handler that ignores its signal for 1.5 s answers.
  t.is((await clients.order.getOrder({ storeId: "s", orderId: "deaf" })).detail, undefined);
  // The catalog was not given in process, so it is dialled over gRPC: nothing listens there.
  const error = await failure(clients.health.catalog.check({}));
  t.is(fromConnectError(error).status, 503);
});
