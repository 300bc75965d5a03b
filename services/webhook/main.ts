// The webhook service on its own: `npm run start:webhook`.
import { createEventBus } from "../../platform/bus.js";
import { listenAddress } from "../../platform/config.js";
import { connectDb, openDatabaseServer } from "../../platform/db.js";
import { loadConfigOrExit, onShutdown, reportProcessFailures } from "../../platform/lifecycle.js";
import { createLogger } from "../../platform/logger.js";
import { startTracing, stopTracing } from "../../platform/tracing.js";
import { createMailer } from "../../platform/mail.js";
import { startServiceMetrics } from "../../platform/metrics.js";
import { startWebhookService, WEBHOOK_SCHEMA } from "./service.js";

const config = loadConfigOrExit("webhook");
const logger = createLogger("webhook", config.LOG_LEVEL);
reportProcessFailures(logger);
// OTEL_EXPORTER_OTLP_ENDPOINT set: spans of this role go there (before anything makes one).
startTracing(config, { logger });
const database = await openDatabaseServer(config, logger);
const sql = connectDb(database.url, { schema: WEBHOOK_SCHEMA, role: "webhook", max: config.DATABASE_POOL_SIZE });
if (!config.NATS_URL) logger.warn("NATS_URL is not set: alone, the webhook service receives no events");
const bus = await createEventBus(config, { stream: config.EVENTS_STREAM, consumer: config.EVENTS_CONSUMER }, logger);
// "Endpoint disabled" mails: SMTP_URL, or .eml files under DATA_DIR/mail.
const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR, logger });
const service = await startWebhookService({ sql, logger, config, bus, mailer, internalToken: config.INTERNAL_TOKEN, ...listenAddress(config.WEBHOOK_ADDR) });
const metrics = await startServiceMetrics(listenAddress(config.WEBHOOK_ADDR).port, { host: config.METRICS_HOST, port: config.METRICS_PORT }, logger);

onShutdown(logger, async () => {
  await metrics.close();
  await service.close();
  await mailer.close();
  await bus.close();
  await sql.end({ timeout: 5 });
  await database.close();
  await stopTracing();
});
