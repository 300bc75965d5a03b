// `npm start`: every service and the gateway in one process, on embedded PostgreSQL
// and the in-process bus unless DATABASE_URL / NATS_URL say otherwise.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { openDatabaseServer } from "../platform/db.js";
import { loadConfigOrExit, onShutdown, reportProcessFailures } from "../platform/lifecycle.js";
import { createLogger } from "../platform/logger.js";
import { OPERATOR } from "../common/actor.js";
import { inviteUrl } from "../common/dashboard-links.js";
import { gatewayUrl, keepGatewayUrl, loopbackHost } from "../platform/gateway-address.js";
import { actingAs } from "../platform/acting-as.js";
import { keepInternalToken } from "../platform/rpc-auth.js";
import { seedDemoStore, type DemoStore } from "./seed.js";
import { startAll } from "./start-all.js";

const DEMO_MEMBER_EMAIL = "demo@example.com";
const startedAt = Date.now();
const given = loadConfigOrExit("start");
const logger = createLogger("start", given.LOG_LEVEL);
reportProcessFailures(logger);
const database = await openDatabaseServer(given, logger);
// INTERNAL_TOKEN as set, else the one kept in DATA_DIR (made on the first start), where
// `store-admin` finds it.
const config = { ...given, INTERNAL_TOKEN: await keepInternalToken(given.DATA_DIR, given.INTERNAL_TOKEN) };

const all = await startAll(config, database.url);
const clients = all.clients;
// Where `store-admin status` finds this gateway when run without PORT (the port it got, when PORT is 0).
await keepGatewayUrl(config.DATA_DIR, gatewayUrl({ HOST: config.HOST, PORT: all.gatewayPort }));

const demo = await ensureDemoStore();
const demoSignIn = await inviteDemoMember(demo.store_id);

onShutdown(logger, async () => {
  await all.close();
  await database.close();
});

const url = config.PUBLIC_BASE_URL;
process.stdout.write(
  [
    "",
    `Store Order API listening on ${url} (started in ${((Date.now() - startedAt) / 1000).toFixed(1)} s)`,
    `Demo store ${demo.store_id}`,
    `Demo API key: ${demo.key}`,
    `Try: curl -H "Authorization: Bearer ${demo.key}" "${url}/v1/products?limit=2"`,
    `Dashboard: sign in as ${DEMO_MEMBER_EMAIL} with this one-time link (72 h): ${demoSignIn}`,
    all.metricsPort > 0
      ? `Metrics of every role (Prometheus, not on the API's port): http://${loopbackHost(config.METRICS_HOST)}:${all.metricsPort}/metrics`
      : "Metrics: not served (the metrics port was taken; see the log, METRICS_PORT picks another)",
    "",
  ].join("\n") + "\n",
);

/**
 * The demo store is made on the first start and its key kept in DATA_DIR (a local
 * development convenience: the key is printed on every start). If that key no longer
 * works (another database, a revoked key), a new demo store is made.
 */
async function ensureDemoStore(): Promise<DemoStore> {
  const file = path.resolve(config.DATA_DIR, "demo-store.json");
  if (existsSync(file)) {
    const saved = JSON.parse(await readFile(file, "utf8")) as DemoStore;
    // Looked up by id among the store's keys, not authenticated: a start is not a use,
    // and must not move the key's "Last used" on the dashboard.
    try {
      const { apiKeys } = await clients.store.listApiKeys({ storeId: saved.store_id });
      if (apiKeys.some((key) => key.id === saved.key_id && !key.revokedAt)) return saved;
    } catch (error) {
      if (!(error instanceof ConnectError && (error.code === Code.NotFound || error.code === Code.InvalidArgument))) throw error;
    }
  }
  // The operator's doing, as with `store-admin seed` (the catalog checks who acts).
  const created = await actingAs(OPERATOR, () => seedDemoStore(clients));
  await mkdir(config.DATA_DIR, { recursive: true });
  await writeFile(file, JSON.stringify(created, null, 2) + "\n", { mode: 0o600 });
  logger.info({ storeId: created.store_id }, "demo store seeded");
  return created;
}

/**
 * A fresh one-time invitation for the demo member on every start: the link sets a
 * password and signs in (a local convenience, like the printed key).
 */
async function inviteDemoMember(storeId: string): Promise<string> {
  // The catalog audits the invitation, as the operator's.
  const invited = await actingAs(OPERATOR, () => clients.accounts.inviteMember({ storeId, email: DEMO_MEMBER_EMAIL }));
  return inviteUrl(config.PUBLIC_BASE_URL, invited.invitationToken);
}
