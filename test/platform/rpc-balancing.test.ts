// A channel to a service with several instances (platform/rpc-client.ts over
// lean-grpc/): calls go round robin over every address, a host name's addresses follow
// what the resolver says at each re-resolution, a failed lookup keeps the last ones, an
// instance that refuses connections or sends GOAWAY leaves the rotation, and only a
// call the server never saw is tried again elsewhere. Real HTTP/2 servers on loopback
// (127.0.0.1, .2 and .3 share one port, as instances behind one DNS name do) and a
// resolver the test controls; no database.
import http2 from "node:http2";
import test from "ava";
import { Code, ConnectError, type Client, type ConnectRouter } from "@connectrpc/connect";
import { pino } from "pino";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { rpcCalls } from "../../platform/metrics.js";
import { createRpcChannel, type RpcChannel, type RpcChannelOptions, type RpcTransport } from "../../platform/rpc-client.js";
import { startRpcServer, type RpcServer } from "../../platform/rpc-server.js";
import { waitFor } from "../helpers/http.js";
import { capturingLogger } from "../helpers/logs.js";
import { freePort } from "../helpers/process.js";

const silent = pino({ level: "silent" });
const IPS = ["127.0.0.1", "127.0.0.2", "127.0.0.3"] as const;

interface Instance {
  ip: string;
  server: RpcServer;
  /** Calls this instance answered. */
  served: number;
  /** Calls held until released (orderId "hold"). */
  held: (() => void)[];
}

/** An order service answering GetOrder with its own address; "hold" waits to be released. */
function routes(instance: Omit<Instance, "server">) {
  return (router: ConnectRouter) =>
    router.service(OrderService, {
      async getOrder(request) {
        instance.served++;
        if (request.orderId === "hold") await new Promise<void>((resolve) => instance.held.push(resolve));
        return { detail: { order: { id: instance.ip } } };
      },
    });
}

async function startInstance(ip: string, port: number): Promise<Instance> {
  const instance = { ip, served: 0, held: [] } as unknown as Instance;
  instance.server = await startRpcServer({ name: "order", host: ip, port, logger: silent, routes: routes(instance), services: [OrderService.typeName], ready: async () => {} });
  return instance;
}

/** One instance on each loopback address, all on the same port (a port free on all three). */
async function startInstances(ips: readonly string[] = IPS): Promise<{ port: number; instances: Instance[] }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const instances: Instance[] = [];
    try {
      for (const ip of ips) instances.push(await startInstance(ip, port));
      return { port, instances };
    } catch (error) {
      await Promise.all(instances.map((instance) => instance.server.close(0)));
      if (attempt >= 5) throw error;
    }
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
test.afterEach.always(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function channel(transport: RpcTransport, url: string, options: RpcChannelOptions = {}): RpcChannel {
  const made = createRpcChannel(url, { timeoutMs: 5_000, logger: silent, transport, ...options });
  cleanups.push(() => made.close());
  return made;
}

async function instances(ips?: readonly string[]) {
  const started = await startInstances(ips);
  cleanups.push(() => Promise.all(started.instances.map((instance) => instance.server.close(0))).then(() => {}));
  return started;
}

/** A resolver the test answers for: what `answer` holds now, and a count of lookups. */
function resolver(initial: string[] | Error) {
  const state: { answer: string[] | Error; lookups: number; asked: string[] } = { answer: initial, lookups: 0, asked: [] };
  let onLookup: (() => void) | undefined;
  return {
    state,
    lookup: async (host: string) => {
      state.lookups++;
      state.asked.push(host);
      const answer = state.answer;
      queueMicrotask(() => onLookup?.());
      if (answer instanceof Error) throw answer;
      return answer;
    },
    /** Resolves once the channel has looked up again and taken in the answer. */
    nextLookup: () =>
      new Promise<void>((resolve) => {
        onLookup = () => {
          onLookup = undefined;
          // The answer is applied right after the lookup settles; a macrotask later it is in.
          setImmediate(resolve);
        };
      }),
  };
}

async function servedBy(client: Client<typeof OrderService>, n: number): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < n; i++) answers.push((await client.getOrder({ storeId: "s", orderId: `o${i}` })).detail!.order!.id);
  return answers;
}

const tally = (answers: string[]) => answers.reduce<Record<string, number>>((counts, ip) => ({ ...counts, [ip]: (counts[ip] ?? 0) + 1 }), {});

