// The catalog service and the gateway as real processes (their own entry points). When
// the catalog dies or hangs, the gateway answers 503 SERVICE_UNAVAILABLE promptly and
// never hangs; /healthz stays up while /readyz reports the outage.
import { OPERATOR } from "../../common/actor.js";
import { createServer, type Server, type Socket } from "node:net";
import test from "ava";
import { Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { createRpcChannel } from "../../platform/rpc-client.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { api, type ApiResponse, catalogReady } from "../helpers/http.js";
import { freePort, spawnEntry, type Spawned } from "../helpers/process.js";
import { TEST_INTERNAL_TOKEN } from "../helpers/internal-token.js";

const children: Spawned[] = [];
const databases: TestDatabase[] = [];
const servers: Server[] = [];
const sockets = new Set<Socket>();

test.after.always(async () => {
  await Promise.all(children.map((child) => child.stop("SIGKILL")));
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(databases.map((db) => db.drop()));
});

/** The other internal services' addresses: free ports of our own, never a shared default. */
async function otherAddrs(): Promise<Record<string, string>> {
  return { ORDER_ADDR: `http://127.0.0.1:${await freePort()}`, WEBHOOK_ADDR: `http://127.0.0.1:${await freePort()}` };
}

function spawn(entry: string, env: Record<string, string>): Spawned {
  const child = spawnEntry(entry, env);
  children.push(child);
  return child;
}

async function timed(baseUrl: string, path: string, key?: string): Promise<ApiResponse & { ms: number }> {
  const started = performance.now();
  const response = await api(baseUrl, path, key ? { key, signal: AbortSignal.timeout(10_000) } : { signal: AbortSignal.timeout(10_000) });
  return { ...response, ms: performance.now() - started };
}

function assertUnavailable(t: import("ava").ExecutionContext, response: ApiResponse & { ms: number }) {
  t.is(response.status, 503, response.text);
  t.is(response.body?.success, false);
  t.is(response.body?.error?.code, "SERVICE_UNAVAILABLE");
  t.is(typeof response.body?.error?.message, "string");
  t.regex(response.headers.get("content-type") ?? "", /^application\/json/);
  t.regex(response.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/, "Retry-After: whole seconds");
  t.truthy(response.headers.get("x-request-id"));
  t.true(response.ms < 2_000, `answered in ${Math.round(response.ms)} ms`);
}

test.serial("a killed catalog service turns into 503 SERVICE_UNAVAILABLE within 2 s", async (t) => {
  const db = await createTestDatabase();
  databases.push(db);
  const catalogAddr = `http://127.0.0.1:${await freePort()}`;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;

  const catalog = spawn("services/catalog/main.ts", { DATABASE_URL: db.url, CATALOG_ADDR: catalogAddr, ...(await otherAddrs()) });
  await catalog.waitFor(/catalog listening/);
  const gateway = spawn("gateway/main.ts", { DATABASE_URL: db.url, PORT: String(port), CATALOG_ADDR: catalogAddr, ...(await otherAddrs()) });
  await gateway.waitFor(/gateway listening/);

  const admin = createRpcChannel(catalogAddr, { actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN });
  const stores = admin.client(StoreService);
  const { store } = await stores.createStore({ name: "Outage Store", plan: Plan.GROWTH });
  const first = await stores.createApiKey({ storeId: store!.id, name: "first" });
  // Used only after the kill, so the gateway cannot have it cached.
  const second = await stores.createApiKey({ storeId: store!.id, name: "second" });
  admin.close();

  // The gateway has reached the catalog service and its database before the first call.
  await catalogReady(baseUrl);
  const before = await api(baseUrl, "/v1/products", { key: first.secret });
  t.is(before.status, 200, before.text);
  t.deepEqual(before.body, { success: true, data: { items: [], has_more: false } });

  catalog.child.kill("SIGKILL");
  await catalog.exited;

  const after = await timed(baseUrl, "/v1/products", second.secret);
  t.log(`GET /v1/products with the catalog killed: ${after.status} in ${Math.round(after.ms)} ms`);
  assertUnavailable(t, after);

  // Asked again, on a connection the gateway already knows is gone: the same answer.
  const again = await timed(baseUrl, "/v1/products?limit=2", second.secret);
  assertUnavailable(t, again);

  const ready = await timed(baseUrl, "/readyz");
  t.is(ready.status, 503, ready.text);
  t.is(ready.body?.success, false);
  t.is(ready.body?.error?.code, "SERVICE_UNAVAILABLE");
  t.truthy(ready.headers.get("retry-after"));
  t.true(ready.ms < 2_000, `readyz answered in ${Math.round(ready.ms)} ms`);
  const failed = (ready.body?.error?.details ?? []).map((detail: { field: string }) => detail.field);
  t.true(failed.includes("catalog"), JSON.stringify(ready.body));
  t.false(failed.includes("database"), "the database is still up");

  const health = await api(baseUrl, "/healthz");
  t.is(health.status, 200);
  t.true(health.body?.success);

  t.falsy(gateway.child.exitCode, "the gateway keeps running");
  t.notRegex(gateway.output(), /"level":"fatal"/);
});

test.serial("a catalog address that accepts connections and never answers still gives 503 within 2 s", async (t) => {
  const db = await createTestDatabase();
  databases.push(db);
  // A TCP server that accepts and then says nothing: a hung service.
  const blackhole = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  servers.push(blackhole);
  await new Promise<void>((resolve) => blackhole.listen(0, "127.0.0.1", resolve));
  const address = blackhole.address();
  const catalogAddr = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;

  const gateway = spawn("gateway/main.ts", { DATABASE_URL: db.url, PORT: String(port), CATALOG_ADDR: catalogAddr, ...(await otherAddrs()) });
  await gateway.waitFor(/gateway listening/);

  const key = "sk_live_" + "a".repeat(40);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const response = await timed(baseUrl, "/v1/products", key);
    t.log(`attempt ${attempt}: ${response.status} in ${Math.round(response.ms)} ms`);
    assertUnavailable(t, response);
  }

  const ready = await timed(baseUrl, "/readyz");
  t.is(ready.status, 503, ready.text);
  t.true(ready.ms < 2_000, `readyz answered in ${Math.round(ready.ms)} ms`);
  const health = await timed(baseUrl, "/healthz");
  t.is(health.status, 200);
  t.true(health.ms < 2_000);
});
