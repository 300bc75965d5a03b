// The one composition root for every role in one process: `npm start` (cli/start.ts)
// and the test stack (test/helpers/stack.ts) both call startAll. Each role's own main
// (services/*/main.ts, gateway/main.ts) wires one role alone.
import { createServiceClients } from "../gateway/clients.js";
import { GATEWAY_SCHEMA, loopbackHost, startGateway } from "../gateway/service.js";
import type { ScryptParams } from "../services/catalog/accounts/passwords.js";
import { CATALOG_SCHEMA, startCatalogService } from "../services/catalog/service.js";
import { createMailer } from "../platform/mail.js";
import { ORDER_SCHEMA, startOrderService } from "../services/order/service.js";
import { startWebhookService, WEBHOOK_SCHEMA } from "../services/webhook/service.js";
import { createEventBus, type EventBus } from "../platform/bus.js";
import { createCatalogChanges, createLocalCatalogChanges } from "../platform/catalog-changes.js";
import { listenAddress, type Config } from "../platform/config.js";
import { connectDb, type Sql } from "../platform/db.js";
import { createLogger, type Logger } from "../platform/logger.js";
import type { DestinationStream } from "pino";
import { startServiceMetrics } from "../platform/metrics.js";
import { createNatsProbe } from "../gateway/nats-probe.js";
import { flushTracing, startTracing } from "../platform/tracing.js";

export interface StartAllOverrides {
  /** A logger for every role (default: one per role at LOG_LEVEL). */
  logger?: Logger;
  /** Where each role's own logger writes (default: stdout); `npm start` sends it to a file. */
  logDestination?: DestinationStream;
  /** Listen on port 0 (any free port) for every service instead of the *_ADDR ports. */
  anyServicePort?: boolean;
  /** Pool sizes by schema (defaults: postgres.js's 10 each). */
  poolSize?: Partial<Record<"catalog" | "order" | "webhook" | "gateway", number>>;
  /** Run without the webhook service (and so without a bus). */
  withoutWebhooks?: boolean;
  /** The bus to use instead of the one NATS_URL chooses. */
  bus?: EventBus;
  sweepEveryMs?: number;
  authCacheMs?: number;
  webhookTimeoutMs?: number;
  /** How often the webhook service looks for endpoints to disable (default 15 s). */
  webhookDisableSweepEveryMs?: number;
  /** The metrics listener's port (default: METRICS_PORT, else PORT + 1000; 0: any free port). */
  metricsPort?: number;
  /** Waits between attempts at a buyer mail (default buyer-mail.ts); only test stacks shorten them. */
  buyerMailRetryDelaysMs?: readonly number[];
  /** Password hashing cost (default SCRYPT_PARAMS); only test stacks lower it. */
  scryptParams?: ScryptParams;
  /**
   * How the roles call each other (default "in-process": Connect's router transport
   * over the services' own routes and interceptors; "grpc": HTTP/2 on loopback, as
   * separate processes do). The gRPC ports are open either way, for the CLI.
   */
  transport?: "in-process" | "grpc";
}

export interface AllRoles {
  url: string;
  addrs: { catalog: string; order: string; webhook?: string };
  gatewayPort: number;
  /** Where /metrics of every role in this process is served (0: it could not listen). */
  metricsPort: number;
  clients: ReturnType<typeof createServiceClients>;
  transport: "in-process" | "grpc";
  sql: { catalog: Sql; order: Sql; webhook?: Sql; gateway: Sql };
  order: Awaited<ReturnType<typeof startOrderService>>;
  close(graceMs?: number): Promise<void>;
}

const loopback = (host: string, port: number) => `http://${loopbackHost(host)}:${port}`;

/**
 * Starts catalog, webhook, order and gateway against `databaseUrl`, in dependency
 * order, each on its own pool and schema; `close()` stops them in reverse.
 */
