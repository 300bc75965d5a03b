// Two gateway processes in front of one catalog service share one rate limit per store
// (docs/api.md#rate-limit: one limit per store, however many gateways run).
import { OPERATOR } from "../../common/actor.js";
import test from "ava";
import { Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { createRpcChannel, type RpcChannel } from "../../platform/rpc-client.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { api, type ApiResponse, catalogReady } from "../helpers/http.js";
import { freePort, spawnEntry, type Spawned } from "../helpers/process.js";
import { TEST_INTERNAL_TOKEN } from "../helpers/internal-token.js";

const RATE = 6;
const children: Spawned[] = [];
let db: TestDatabase | undefined;
let admin: RpcChannel | undefined;
let gateways: string[] = [];

test.before(async () => {
  db = await createTestDatabase();
  const catalogAddr = `http://127.0.0.1:${await freePort()}`;
  // The other internal services' addresses: free ports of our own, never a shared default.
  const others = { ORDER_ADDR: `http://127.0.0.1:${await freePort()}`, WEBHOOK_ADDR: `http://127.0.0.1:${await freePort()}` };
  const catalog = spawnEntry("services/catalog/main.ts", { DATABASE_URL: db.url, CATALOG_ADDR: catalogAddr, ...others });
  children.push(catalog);
  await catalog.waitFor(/catalog listening/);
  const ports = [await freePort(), await freePort()];
  const started = ports.map((port) => {
    const gateway = spawnEntry("gateway/main.ts", {
      DATABASE_URL: db!.url,
      PORT: String(port),
      CATALOG_ADDR: catalogAddr,
      RATE_LIMIT_PER_MINUTE: String(RATE),
      ...others,
    });
    children.push(gateway);
    return gateway.waitFor(/gateway listening/);
  });
  await Promise.all(started);
  gateways = ports.map((port) => `http://127.0.0.1:${port}`);
  // Both gateways have reached the catalog service and the database before any request counts.
  for (const gateway of gateways) await catalogReady(gateway);
  admin = createRpcChannel(catalogAddr, { actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN });
});

test.after.always(async () => {
  admin?.close();
  await Promise.all(children.map((child) => child.stop("SIGKILL")));
  await db?.drop();
});

async function newKey(): Promise<string> {
  const stores = admin!.client(StoreService);
  const { store } = await stores.createStore({ name: "Busy Store", plan: Plan.GROWTH });
  const { secret } = await stores.createApiKey({ storeId: store!.id, name: "k" });
  return secret;
}

function check(t: import("ava").ExecutionContext, responses: { gateway: number; response: ApiResponse }[]) {
  const allowed = responses.filter(({ response }) => response.status === 200);
  const limited = responses.filter(({ response }) => response.status === 429);
  t.log(
    `200s: ${allowed.length} (gateway A ${allowed.filter((r) => r.gateway === 0).length}, B ${allowed.filter((r) => r.gateway === 1).length}); 429s: ${limited.length}`,
  );
  t.true(allowed.length >= RATE, `at least ${RATE} requests pass, got ${allowed.length}`);
  t.true(allowed.length <= RATE + 1, `at most ${RATE + 1} pass across both gateways, got ${allowed.length}`);
  t.is(allowed.length + limited.length, responses.length, "every other answer is 429");
  for (const { response } of limited) {
    t.deepEqual(Object.keys(response.body ?? {}).sort(), ["error", "success"]);
    t.is(response.body.success, false);
    t.is(response.body.error.code, "RATE_LIMITED");
    const retryAfter = response.headers.get("retry-after") ?? "";
    t.regex(retryAfter, /^[1-9][0-9]*$/);
    t.true(Number(retryAfter) <= 60 / RATE, `Retry-After ${retryAfter} is at most one refill interval`);
    t.is(response.headers.get("ratelimit-policy"), `"store";q=${RATE};w=60`);
  }
  for (const { response } of allowed) {
    t.true(response.body.success);
    t.is(response.headers.get("ratelimit-policy"), `"store";q=${RATE};w=60`);
  }
  // Both gateways turned requests away: neither kept a private allowance.
  t.true(limited.some((r) => r.gateway === 0) && limited.some((r) => r.gateway === 1));
}

test.serial("20 requests in turn across two gateways: one store, one limit", async (t) => {
  const key = await newKey();
  const responses = [];
  for (let n = 0; n < 20; n++) {
    const gateway = n % 2;
    responses.push({ gateway, response: await api(gateways[gateway]!, "/v1/products", { key }) });
  }
  check(t, responses);
  // The first RATE requests are the ones that passed.
  t.true(responses.slice(0, RATE).every(({ response }) => response.status === 200));
});

test.serial("20 requests at once across two gateways: still one limit", async (t) => {
  const key = await newKey();
  const responses = await Promise.all(
    Array.from({ length: 20 }, async (_, n) => {
      const gateway = n % 2;
      return { gateway, response: await api(gateways[gateway]!, "/v1/products", { key }) };
    }),
  );
  check(t, responses);
});
