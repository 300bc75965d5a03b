import path from "node:path";
import { fileURLToPath } from "node:url";
import { AccountService } from "../../gen/catalog/v1/account_pb.js";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import type { EventBus } from "../../platform/bus.js";
import type { Config } from "../../platform/config.js";
import { migrate, ping, type Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import type { Mailer } from "../../platform/mail.js";
import { openRpcChannel } from "../../platform/rpc-client.js";
import { startRpcServer, type InProcessTarget } from "../../platform/rpc-server.js";
import { registerDbPool, setWebhookBacklogSources, webhookAttemptDuration, webhookAttempts, webhookDeliveryLatency } from "../../platform/metrics.js";
import { createEventConsumer } from "./consumer.js";
import { createWebhookDomain } from "./domain.js";
import { createFailingEndpoints, startFailingEndpointsJob } from "./failing-endpoints.js";
import { createPurge, startPurgeJob } from "./purge.js";
import { createWebhookRoutes } from "./routes.js";
import { createSecretBox } from "./secret-box.js";
import { countWaitingDeliveries } from "./db/deliveries.js";
import { startDeliveryWorker } from "./worker.js";

export const WEBHOOK_SCHEMA = "webhooks";
const migrations = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

export type WebhookServiceConfig = Pick<
  Config,
  | "WEBHOOK_RETRY_SCHEDULE"
  | "WEBHOOK_ALLOW_HTTP"
  | "WEBHOOK_ALLOW_PRIVATE"
  | "WEBHOOK_SECRET_KEY"
  | "WEBHOOK_ROTATION_OVERLAP"
  | "WEBHOOK_DISABLE_AFTER"
  | "EVENT_RETENTION"
  | "CATALOG_ADDR"
  | "PUBLIC_BASE_URL"
> &
  Partial<Pick<Config, "RPC_TRANSPORT">>;

/**
 * Migrates the webhook schema, serves its gRPC API, consumes order events from the bus,
 * runs the delivery worker and purges the event log past EVENT_RETENTION (at start,
 * then hourly). `sql` must be a pool on the webhook schema.
 */
export async function startWebhookService(options: {
  sql: Sql;
  logger: Logger;
  config: WebhookServiceConfig;
  bus: EventBus;
  host: string;
  port: number;
  /** Per-attempt timeout (docs/webhooks.md#retries: 15 s). */
  timeoutMs?: number;
  /** How often the event log is purged (default hourly; it also runs at start). */
  purgeEveryMs?: number;
  /** "Endpoint disabled" mails to the store's owners go out through it. */
  mailer: Pick<Mailer, "send">;
  /** The catalog service in this process (`npm start`); else CATALOG_ADDR over gRPC. */
  catalog?: InProcessTarget;
  /** How often failing endpoints are looked for (default 15 s). */
  disableSweepEveryMs?: number;
  /** INTERNAL_TOKEN: every call to this service must carry it, and its own calls carry it. */
  internalToken?: string;
}) {
  const { sql, logger, config } = options;
  await migrate(sql, WEBHOOK_SCHEMA, migrations, logger);
  const box = createSecretBox(config.WEBHOOK_SECRET_KEY);
  registerDbPool("webhooks", sql);
  const worker = startDeliveryWorker({
    sql,
    logger,
    box,
    schedule: config.WEBHOOK_RETRY_SCHEDULE,
    allowHttp: config.WEBHOOK_ALLOW_HTTP,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    timeoutMs: options.timeoutMs,
    onAttempt(result, latencyMs, recordedAt) {
      webhookAttempts.inc({ result });
      webhookAttemptDuration.observe({ result }, latencyMs / 1000);
      if (result === "succeeded") webhookDeliveryLatency.observe((Date.now() - recordedAt.getTime()) / 1000);
    },
  });
  setWebhookBacklogSources({ deliveriesWaiting: () => countWaitingDeliveries(sql), consumerPending: () => options.bus.pending() });
  await options.bus.consume(createEventConsumer({ sql, logger, onRecorded: worker.kick }));
  const server = await startRpcServer({
    name: "webhook",
    host: options.host,
    port: options.port,
    logger,
    routes: createWebhookRoutes(
      createWebhookDomain({
        sql,
        logger,
        box,
        allowHttp: config.WEBHOOK_ALLOW_HTTP,
        rotationOverlapMs: config.WEBHOOK_ROTATION_OVERLAP,
        eventRetentionMs: config.EVENT_RETENTION,
        onRequeued: worker.kick,
      }),
    ),
    services: [WebhookService.typeName],
    ready: async () => {
      await ping(sql);
      await options.bus.ready();
    },
    internalToken: options.internalToken,
  });
  // The store's owners are the catalog's to know: asked when an endpoint is disabled.
  const catalogChannel = openRpcChannel(options.catalog ?? config.CATALOG_ADDR, {
    timeoutMs: 3_000,
    role: "webhook",
    logger,
    internalToken: options.internalToken,
    transport: config.RPC_TRANSPORT,
  });
  const accounts = catalogChannel.client(AccountService);
  const failing = createFailingEndpoints({
    sql,
    logger,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER,
    ownersOf: async (storeId) => (await accounts.listMembers({ storeId })).members.filter((member) => member.role === "owner").map((member) => member.email),
    mailer: options.mailer,
    publicBaseUrl: config.PUBLIC_BASE_URL,
  });
  const failingJob = startFailingEndpointsJob(failing, logger, options.disableSweepEveryMs);
  const purgeJob = startPurgeJob({
    purge: createPurge({ sql, retentionMs: config.EVENT_RETENTION }),
    logger,
    everyMs: options.purgeEveryMs,
  });
  return {
    port: server.port,
    inProcess: server.inProcess,
    async close(graceMs?: number) {
      await server.close(graceMs);
      await purgeJob.stop();
      await failingJob.stop();
      await worker.stop();
      catalogChannel.close();
    },
  };
}