async function clientCalls(code: string): Promise<number> {
  const metric = await rpcCalls.get();
  return metric.values
    .filter((v) => v.labels.side === "client" && v.labels.method === "GetOrder" && v.labels.code === code)
    .reduce((sum, v) => sum + v.value, 0);
}

/** A raw HTTP/2 server on `ip`: each stream it gets is counted, then handled by `onStream`. */
async function rawServer(ip: string, port: number, onStream: (stream: http2.ServerHttp2Stream) => void) {
  const server = http2.createServer();
  const seen = { streams: 0 };
  server.on("stream", (stream) => {
    seen.streams++;
    stream.on("error", () => {});
    onStream(stream);
  });
  server.on("sessionError", () => {});
  await new Promise<void>((resolve) => server.listen(port, ip, resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return seen;
}

for (const transport of ["lean", "connect"] as const) {
  test.serial(`${transport}: a host name stands for every address it resolves to: calls go round robin over them`, async (t) => {
    const { port } = await instances();
    const dns = resolver(["127.0.0.1", "127.0.0.2", "127.0.0.3"]);
    const orders = channel(transport, `http://order.internal:${port}`, { lookup: dns.lookup }).client(OrderService);
    const answers = await servedBy(orders, 9);
    t.deepEqual(tally(answers), { "127.0.0.1": 3, "127.0.0.2": 3, "127.0.0.3": 3 });
    t.deepEqual(answers.slice(0, 3), [...IPS], "each in turn");
    t.deepEqual(dns.state.asked, ["order.internal"]);
  });

  test.serial(`${transport}: re-resolution: an address added takes calls, an address removed stops taking them, and its calls under way finish`, async (t) => {
    const { port, instances: [a, b, c] } = await instances();
    const dns = resolver(["127.0.0.1", "127.0.0.2"]);
    const lines: Record<string, any>[] = [];
    const orders = channel(transport, `http://order.internal:${port}`, { lookup: dns.lookup, resolveEveryMs: 20, logger: capturingLogger(lines, { labels: true }) }).client(OrderService);
    t.deepEqual(tally(await servedBy(orders, 4)), { "127.0.0.1": 2, "127.0.0.2": 2 });

    // A call under way on .1 when .1 leaves the answer.
    const held = orders.getOrder({ storeId: "s", orderId: "hold" });
    await waitFor(() => a!.held.length === 1);
    dns.state.answer = ["127.0.0.2", "127.0.0.3"];
    await dns.nextLookup();
    t.deepEqual(tally(await servedBy(orders, 6)), { "127.0.0.2": 3, "127.0.0.3": 3 }, ".3 takes its share, .1 none");
    a!.held.shift()!();
    t.is((await held).detail?.order?.id, "127.0.0.1", "the call under way on the removed address finished there");

    // And back: .1 returns, .2 goes.
    dns.state.answer = ["127.0.0.3", "127.0.0.1"];
    await dns.nextLookup();
    const before = { a: a!.served, b: b!.served, c: c!.served };
    t.deepEqual(tally(await servedBy(orders, 4)), { "127.0.0.1": 2, "127.0.0.3": 2 });
    t.is(b!.served, before.b, ".2 saw no call after it left");

    const changes = lines.filter((line) => line.msg === "service addresses changed");
    t.true(changes.length >= 3, JSON.stringify(lines));
    t.like(changes[1], { level: "info", target: `http://order.internal:${port}`, added: ["127.0.0.3:" + port], removed: ["127.0.0.1:" + port] });
  });

  test.serial(`${transport}: a failed lookup keeps the last known addresses and logs a warning naming the service`, async (t) => {
    const { port } = await instances(["127.0.0.1", "127.0.0.2"]);
    const dns = resolver(["127.0.0.1", "127.0.0.2"]);
    const lines: Record<string, any>[] = [];
    const orders = channel(transport, `http://order.internal:${port}`, { lookup: dns.lookup, resolveEveryMs: 20, logger: capturingLogger(lines, { labels: true }) }).client(OrderService);
    t.deepEqual(tally(await servedBy(orders, 2)), { "127.0.0.1": 1, "127.0.0.2": 1 });
    dns.state.answer = Object.assign(new Error("getaddrinfo EAI_AGAIN order.internal"), { code: "EAI_AGAIN" });
    await dns.nextLookup();
    t.deepEqual(tally(await servedBy(orders, 4)), { "127.0.0.1": 2, "127.0.0.2": 2 });
    dns.state.answer = [];
    await dns.nextLookup();
    t.deepEqual(tally(await servedBy(orders, 2)), { "127.0.0.1": 1, "127.0.0.2": 1 }, "an empty answer is no answer either");
    const warning = lines.find((line) => line.msg === "could not resolve a service's host name; calls go on to the addresses it had (keeping)");
    t.like(warning, { level: "warn", target: `http://order.internal:${port}`, err: "getaddrinfo EAI_AGAIN order.internal", keeping: ["127.0.0.1", "127.0.0.2"] });
  });

  test.serial(`${transport}: a host name that does not resolve yet: UNAVAILABLE (503 at the gateway) with one lookup and one warning, and calls go through once it does`, async (t) => {
    const { port } = await instances(["127.0.0.1"]);
    const dns = resolver(Object.assign(new Error("getaddrinfo ENOTFOUND order.internal"), { code: "ENOTFOUND" }));
    const lines: Record<string, any>[] = [];
    const orders = channel(transport, `http://order.internal:${port}`, { lookup: dns.lookup, resolveEveryMs: 60_000, logger: capturingLogger(lines, { labels: true }) }).client(OrderService);
    const failures = await Promise.all(Array.from({ length: 5 }, () => orders.getOrder({ storeId: "s", orderId: "o" }).catch((e) => ConnectError.from(e))));
    t.true(failures.every((error) => error instanceof ConnectError && error.code === Code.Unavailable), failures.map((error) => (error instanceof Error ? error.message : typeof error)).join("; "));
    const again = await orders.getOrder({ storeId: "s", orderId: "o" }).catch((e) => ConnectError.from(e));
    t.is((again as ConnectError).code, Code.Unavailable);
    t.is(dns.state.lookups, 1, "calls under way share one lookup, and one just after it fails fast instead of looking up again");
    t.is(lines.filter((line) => line.level === "warn").length, 1, "one warning, not one per call");
    dns.state.answer = ["127.0.0.1"];
    // A second on, with no address known, a call looks the name up itself rather than wait for the timer.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    t.is((await orders.getOrder({ storeId: "s", orderId: "o" })).detail?.order?.id, "127.0.0.1");
    t.is(dns.state.lookups, 2);
  });

  test.serial(`${transport}: a lookup that does not answer holds a call no longer than its deadline`, async (t) => {
    const orders = channel(transport, "http://order.internal:50052", { lookup: () => new Promise<string[]>(() => {}) }).client(OrderService);
    const error = await orders.getOrder({ storeId: "s", orderId: "o" }, { timeoutMs: 200 }).catch((e) => ConnectError.from(e));
    t.is((error as ConnectError).code, Code.DeadlineExceeded);
  });

  test.serial(`${transport}: an IP-literal URL is never looked up`, async (t) => {
    const { port } = await instances(["127.0.0.1"]);
    const dns = resolver(["127.0.0.9"]);
    const orders = channel(transport, `http://127.0.0.1:${port}`, { lookup: dns.lookup, resolveEveryMs: 10 }).client(OrderService);
    t.deepEqual(await servedBy(orders, 3), ["127.0.0.1", "127.0.0.1", "127.0.0.1"]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.is(dns.state.lookups, 0);
  });

  test.serial(`${transport}: a comma list of URLs is one service: round robin over all of them`, async (t) => {
    const { port } = await instances(["127.0.0.1", "127.0.0.2"]);
    const orders = channel(transport, `http://127.0.0.1:${port}, http://127.0.0.2:${port}`).client(OrderService);
    t.deepEqual(await servedBy(orders, 4), ["127.0.0.1", "127.0.0.2", "127.0.0.1", "127.0.0.2"]);
  });

  test.serial(`${transport}: an address that refuses connections leaves the rotation; the call is retried once on another and succeeds`, async (t) => {
    const { port } = await instances(["127.0.0.2"]);
    const dead = await freePort();
    const lines: Record<string, any>[] = [];
    const orders = channel(transport, `http://127.0.0.1:${dead},http://127.0.0.2:${port}`, { logger: capturingLogger(lines, { labels: true }) }).client(OrderService);
    const okBefore = await clientCalls("ok");
    const failedBefore = await clientCalls("Unavailable");
    // The first pick is the dead one: refused, tried on .2; afterwards .2 takes every call.
    t.deepEqual(await servedBy(orders, 5), Array(5).fill("127.0.0.2"));
    t.is((await clientCalls("ok")) - okBefore, 5, "the client counts one call each, retries included");
    t.is((await clientCalls("Unavailable")) - failedBefore, 0);
    const out = lines.filter((line) => line.msg === "service address out of rotation");
    t.is(out.length, 1, JSON.stringify(lines));
    t.like(out[0], { level: "warn", address: `127.0.0.1:${dead}`, reason: "ECONNREFUSED" });
    t.is(typeof out[0]!.retryInMs, "number");
  });

  test.serial(`${transport}: an instance that comes back is tried again once its backoff has run out, and takes its share again`, async (t) => {
    const { port } = await instances(["127.0.0.2"]);
    const clock = { now: 0 };
    const lines: Record<string, any>[] = [];
    const orders = channel(transport, `http://127.0.0.1:${port},http://127.0.0.2:${port}`, { now: () => clock.now, logger: capturingLogger(lines, { labels: true }) }).client(OrderService);
    t.deepEqual(await servedBy(orders, 4), Array(4).fill("127.0.0.2"), ".1 refuses: out of rotation");
    // .1 starts (the port was free on 127.0.0.1 too: freePort checked it there).
    const back = await startInstance("127.0.0.1", port);
    cleanups.push(() => back.server.close(0));
    clock.now = 999;
    t.deepEqual(await servedBy(orders, 2), ["127.0.0.2", "127.0.0.2"], "still out until its backoff has run out");
    clock.now = 1_000;
    t.deepEqual(tally(await servedBy(orders, 4)), { "127.0.0.1": 2, "127.0.0.2": 2 });
    t.like(lines.find((line) => line.msg === "service address back in rotation"), { level: "info", address: `127.0.0.1:${port}` });
  });

  test.serial(`${transport}: an instance shutting down (GOAWAY): its calls under way finish, the others take every new call, none fails`, async (t) => {
    const { port, instances: [a, b] } = await instances(["127.0.0.1", "127.0.0.2"]);
    const orders = channel(transport, `http://127.0.0.1:${port},http://127.0.0.2:${port}`).client(OrderService);
    t.deepEqual(tally(await servedBy(orders, 4)), { "127.0.0.1": 2, "127.0.0.2": 2 });
    const held = orders.getOrder({ storeId: "s", orderId: "hold" });
    await waitFor(() => a!.held.length === 1);
    const closing = a!.server.close(5_000);
    // Calls keep coming while .1 drains and after it has gone: each one answered.
    const during = await Promise.all(Array.from({ length: 20 }, (_, i) => orders.getOrder({ storeId: "s", orderId: `d${i}` })));
    t.true(during.every((answer) => answer.detail?.order?.id === "127.0.0.2"));
    a!.held.shift()!();
    t.is((await held).detail?.order?.id, "127.0.0.1", "the call under way finished on the instance that was stopping");
    await closing;
    t.deepEqual(await servedBy(orders, 4), Array(4).fill("127.0.0.2"));
    t.true(b!.served >= 26);
  });

  test.serial(`${transport}: a stream the server refused unprocessed (REFUSED_STREAM) is retried on another address`, async (t) => {
    const { port } = await instances(["127.0.0.2"]);
    const refusing = await rawServer("127.0.0.1", port, (stream) => stream.close(http2.constants.NGHTTP2_REFUSED_STREAM));
    const orders = channel(transport, `http://127.0.0.1:${port},http://127.0.0.2:${port}`).client(OrderService);
    t.is((await orders.getOrder({ storeId: "s", orderId: "o" })).detail?.order?.id, "127.0.0.2");
    t.is(refusing.streams, 1, "it went to the refusing server first");
  });

  test.serial(`${transport}: a call that may have reached the server is not retried: it fails UNAVAILABLE, and the other instance never sees it`, async (t) => {
    const { port, instances: [b] } = await instances(["127.0.0.2"]);
    // Takes the request, then the connection drops with no answer: was it done? Only the caller can know.
    const dropping = await rawServer("127.0.0.1", port, (stream) => stream.session?.destroy());
    const orders = channel(transport, `http://127.0.0.1:${port},http://127.0.0.2:${port}`).client(OrderService);
    const error = await orders.getOrder({ storeId: "s", orderId: "write" }).catch((e) => ConnectError.from(e));
    t.true(error instanceof ConnectError && error.code === Code.Unavailable, error instanceof Error ? error.message : typeof error);
    t.is(dropping.streams, 1);
    t.is(b!.served, 0, "not retried on the other instance");
  });
}
