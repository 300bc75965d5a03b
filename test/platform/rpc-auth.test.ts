// The internal token over every way a call reaches a service: the lean unary gRPC path,
// Connect's own handlers (the Connect protocol here) and in-process calls. A call
// without the token, or with another, is refused before its handler runs, whatever
// actor it states; our own channels turn that refusal into UNAVAILABLE naming
// INTERNAL_TOKEN. And where `npm start` keeps the token it makes.
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import test from "ava";
import { Code, ConnectError, createClient, type ConnectRouter } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { actorHeaders, OPERATOR } from "../../common/actor.js";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { createLogger } from "../../platform/logger.js";
import { actorOf } from "../../platform/rpc-actor.js";
import { INTERNAL_TOKEN_FILE, keepInternalToken, keptInternalToken, makeInternalToken } from "../../platform/rpc-auth.js";
import { createInProcessChannel, createRpcChannel, type RpcChannelOptions } from "../../platform/rpc-client.js";
import { startRpcServer } from "../../platform/rpc-server.js";

const logger = createLogger("test", "silent");
const TOKEN = makeInternalToken();
let handled = 0;

const routes = (router: ConnectRouter) =>
  router.service(OrderService, {
    async getOrder(request, context) {
      handled++;
      // A handler's own UNAUTHENTICATED (a bad key, a bad signature) is not the token's.
      if (request.orderId === "bad-key") throw new ConnectError("unknown or revoked key", Code.Unauthenticated);
      return { detail: { order: { id: actorOf(context).kind } } };
    },
  });

const server = await startRpcServer({
  name: "order",
  host: "127.0.0.1",
  port: 0,
  logger,
  routes,
  services: [OrderService.typeName],
  ready: async () => {},
  internalToken: TOKEN,
});
test.after.always(() => server.close(100));
const baseUrl = `http://127.0.0.1:${server.port}`;

const channels = {
  "gRPC (lean path)": (options: RpcChannelOptions) => createRpcChannel(baseUrl, options),
  "in process": (options: RpcChannelOptions) => createInProcessChannel(server.inProcess, options),
};

async function refusal(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call was not refused");
}

for (const [name, open] of Object.entries(channels)) {
  test.serial(`${name}: with the token the call reaches its handler`, async (t) => {
    const channel = open({ actor: OPERATOR, internalToken: TOKEN, role: "gateway" });
    t.teardown(() => channel.close());
    t.is((await channel.client(OrderService).getOrder({})).detail!.order!.id, "operator");
    const own = await refusal(channel.client(OrderService).getOrder({ orderId: "bad-key" }));
    t.is(own.code, Code.Unauthenticated, "a handler's own UNAUTHENTICATED passes unchanged");
    t.is(own.rawMessage, "unknown or revoked key");
  });

  test.serial(`${name}: without the token, or with another, the operator's headers reach no handler; the caller sees UNAVAILABLE naming INTERNAL_TOKEN`, async (t) => {
    const before = handled;
    const bare = open({ actor: OPERATOR, role: "gateway" });
    const wrong = open({ actor: OPERATOR, internalToken: makeInternalToken(), role: "gateway" });
    t.teardown(() => (bare.close(), wrong.close()));
    const missing = await refusal(bare.client(OrderService).getOrder({}));
    t.is(missing.code, Code.Unavailable);
    t.is(missing.rawMessage, "order.v1.OrderService asks for the internal token, and INTERNAL_TOKEN is not set for gateway");
    const differs = await refusal(wrong.client(OrderService).getOrder({}));
    t.is(differs.code, Code.Unavailable);
    t.is(differs.rawMessage, "order.v1.OrderService refused the internal token of gateway: its INTERNAL_TOKEN differs from the service's");
    t.is(handled, before, "no handler ran");
  });

  test.serial(`${name}: health checks need no token (probes send none)`, async (t) => {
    const bare = open({});
    t.teardown(() => bare.close());
    t.is((await bare.client(Health).check({ service: "" })).status, ServingStatus.SERVING);
  });
}

// Stock Connect transports, without our interceptors: what anybody on the network can send.
const stock = {
  "gRPC (lean path)": () => createGrpcTransport({ baseUrl }),
  "Connect protocol (Connect's handlers)": () => createConnectTransport({ baseUrl, httpVersion: "2" }),
};
for (const [name, transport] of Object.entries(stock)) {
  test.serial(`${name}: a stranger stating x-actor: operator is UNAUTHENTICATED; the right Bearer token is let in`, async (t) => {
    const before = handled;
    const orders = createClient(OrderService, transport());
    for (const authorization of [undefined, `Bearer ${makeInternalToken()}`, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
      const headers = { ...actorHeaders(OPERATOR), ...(authorization ? { authorization } : {}) };
      const error = await refusal(orders.getOrder({}, { headers }));
      t.is(error.code, Code.Unauthenticated, String(authorization && authorization.slice(0, 8)));
      t.regex(error.rawMessage, /INTERNAL_TOKEN/);
      t.is(error.metadata.get("www-authenticate"), 'Bearer realm="internal"');
    }
    t.is(handled, before, "no handler ran");
    // The scheme word is case-insensitive, as HTTP's.
    for (const scheme of ["Bearer", "bearer", "BEARER"]) {
      const answer = await orders.getOrder({}, { headers: { ...actorHeaders(OPERATOR), authorization: `${scheme} ${TOKEN}` } });
      t.is(answer.detail!.order!.id, "operator");
    }
  });
}

test("npm start's token: one that is set is kept and nothing is written; else one is made in DATA_DIR (0600) and found again", async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "internal-token-"));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const file = path.join(dataDir, INTERNAL_TOKEN_FILE);
  const set = makeInternalToken();
  t.is(await keepInternalToken(dataDir, set), set);
  t.is(keptInternalToken(dataDir), undefined, "a token that is set is not written down");

  const made = await keepInternalToken(dataDir, undefined);
  t.regex(made, /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url");
  t.is((await stat(file)).mode & 0o777, 0o600, "readable by its owner only");
  t.is((await readFile(file, "utf8")).trim(), made);
  t.is(keptInternalToken(dataDir), made, "store-admin finds it");
  t.is(await keepInternalToken(dataDir, undefined), made, "the next start keeps it");
  const other = await mkdtemp(path.join(os.tmpdir(), "internal-token-"));
  t.teardown(() => rm(other, { recursive: true, force: true }));
  t.not(await keepInternalToken(other, undefined), made, "random");

  await chmod(file, 0o644);
  t.is(await keepInternalToken(dataDir, undefined), made);
  t.is((await stat(file)).mode & 0o777, 0o600, "a copy with wider permissions is narrowed again");

  await writeFile(file, "short\n");
  t.is(keptInternalToken(dataDir), undefined, "a file that holds no token is no token");
  const replaced = await keepInternalToken(dataDir, undefined);
  t.not(replaced, made);
  t.is(keptInternalToken(dataDir), replaced);
});

test("the token never reaches a log: INTERNAL_TOKEN and an authorization header are redacted", (t) => {
  const lines: string[] = [];
  const log = createLogger("test", "info", { write: (line: string) => lines.push(line) });
  log.info({ INTERNAL_TOKEN: TOKEN, headers: { authorization: `Bearer ${TOKEN}` } }, "configuration");
  t.is(lines.length, 1);
  t.false(lines[0]!.includes(TOKEN), lines[0]);
  t.regex(lines[0]!, /"INTERNAL_TOKEN":"\[redacted\]"/);
});
