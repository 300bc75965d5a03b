// The lean unary gRPC path (lean-grpc/) against stock @grpc/grpc-js in both directions:
// interceptors, response headers and trailers, deadlines, cancellation and the read
// limit, each proven once with grpc-js as the client of our server and once with our
// client calling a grpc-js server. Then every protocol the lean path leaves to Connect
// (Connect protocol, gRPC-Web, compressed gRPC) still answers. No database: fakes.
import http2 from "node:http2";
import path from "node:path";
import test from "ava";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { Code, ConnectError, createClient, type ConnectRouter, type HandlerContext, type Interceptor } from "@connectrpc/connect";
import {
  compressionGzip,
  connectNodeAdapter,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { createLeanGrpcTransport, installLeanUnaryPath } from "../../lean-grpc/index.js";
import { freePort } from "../helpers/process.js";
import { ROOT } from "../helpers/process.js";
import { waitFor } from "../helpers/http.js";

const BIG = 5 * 1024 * 1024; // over the 4 MiB default read limit of both ends

const definition = protoLoader.loadSync("order/v1/order.proto", { keepCase: false, defaults: true, oneofs: true, includeDirs: [path.join(ROOT, "proto")] });
const loaded = grpc.loadPackageDefinition(definition) as any;

// ---------- our server, with a fake order service ----------

const seen = { interceptorCalls: 0, handlerCalls: 0, abortReason: undefined as unknown, tag: "" };

async function sleepUntilAborted(context: HandlerContext, ms: number) {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    context.signal.addEventListener("abort", () => {
      seen.abortReason = context.signal.reason;
      clearTimeout(timer);
      resolve();
    });
  });
}

function routes(router: ConnectRouter) {
  router.service(OrderService, {
    async getOrder(request, context) {
      seen.handlerCalls++;
      seen.tag = context.requestHeader.get("x-request-tag") ?? "";
      if (request.orderId === "sleep") await sleepUntilAborted(context, 5_000);
      context.responseHeader.set("x-answer-header", "from-handler");
      context.responseTrailer.set("x-answer-trailer", "from-handler");
      return { detail: { order: { id: request.orderId === "big" ? "x".repeat(BIG) : `echo:${seen.tag}` } } };
    },
    async handlePaymentNotification(request) {
      seen.handlerCalls++;
      return { orderId: String(request.body.length) };
    },
  });
}

const serverInterceptor: Interceptor = (next) => async (request) => {
  seen.interceptorCalls++;
  const response = await next(request);
  response.header.set("x-server-interceptor", "yes");
  return response;
};

let server: http2.Http2Server;
let port: number;

test.before(async () => {
  server = http2.createServer(connectNodeAdapter({ routes, interceptors: [serverInterceptor] }));
  installLeanUnaryPath(server, routes, { interceptors: [serverInterceptor] });
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});

test.after.always(async () => {
  // Sessions still open (grpc-js keeps its channel a while) must not hold the server.
  const closed = new Promise((resolve) => server.close(resolve));
  for (const session of sessions) session.destroy();
  await closed;
});

const sessions = new Set<http2.ServerHttp2Session>();

function grpcJsClient() {
  return new loaded.order.v1.OrderService(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    "grpc.max_send_message_length": -1,
  });
}

type GrpcJsAnswer = { error: grpc.ServiceError | null; response?: any; header?: grpc.Metadata; trailer?: grpc.Metadata };

function grpcJsCall(client: any, method: string, request: object, metadata = new grpc.Metadata(), options: grpc.CallOptions = {}, onCall?: (call: grpc.ClientUnaryCall) => void) {
  return new Promise<GrpcJsAnswer>((resolve) => {
    let header: grpc.Metadata | undefined;
    const call: grpc.ClientUnaryCall = client[method](request, metadata, options, (error: grpc.ServiceError | null, response: any) => {
      // The status (with the trailer) arrives after the callback on success.
      setImmediate(() => resolve({ error, response, header, trailer: status?.metadata ?? error?.metadata }));
    });
    let status: grpc.StatusObject | undefined;
    call.on("metadata", (m) => (header = m));
    call.on("status", (s) => (status = s));
    onCall?.(call);
  });
}

