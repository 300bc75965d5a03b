// A call's deadline reaches PostgreSQL (query-deadline.ts): a query still running when
// the call it serves is over is cancelled, not left to run for nobody; a transaction
// cut short that way writes nothing; and queries outside any call are untouched. Real
// PostgreSQL, a real gRPC server on loopback, the services' own interceptors.
import test from "ava";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { pino } from "pino";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { connectDb, type Sql } from "../../platform/db.js";
import { createInProcessChannel, createRpcChannel } from "../../platform/rpc-client.js";
import { startRpcServer } from "../../platform/rpc-server.js";
import { createTestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/http.js";

const silent = pino({ level: "silent" });
let background: Promise<{ done: string }[]> | undefined;

async function setup(t: import("ava").ExecutionContext) {
  const db = await createTestDatabase();
  const sql = connectDb(db.url, { max: 4 });
  await sql`create table writes (note text)`;
  const routes = (router: ConnectRouter) =>
    router.service(OrderService, {
      // A slow read, as an overview's scan over a big store is.
      async countOrders() {
        await sql`select pg_sleep(30)`;
        return { count: 1n };
      },
      // Work the handler starts and leaves running, as a relay kicked by a commit is.
      async getOrder() {
        // Longer than the call's deadline below, so a cancel at that deadline would show.
        background = sql<{ done: string }[]>`select pg_sleep(2), 'done' as done`;
        return {};
      },
      // A write, then a slow statement in the same transaction.
      async cancelOrder(request) {
        await sql.begin(async (tx) => {
          await tx`insert into writes values (${request.orderId})`;
          await tx`select pg_sleep(30)`;
        });
        return {};
      },
    });
  const server = await startRpcServer({ name: "order", host: "127.0.0.1", port: 0, logger: silent, routes, services: [OrderService.typeName], ready: async () => {} });
  const channel = createRpcChannel(`http://127.0.0.1:${server.port}`, { timeoutMs: 300 });
  // npm start's roles call each other in process: the same handlers behind the same interceptors.
  const inProcess = createInProcessChannel(server.inProcess, { timeoutMs: 300 });
  t.teardown(async () => {
    channel.close();
    inProcess.close();
    await server.close(100);
    await sql.end({ timeout: 1 });
    await db.drop();
  });
  return { sql, client: channel.client(OrderService), inProcess: inProcess.client(OrderService) };
}

/** Statements of this database still running pg_sleep. */
async function sleeping(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and state = 'active' and query like '%pg_sleep(30)%' and pid <> pg_backend_pid()`;
  return row!.n;
}

test("a query still running at its call's deadline is cancelled; the caller gets DEADLINE_EXCEEDED", async (t) => {
  const { sql, client, inProcess } = await setup(t);
  for (const channel of [client, inProcess]) {
    const error = await t.throwsAsync(channel.countOrders({ storeId: "s" }));
    t.is(ConnectError.from(error).code, Code.DeadlineExceeded);
    // The 30 s sleep is gone well before it would have ended by itself (20 s leaves a loaded machine room for the cancel).
    await waitFor(async () => (await sleeping(sql)) === 0, 20_000, 50);
    t.is(await sleeping(sql), 0);
  }
});

test("a transaction cut short by its call's deadline is rolled back: its earlier write is not kept", async (t) => {
  const { sql, client } = await setup(t);
  const error = await t.throwsAsync(client.cancelOrder({ storeId: "s", orderId: "written before the sleep" }));
  t.is(ConnectError.from(error).code, Code.DeadlineExceeded);
  await waitFor(async () => (await sleeping(sql)) === 0, 20_000, 50);
  t.is((await sql<{ n: number }[]>`select count(*)::int as n from writes`)[0]!.n, 0);
});

test("a query a handler left running is not the call's: it is not cancelled when the call ends", async (t) => {
  const { client, inProcess } = await setup(t);
  for (const channel of [client, inProcess]) {
    // The call itself needs room on a loaded machine: 300 ms was missed under the whole suite.
    await channel.getOrder({ storeId: "s", orderId: "x" }, { timeoutMs: 1_500 });
    const [row] = await background!;
    t.is(row!.done, "done");
  }
});

test("a query outside any call is not cancelled by anything", async (t) => {
  const { sql } = await setup(t);
  const [row] = await sql<{ slept: string }[]>`select pg_sleep(0.5)::text as slept`;
  t.is(row!.slept, "");
});