export async function startAll(config: Config, databaseUrl: string, overrides: StartAllOverrides = {}): Promise<AllRoles> {
  const log = (role: string) => overrides.logger ?? createLogger(role, config.LOG_LEVEL, overrides.logDestination);
  const where = (addr: string) => ({ ...listenAddress(addr), ...(overrides.anyServicePort ? { port: 0 } : {}) });
  // One process has no reason to send its own calls through HTTP/2 framing and a socket.
  const transport = overrides.transport ?? "in-process";
  const inProcess = <T>(target: T | undefined) => (transport === "in-process" ? target : undefined);
  // Every service demands it and every call carries it, in process or over gRPC.
  const internalToken = config.INTERNAL_TOKEN;
  // OTEL_EXPORTER_OTLP_ENDPOINT set: one tracer provider per role, so each role's spans
  // carry its own service.name in this one process too (tracing.ts).
  startTracing(config, { logger: log("tracing") });

  // Catalog change hints: this process's gateway hears its catalog synchronously (a
  // write is visible to the next read), and NATS, when set, carries them between processes.
  const catalogChanges = createCatalogChanges(config, log("catalog"), createLocalCatalogChanges(log("catalog")));
  const catalogSql = connectDb(databaseUrl, { schema: CATALOG_SCHEMA, max: overrides.poolSize?.catalog ?? config.DATABASE_POOL_SIZE, role: "catalog" });
  const catalogAt = where(config.CATALOG_ADDR);
  // Invitations, password resets, "endpoint disabled" and buyer mail: SMTP_URL, or .eml files under DATA_DIR/mail.
  const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, dataDir: config.DATA_DIR, logger: log("mail") });
  const mail = { mailer, publicBaseUrl: config.PUBLIC_BASE_URL };
  const catalog = await startCatalogService({ sql: catalogSql, logger: log("catalog"), catalogChanges, mail, scryptParams: overrides.scryptParams, internalToken, stockConfirmSeconds: config.STOCK_CONFIRM_SECONDS, ...catalogAt });
  const catalogAddr = loopback(catalogAt.host, catalog.port);

  let bus: EventBus | undefined;
  let webhookSql: Sql | undefined;
  let webhook: Awaited<ReturnType<typeof startWebhookService>> | undefined;
  let webhookAddr: string | undefined;
  if (!overrides.withoutWebhooks) {
    // One bus for both ends: NATS JetStream when NATS_URL is set, else in this process.
    bus = overrides.bus ?? (await createEventBus(config, { stream: config.EVENTS_STREAM, consumer: config.EVENTS_CONSUMER }, log("bus")));
    webhookSql = connectDb(databaseUrl, { schema: WEBHOOK_SCHEMA, max: overrides.poolSize?.webhook ?? config.DATABASE_POOL_SIZE, role: "webhook" });
    const webhookAt = where(config.WEBHOOK_ADDR);
    webhook = await startWebhookService({
      sql: webhookSql,
      logger: log("webhook"),
      config: { ...config, CATALOG_ADDR: catalogAddr },
      bus,
      mailer,
      catalog: inProcess(catalog.inProcess),
      timeoutMs: overrides.webhookTimeoutMs,
      disableSweepEveryMs: overrides.webhookDisableSweepEveryMs,
      internalToken,
      ...webhookAt,
    });
    webhookAddr = loopback(webhookAt.host, webhook.port);
  }

  const orderSql = connectDb(databaseUrl, { schema: ORDER_SCHEMA, max: overrides.poolSize?.order ?? config.DATABASE_POOL_SIZE, role: "order" });
  const orderAt = where(config.ORDER_ADDR);
  const order = await startOrderService({
    sql: orderSql,
    logger: log("order"),
    config: { ...config, CATALOG_ADDR: catalogAddr },
    bus,
    sweepEveryMs: overrides.sweepEveryMs,
    catalog: inProcess(catalog.inProcess),
    internalToken,
    mailer,
    buyerMailRetryDelaysMs: overrides.buyerMailRetryDelaysMs,
    ...orderAt,
  });
  const orderAddr = loopback(orderAt.host, order.port);

  const gatewaySql = connectDb(databaseUrl, { schema: GATEWAY_SCHEMA, asyncCommit: true, max: overrides.poolSize?.gateway ?? config.DATABASE_POOL_SIZE, role: "gateway" });
  const clients = createServiceClients(
    { catalog: catalogAddr, order: orderAddr, webhook: webhookAddr },
    undefined,
    { catalog: inProcess(catalog.inProcess), order: inProcess(order.inProcess), webhook: inProcess(webhook?.inProcess) },
    undefined,
    internalToken,
    config.RPC_TRANSPORT,
  );
  const nats = config.NATS_URL ? createNatsProbe(config.NATS_URL) : undefined;
  const gateway = await startGateway({
    readinessChecks: nats ? { nats: () => nats.check() } : {},
    sql: gatewaySql,
    clients,
    logger: log("gateway"),
    host: config.HOST,
    port: config.PORT,
    ratePerMinute: config.RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
    paymentLinkOrdersPerMinute: config.PAYMENT_LINK_ORDERS_PER_MINUTE,
    trustProxy: config.TRUST_PROXY,
    authCacheMs: overrides.authCacheMs,
    paymentGateway: config.PAYMENT_GATEWAY,
    midtransServerKey: config.MIDTRANS_SERVER_KEY,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    catalogChanges,
  });
  // One registry for the whole process, so one listener shows every role's metrics,
  // beside the gateway's port as the gateway alone has it (never on the public port),
  // on METRICS_HOST.
  const metrics = await startServiceMetrics(config.PORT, { host: config.METRICS_HOST, port: overrides.metricsPort ?? config.METRICS_PORT }, log("metrics"));

  return {
    url: config.PUBLIC_BASE_URL,
    addrs: { catalog: catalogAddr, order: orderAddr, webhook: webhookAddr },
    gatewayPort: gateway.port,
    metricsPort: metrics.port,
    clients,
    transport,
    sql: { catalog: catalogSql, order: orderSql, webhook: webhookSql, gateway: gatewaySql },
    order,
    async close(graceMs) {
      await metrics.close();
      await gateway.close();
      await nats?.close();
      clients.close();
      await order.close(graceMs);
      await webhook?.close(graceMs);
      await bus?.close();
      await catalog.close(graceMs);
      await mailer.close();
      await catalogChanges?.close();
      await Promise.all([gatewaySql, orderSql, webhookSql, catalogSql].filter((sql) => sql !== undefined).map((sql) => sql.end({ timeout: 5 })));
      // Spans still batched go out before the process ends.
      await flushTracing();
    },
  };
}
