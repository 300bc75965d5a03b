// The catalog service on its own: `npm run start:catalog`.
import { createCatalogChanges } from "../../platform/catalog-changes.js";
import { listenAddress } from "../../platform/config.js";
import { connectDb, openDatabaseServer } from "../../platform/db.js";
import { loadConfigOrExit, onShutdown, reportProcessFailures } from "../../platform/lifecycle.js";
import { createLogger } from "../../platform/logger.js";
import { startTracing, stopTracing } from "../../platform/tracing.js";
import { createMailer } from "../../platform/mail.js";
import { startServiceMetrics } from "../../platform/metrics.js";
import { CATALOG_SCHEMA, startCatalogService } from "./service.js";

const config = loadConfigOrExit("catalog");
const logger = createLogger("catalog", config.LOG_LEVEL);
reportProcessFailures(logger);
// OTEL_EXPORTER_OTLP_ENDPOINT set: spans of this role go there (before anything makes one).
startTracing(config, { logger });
const database = await openDatabaseServer(config, logger);
const sql = connectDb(database.url, { schema: CATALOG_SCHEMA, role: "catalog", max: config.DATABASE_POOL_SIZE });
// Alone, the catalog reaches gateways only over NATS (gateways without it cache no pages).
const catalogChanges = createCatalogChanges(config, logger);
const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR, logger });
const mail = { mailer, publicBaseUrl: config.PUBLIC_BASE_URL };
const server = await startCatalogService({ sql, logger, catalogChanges, mail, internalToken: config.INTERNAL_TOKEN, stockConfirmSeconds: config.STOCK_CONFIRM_SECONDS, ...listenAddress(config.CATALOG_ADDR) });
const metrics = await startServiceMetrics(listenAddress(config.CATALOG_ADDR).port, { host: config.METRICS_HOST, port: config.METRICS_PORT }, logger);

onShutdown(logger, async () => {
  await metrics.close();
  await server.close();
  await mailer.close();
  await catalogChanges?.close();
  await sql.end({ timeout: 5 });
  await database.close();
  await stopTracing();
});