test.serial("grpc-js → lean server: server interceptors run, request and response headers and trailers travel", async (t) => {
  const client = grpcJsClient();
  t.teardown(() => client.close());
  const before = seen.interceptorCalls;
  const metadata = new grpc.Metadata();
  metadata.set("x-request-tag", "t-1");
  const answer = await grpcJsCall(client, "GetOrder", { storeId: "s", orderId: "headers" }, metadata);
  t.is(answer.error, null);
  t.is(answer.response.detail.order.id, "echo:t-1", "the handler read the request header");
  t.is(seen.interceptorCalls, before + 1, "the interceptor ran on the lean path");
  t.deepEqual(answer.header?.get("x-answer-header"), ["from-handler"]);
  t.deepEqual(answer.header?.get("x-server-interceptor"), ["yes"]);
  t.deepEqual(answer.trailer?.get("x-answer-trailer"), ["from-handler"]);
});

test.serial("grpc-js → lean server: a deadline stops the handler and answers DEADLINE_EXCEEDED", async (t) => {
  const client = grpcJsClient();
  t.teardown(() => client.close());
  seen.abortReason = undefined;
  const answer = await grpcJsCall(client, "GetOrder", { storeId: "s", orderId: "sleep" }, undefined, { deadline: Date.now() + 300 });
  t.is(answer.error?.code, grpc.status.DEADLINE_EXCEEDED);
  await waitFor(() => seen.abortReason !== undefined, 3_000);
  t.is(ConnectError.from(seen.abortReason).code, Code.DeadlineExceeded, "the handler's signal was aborted");
});

test.serial("grpc-js → lean server: cancelling the call aborts the handler's signal", async (t) => {
  const client = grpcJsClient();
  t.teardown(() => client.close());
  seen.abortReason = undefined;
  const answer = await grpcJsCall(client, "GetOrder", { storeId: "s", orderId: "sleep" }, undefined, {}, (call) => setTimeout(() => call.cancel(), 200));
  t.is(answer.error?.code, grpc.status.CANCELLED);
  await waitFor(() => seen.abortReason !== undefined, 3_000);
  t.is(ConnectError.from(seen.abortReason).code, Code.Canceled);
});

test.serial("grpc-js → lean server: a request over the read limit is RESOURCE_EXHAUSTED and never reaches the handler", async (t) => {
  const client = grpcJsClient();
  t.teardown(() => client.close());
  const before = seen.handlerCalls;
  const answer = await grpcJsCall(client, "HandlePaymentNotification", { provider: "midtrans", body: Buffer.alloc(BIG, 1) });
  t.is(answer.error?.code, grpc.status.RESOURCE_EXHAUSTED, answer.error?.details);
  t.is(seen.handlerCalls, before);
  // Under the limit, the same call goes through.
  const small = await grpcJsCall(client, "HandlePaymentNotification", { provider: "midtrans", body: Buffer.alloc(1024, 1) });
  t.is(small.response?.orderId, "1024");
});

// ---------- our client, against a stock grpc-js server ----------

const remote = { cancelled: 0, tag: "" };
let grpcServer: grpc.Server;
let grpcPort: number;

