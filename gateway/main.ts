// The gateway on its own: `npm run start:gateway`.
import { createCatalogChanges } from "../services/lib/catalog-changes.js";
import { connectDb, openDatabaseServer } from "../services/lib/db.js";
import { loadConfigOrExit, onShutdown, reportProcessFailures } from "../services/lib/lifecycle.js";
import { createLogger } from "../services/lib/logger.js";
import { createNatsProbe } from "../services/lib/nats-probe.js";
import { createServiceClients } from "./clients.js";
import { GATEWAY_SCHEMA, startGateway } from "./service.js";

const config = loadConfigOrExit("gateway");
const logger = createLogger("gateway", config.LOG_LEVEL);
reportProcessFailures(logger);
const database = await openDatabaseServer(config, logger);
const sql = connectDb(database.url, { schema: GATEWAY_SCHEMA, asyncCommit: true });
const clients = createServiceClients({ catalog: config.CATALOG_ADDR, order: config.ORDER_ADDR, webhook: config.WEBHOOK_ADDR });
const nats = config.NATS_URL ? createNatsProbe(config.NATS_URL) : undefined;
// Alone, the gateway hears the catalog only over NATS: without it, no page cache.
const catalogChanges = createCatalogChanges(config, logger);
const gateway = await startGateway({
  readinessChecks: nats ? { nats: nats.check } : {},
  sql,
  clients,
  logger,
  host: config.HOST,
  port: config.PORT,
  ratePerMinute: config.RATE_LIMIT_PER_MINUTE,
  authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
  paymentGateway: config.PAYMENT_GATEWAY,
  midtransServerKey: config.MIDTRANS_SERVER_KEY,
  publicBaseUrl: config.PUBLIC_BASE_URL,
  catalogChanges,
});

onShutdown(logger, async () => {
  await gateway.close();
  await nats?.close();
  await catalogChanges?.close();
  clients.close();
  await sql.end({ timeout: 5 });
  await database.close();
});
