// The order service on its own: `npm run start:order`.
import { createEventBus } from "../../platform/bus.js";
import { listenAddress } from "../../platform/config.js";
import { connectDb, openDatabaseServer } from "../../platform/db.js";
import { loadConfigOrExit, onShutdown, reportProcessFailures } from "../../platform/lifecycle.js";
import { createLogger } from "../../platform/logger.js";
import { createMailer } from "../../platform/mail.js";
import { startTracing, stopTracing } from "../../platform/tracing.js";
import { startServiceMetrics } from "../../platform/metrics.js";
import { ORDER_SCHEMA, startOrderService } from "./service.js";

const config = loadConfigOrExit("order");
const logger = createLogger("order", config.LOG_LEVEL);
reportProcessFailures(logger);
// OTEL_EXPORTER_OTLP_ENDPOINT set: spans of this role go there (before anything makes one).
startTracing(config, { logger });
const database = await openDatabaseServer(config, logger);
const sql = connectDb(database.url, { schema: ORDER_SCHEMA, role: "order", max: config.DATABASE_POOL_SIZE });
// Alone, the order service needs NATS to hand its events on: without NATS_URL they
// wait in the outbox (the in-process bus only works inside `npm start`).
const bus = config.NATS_URL
  ? await createEventBus(config, { stream: config.EVENTS_STREAM, consumer: config.EVENTS_CONSUMER }, logger)
  : undefined;
if (!bus) logger.warn("NATS_URL is not set: order events stay in the outbox until a bus is configured");
// Buyer mail (docs/payments.md#buyer-mail): SMTP_URL, or .eml files under DATA_DIR/mail.
const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR, logger });
const service = await startOrderService({ sql, logger, config, bus, mailer, internalToken: config.INTERNAL_TOKEN, ...listenAddress(config.ORDER_ADDR) });
const metrics = await startServiceMetrics(listenAddress(config.ORDER_ADDR).port, { host: config.METRICS_HOST, port: config.METRICS_PORT }, logger);

onShutdown(logger, async () => {
  await metrics.close();
  await service.close();
  await mailer.close();
  await bus?.close();
  await sql.end({ timeout: 5 });
  await database.close();
  await stopTracing();
});
