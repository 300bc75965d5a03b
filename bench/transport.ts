// The client half of internal gRPC alone: `node --import tsx bench/transport.ts [rounds] [calls]`.
// An order service in a child process answers GetOrder with a three-item order (what
// the gateway's order read receives); this process calls it `calls` times, 50 in
// flight, with each RPC_TRANSPORT in turn and Connect's transport bare, and prints
// calls/s and this process's CPU per call. CPU per call is what the transport costs the
// caller, and moves much less than calls/s on a shared machine. See bench/README.md.
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { pino } from "pino";
import { OPERATOR } from "../common/actor.js";
import { OrderService } from "../gen/order/v1/order_pb.js";
import { createRpcChannel, type RpcChannel, type RpcTransport } from "../platform/rpc-client.js";
import { startRpcServer } from "../platform/rpc-server.js";
import { freePort, spawnProcess } from "../test/helpers/process.js";

const IN_FLIGHT = 50;
/** The two RPC_TRANSPORT values, and Connect's transport bare: one URL, no balancer, no interceptors (a floor for Connect's cost). */
type Mode = RpcTransport | "connect, bare";
const MODES: Mode[] = ["lean", "connect", "connect, bare"];

function open(mode: Mode, url: string): RpcChannel {
  if (mode !== "connect, bare") return createRpcChannel(url, { transport: mode, actor: OPERATOR, timeoutMs: 10_000 });
  const sessionManager = new Http2SessionManager(url);
  const transport = createGrpcTransport({ baseUrl: url, sessionManager, acceptCompression: [], defaultTimeoutMs: 10_000 });
  return { client: (service) => createClient(service, transport), close: () => sessionManager.abort() };
}

if (process.argv[2] === "serve") {
  const order = {
    id: "0b7f2a52-6a53-4c31-9d0c-3b0f7e0b1a01",
    storeId: "5d1c8a6e-2f0b-4c7e-8a4d-9f3e2b1c0d11",
    status: "pending",
    paymentReference: "ORD-20261128-7Q2K9X",
    amount: 152_347n,
    subtotal: 152_000n,
    currency: "IDR",
    settlementChannel: "seller_bank",
    paymentProvider: "bank_transfer",
    paymentMethod: "bank_transfer",
    buyer: { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" },
    items: [1, 2, 3].map((n) => ({ type: "product", title: `Produk ${n}`, quantity: n, unitPrice: 10_000n * BigInt(n), lineTotal: 10_000n * BigInt(n * n), productId: `5d1c8a6e-2f0b-4c7e-8a4d-9f3e2b1c0d1${n}` })),
    expiresAt: "2026-11-29T02:00:00.000Z",
    createdAt: "2026-11-28T02:00:00.000Z",
    updatedAt: "2026-11-28T02:00:00.000Z",
    checkoutUrl: "http://127.0.0.1:8080/pay/0b7f2a52-6a53-4c31-9d0c-3b0f7e0b1a01",
    requiresPayment: true,
  };
  const server = await startRpcServer({
    name: "order",
    host: "127.0.0.1",
    port: Number(process.argv[3]),
    logger: pino({ level: "silent" }),
    routes: (router) => router.service(OrderService, { getOrder: async () => ({ detail: { order } }) }),
    services: [OrderService.typeName],
    ready: async () => {},
  });
  process.stdout.write(`serving on ${server.port}\n`);
} else {
  const rounds = Number(process.argv[2] ?? 4);
  const calls = Number(process.argv[3] ?? 20_000);
  const port = await freePort();
  const server = spawnProcess(process.execPath, ["--import", "tsx", "bench/transport.ts", "serve", String(port)]);
  await server.waitFor(/serving on/);
  const results = Object.fromEntries(MODES.map((mode) => [mode, [] as { perSecond: number; cpuUs: number }[]]));
  for (let round = 0; round < rounds; round++) {
    // Each round starts with another mode, so none always runs first or last.
    const order = [...MODES.slice(round % MODES.length), ...MODES.slice(0, round % MODES.length)];
    for (const transport of order) {
      const channel = open(transport, `http://127.0.0.1:${port}`);
      const orders = channel.client(OrderService);
      // Warm the connection and the JIT first.
      for (let i = 0; i < 2_000; i++) await orders.getOrder({ storeId: "s", orderId: "o" });
      const cpu = process.cpuUsage();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next++ < calls) await orders.getOrder({ storeId: "s", orderId: "o" });
        }),
      );
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      channel.close();
      const row = { perSecond: Math.round((calls / ms) * 1000), cpuUs: Math.round((used.user + used.system) / calls) };
      results[transport]!.push(row);
      process.stdout.write(`round ${round + 1} ${transport.padEnd(13)} ${String(row.perSecond).padStart(6)} calls/s  ${row.cpuUs} µs CPU per call (client)\n`);
    }
  }
  await server.stop("SIGTERM", 5_000);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  for (const transport of MODES) {
    const rows = results[transport]!;
    process.stdout.write(
      `${transport.padEnd(13)} median ${median(rows.map((r) => r.perSecond))} calls/s, ${median(rows.map((r) => r.cpuUs))} µs CPU per call (range ${Math.min(...rows.map((r) => r.cpuUs))}–${Math.max(...rows.map((r) => r.cpuUs))})\n`,
    );
  }
}
