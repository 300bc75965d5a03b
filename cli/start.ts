// `npm start`: every service and the gateway in one process, on embedded PostgreSQL
// and the in-process bus unless DATABASE_URL / NATS_URL say otherwise.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { createServiceClients } from "../gateway/clients.js";
import { GATEWAY_SCHEMA, startGateway } from "../gateway/service.js";
import { CATALOG_SCHEMA, startCatalogService } from "../services/catalog/service.js";
import { ORDER_SCHEMA, startOrderService } from "../services/order/service.js";
import { startWebhookService, WEBHOOK_SCHEMA } from "../services/webhook/service.js";
import { createEventBus } from "../services/lib/bus.js";
import { listenAddress, loadConfig } from "../services/lib/config.js";
import { connectDb, openDatabaseServer } from "../services/lib/db.js";
import { onShutdown, reportProcessFailures } from "../services/lib/lifecycle.js";
import { createLogger } from "../services/lib/logger.js";
import { seedDemoStore, type DemoStore } from "./seed.js";
import { createNatsProbe } from "../services/lib/nats-probe.js";

const startedAt = Date.now();
const config = loadConfig();
const logger = createLogger("start", config.LOG_LEVEL);
reportProcessFailures(logger);
const database = await openDatabaseServer(config, logger);

const catalogSql = connectDb(database.url, { schema: CATALOG_SCHEMA });
const catalog = await startCatalogService({
  sql: catalogSql,
  logger: createLogger("catalog", config.LOG_LEVEL),
  ...listenAddress(config.CATALOG_ADDR),
});

// One bus for both ends: NATS JetStream when NATS_URL is set, else in this process.
const bus = await createEventBus(config, { stream: config.EVENTS_STREAM, consumer: config.EVENTS_CONSUMER }, logger);

const webhookSql = connectDb(database.url, { schema: WEBHOOK_SCHEMA });
const webhook = await startWebhookService({
  sql: webhookSql,
  logger: createLogger("webhook", config.LOG_LEVEL),
  config,
  bus,
  ...listenAddress(config.WEBHOOK_ADDR),
});

const orderSql = connectDb(database.url, { schema: ORDER_SCHEMA });
const order = await startOrderService({
  sql: orderSql,
  logger: createLogger("order", config.LOG_LEVEL),
  config,
  bus,
  ...listenAddress(config.ORDER_ADDR),
});

const gatewaySql = connectDb(database.url, { schema: GATEWAY_SCHEMA, asyncCommit: true });
const clients = createServiceClients({ catalog: config.CATALOG_ADDR, order: config.ORDER_ADDR, webhook: config.WEBHOOK_ADDR });
const nats = config.NATS_URL ? createNatsProbe(config.NATS_URL) : undefined;
const gateway = await startGateway({
  readinessChecks: nats ? { nats: nats.check } : {},
  sql: gatewaySql,
  clients,
  logger: createLogger("gateway", config.LOG_LEVEL),
  host: config.HOST,
  port: config.PORT,
  ratePerMinute: config.RATE_LIMIT_PER_MINUTE,
  authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
  midtransServerKey: config.MIDTRANS_SERVER_KEY,
});

const demo = await ensureDemoStore();

onShutdown(logger, async () => {
  await gateway.close();
  await nats?.close();
  clients.close();
  await order.close();
  await webhook.close();
  await bus.close();
  await catalog.close();
  await Promise.all(
    [gatewaySql, orderSql, webhookSql, catalogSql].map((sql) => sql.end({ timeout: 5 })),
  );
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
    try {
      await clients.store.authenticateApiKey({ secret: saved.key });
      return saved;
    } catch (error) {
      if (!(error instanceof ConnectError && error.code === Code.Unauthenticated)) throw error;
    }
  }
  const created = await seedDemoStore(clients);
  await mkdir(config.DATA_DIR, { recursive: true });
  await writeFile(file, JSON.stringify(created, null, 2) + "\n", { mode: 0o600 });
  logger.info({ storeId: created.store_id }, "demo store seeded");
  return created;
}
