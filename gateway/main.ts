// The gateway on its own: `npm run start:gateway`.
import { createCatalogChanges } from "../platform/catalog-changes.js";
import { connectDb, openDatabaseServer } from "../platform/db.js";
import { loadConfigOrExit, onShutdown, reportProcessFailures } from "../platform/lifecycle.js";
import { createLogger } from "../platform/logger.js";
import { startTracing, stopTracing } from "../platform/tracing.js";
import { startServiceMetrics } from "../platform/metrics.js";
import { createNatsProbe } from "./nats-probe.js";
import { createServiceClients } from "./clients.js";
import { GATEWAY_SCHEMA, startGateway } from "./service.js";

const config = loadConfigOrExit("gateway");
const logger = createLogger("gateway", config.LOG_LEVEL);
reportProcessFailures(logger);
// OTEL_EXPORTER_OTLP_ENDPOINT set: spans of this role go there (before anything makes one).
startTracing(config, { logger });
const database = await openDatabaseServer(config, logger);
const sql = connectDb(database.url, { schema: GATEWAY_SCHEMA, role: "gateway", asyncCommit: true, max: config.DATABASE_POOL_SIZE });
const clients = createServiceClients({ catalog: config.CATALOG_ADDR, order: config.ORDER_ADDR, webhook: config.WEBHOOK_ADDR }, undefined, {}, logger, config.INTERNAL_TOKEN, config.RPC_TRANSPORT);
const nats = config.NATS_URL ? createNatsProbe(config.NATS_URL) : undefined;
// Alone, the gateway hears the catalog only over NATS: without it, no page cache.
const catalogChanges = createCatalogChanges(config, logger);
const gateway = await startGateway({
  readinessChecks: nats ? { nats: () => nats.check() } : {},
  sql,
  clients,
  logger,
  host: config.HOST,
  port: config.PORT,
  ratePerMinute: config.RATE_LIMIT_PER_MINUTE,
  authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
  paymentLinkOrdersPerMinute: config.PAYMENT_LINK_ORDERS_PER_MINUTE,
  trustProxy: config.TRUST_PROXY,
  paymentGateway: config.PAYMENT_GATEWAY,
  midtransServerKey: config.MIDTRANS_SERVER_KEY,
  publicBaseUrl: config.PUBLIC_BASE_URL,
  catalogChanges,
});
// Off the public port and address: METRICS_PORT (else PORT + 1000) on METRICS_HOST.
const metrics = await startServiceMetrics(config.PORT, { host: config.METRICS_HOST, port: config.METRICS_PORT }, logger);

onShutdown(logger, async () => {
  await metrics.close();
  await gateway.close();
  await nats?.close();
  await catalogChanges?.close();
  clients.close();
  await sql.end({ timeout: 5 });
  await database.close();
  await stopTracing();
});