test.before(async () => {
  grpcServer = new grpc.Server({ "grpc.max_send_message_length": -1 });
  grpcServer.addService(loaded.order.v1.OrderService.service, {
    GetOrder(call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) {
      remote.tag = String(call.metadata.get("x-request-tag")[0] ?? "");
      const header = new grpc.Metadata();
      header.set("x-answer-header", "from-grpc-js");
      call.sendMetadata(header);
      const trailer = new grpc.Metadata();
      trailer.set("x-answer-trailer", "from-grpc-js");
      if (call.request.orderId === "sleep") {
        const timer = setTimeout(() => callback(null, { detail: { order: { id: "late" } } }, trailer), 5_000);
        call.on("cancelled", () => {
          remote.cancelled++;
          clearTimeout(timer);
        });
        return;
      }
      const id = call.request.orderId === "big" ? "x".repeat(BIG) : `echo:${remote.tag}`;
      callback(null, { detail: { order: { id } } }, trailer);
    },
  });
  grpcPort = await freePort();
  await new Promise<void>((resolve, reject) =>
    grpcServer.bindAsync(`127.0.0.1:${grpcPort}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
  );
});

test.after.always(() => grpcServer?.forceShutdown());

function leanClient(interceptors: Interceptor[] = []) {
  const baseUrl = `http://127.0.0.1:${grpcPort}`;
  const sessionManager = new Http2SessionManager(baseUrl);
  const transport = createLeanGrpcTransport({ baseUrl, interceptors, fallback: () => createGrpcTransport({ baseUrl, sessionManager }) });
  return {
    client: createClient(OrderService, transport),
    close: () => {
      transport.close();
      sessionManager.abort();
    },
  };
}

test.serial("lean client → grpc-js server: client interceptors run and see response headers and trailers", async (t) => {
  const observed: { header?: string | null; trailer?: string | null } = {};
  const tagging: Interceptor = (next) => async (request) => {
    request.header.set("x-request-tag", "lean-1");
    const response = await next(request);
    observed.header = response.header.get("x-answer-header");
    observed.trailer = response.trailer.get("x-answer-trailer");
    return response;
  };
  const { client, close } = leanClient([tagging]);
  t.teardown(close);
  const response = await client.getOrder({ storeId: "s", orderId: "headers" });
  t.is(response.detail?.order?.id, "echo:lean-1");
  t.is(remote.tag, "lean-1", "the grpc-js server read the header the interceptor set");
  t.deepEqual(observed, { header: "from-grpc-js", trailer: "from-grpc-js" });
});

test.serial("lean client → grpc-js server: a deadline is sent as grpc-timeout and ends the call on both sides", async (t) => {
  const { client, close } = leanClient();
  t.teardown(close);
  const before = remote.cancelled;
  const error = await t.throwsAsync(client.getOrder({ storeId: "s", orderId: "sleep" }, { timeoutMs: 300 }));
  t.is(ConnectError.from(error).code, Code.DeadlineExceeded);
  await waitFor(() => remote.cancelled > before, 3_000);
  t.pass("the grpc-js server saw the call end");
});

test.serial("lean client → grpc-js server: aborting the signal cancels the call on the server", async (t) => {
  const { client, close } = leanClient();
  t.teardown(close);
  const before = remote.cancelled;
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const error = await t.throwsAsync(client.getOrder({ storeId: "s", orderId: "sleep" }, { signal: controller.signal }));
  t.is(ConnectError.from(error).code, Code.Canceled);
  await waitFor(() => remote.cancelled > before, 3_000);
  t.pass("the grpc-js server saw the cancellation");
});

test.serial("lean client → grpc-js server: a response over the read limit is RESOURCE_EXHAUSTED", async (t) => {
  const { client, close } = leanClient();
  t.teardown(close);
  const error = await t.throwsAsync(client.getOrder({ storeId: "s", orderId: "big" }));
  t.is(ConnectError.from(error).code, Code.ResourceExhausted);
  t.is((await client.getOrder({ storeId: "s", orderId: "small" })).detail?.order?.id, "echo:");
});

// ---------- what the lean path leaves to Connect ----------

// Each gets a session manager of its own, aborted after its test, so no connection
// outlives the file.
const fallbacks: Record<string, (baseUrl: string, sessionManager: Http2SessionManager) => Parameters<typeof createClient>[1]> = {
  "Connect protocol (binary)": (baseUrl, sessionManager) => createConnectTransport({ baseUrl, httpVersion: "2", sessionManager }),
  "Connect protocol (JSON)": (baseUrl, sessionManager) => createConnectTransport({ baseUrl, httpVersion: "2", sessionManager, useBinaryFormat: false }),
  "gRPC-Web": (baseUrl, sessionManager) => createGrpcWebTransport({ baseUrl, httpVersion: "2", sessionManager }),
  "gRPC with gzip": (baseUrl, sessionManager) => createGrpcTransport({ baseUrl, sessionManager, sendCompression: compressionGzip, compressMinBytes: 0 }),
  "gRPC with JSON": (baseUrl, sessionManager) => createGrpcTransport({ baseUrl, sessionManager, useBinaryFormat: false }),
};

for (const [name, make] of Object.entries(fallbacks)) {
  test.serial(`${name} reaches the same handler through Connect, interceptors included`, async (t) => {
    const baseUrl = `http://127.0.0.1:${port}`;
    const sessionManager = new Http2SessionManager(baseUrl);
    t.teardown(() => sessionManager.abort());
    const client = createClient(OrderService, make(baseUrl, sessionManager));
    const before = seen.interceptorCalls;
    let header = null as string | null;
    const response = await client.getOrder(
      { storeId: "s", orderId: "headers" },
      { headers: { "x-request-tag": name }, onHeader: (h) => (header = h.get("x-answer-header")) },
    );
    t.is(response.detail?.order?.id, `echo:${name}`);
    t.is(seen.interceptorCalls, before + 1);
    t.is(header, "from-handler");
  });
}
