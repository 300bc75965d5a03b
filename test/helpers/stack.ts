import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { TEST_SCRYPT } from "./scrypt.js";
import { CATALOG_SCHEMA, startCatalogService } from "../../services/catalog/service.js";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { SHARED_NATS_URL, uniqueBusNames } from "./nats.js";
import { loadConfig } from "../../platform/config.js";
import { connectDb } from "../../platform/db.js";
import { createLogger, type Logger } from "../../platform/logger.js";
import type { OutgoingMail } from "../../platform/mail.js";
import { freePort } from "../../platform/net.js";
import { createRpcChannel } from "../../platform/rpc-client.js";
import { OPERATOR } from "../../common/actor.js";
import { storeAuditLog } from "../../platform/audit-log.js";
import { AccountService } from "../../gen/catalog/v1/account_pb.js";
import { CatalogService, ItemStatus, Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { BankReconciliationService } from "../../gen/order/v1/bank_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { createTestDatabase, type TestDatabase } from "./db.js";
import { TEST_INTERNAL_TOKEN } from "./internal-token.js";
import { prepareOpenApiValidation } from "./openapi.js";
import { startAll } from "../../cli/start-all.js";

export interface StackOptions {
  /** Where every role of the stack logs (default: silent, or TEST_LOG_LEVEL). */
  logger?: Logger;
  ratePerMinute?: number;
  authFailuresPerMinute?: number;
  authCacheMs?: number;
  /** Extra configuration for the order service, as environment variables. */
  orderEnv?: Record<string, string>;
  /** Extra configuration for every role, as environment variables (e.g. TRUST_PROXY). */
  env?: Record<string, string>;
  /** How often the expiry sweeper runs (default 5 s). */
  sweepEveryMs?: number;
  /**
   * Run the webhook service too, with events carried by NATS JetStream (the shared
   * server with stream names of this stack's own, or `natsUrl`) or the in-process bus.
   * Its configuration defaults to allowing http:// and loopback receivers.
   */
  webhooks?: { bus: "nats" | "in-process"; natsUrl?: string; env?: Record<string, string>; timeoutMs?: number; disableSweepEveryMs?: number };
  /** How the roles call each other: in this process as `npm start` does (default), or gRPC on loopback. */
  transport?: "in-process" | "grpc";
  /** Where mail goes (SMTP_URL); by default each mail is an .eml file under `mailDir`. */
  smtpUrl?: string;
  /** Waits between attempts at a buyer mail (default: the service's, 5 s first). */
  buyerMailRetryDelaysMs?: readonly number[];
}

/**
 * The catalog and order services and the gateway in this process, on real loopback
 * ports and a database of their own: real HTTP, real gRPC, real PostgreSQL. Wired by
 * the same startAll as `npm start`, so the roles call each other in process unless
 * `transport: "grpc"`; the test's own admin clients always use gRPC.
 */
export async function startStack(options: StackOptions = {}) {
  // api() checks every /v1 answer against the document; its schemas are compiled now,
  // while nothing of the stack runs yet to be held up by it.
  prepareOpenApiValidation();
  const db: TestDatabase = await createTestDatabase();
  const logger = options.logger ?? createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");
  const gatewayPort = await freePort();
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  const busNames = uniqueBusNames();
  // The stack's own DATA_DIR: mail written as files lands there, never in the checkout.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "stack-"));
  const config = loadConfig({
    DATA_DIR: dataDir,
    INTERNAL_TOKEN: TEST_INTERNAL_TOKEN,
    ...(options.smtpUrl ? { SMTP_URL: options.smtpUrl } : {}),
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    ...options.webhooks?.env,
    ...options.orderEnv,
    ...options.env,
    ...(options.webhooks?.bus === "nats" ? { NATS_URL: options.webhooks.natsUrl ?? SHARED_NATS_URL } : {}),
    ...busNames,
    HOST: "127.0.0.1",
    PORT: String(gatewayPort),
    PUBLIC_BASE_URL: baseUrl,
    RATE_LIMIT_PER_MINUTE: String(options.ratePerMinute ?? 10_000),
    AUTH_FAILURES_PER_MINUTE: String(options.authFailuresPerMinute ?? 10_000),
  });
  const all = await startAll(config, db.url, {
    logger,
    anyServicePort: true,
    poolSize: { catalog: 4, order: 8, webhook: 6, gateway: 4 },
    withoutWebhooks: !options.webhooks,
    sweepEveryMs: options.sweepEveryMs,
    authCacheMs: options.authCacheMs,
    webhookTimeoutMs: options.webhooks?.timeoutMs,
    webhookDisableSweepEveryMs: options.webhooks?.disableSweepEveryMs,
    transport: options.transport,
    metricsPort: 0,
    scryptParams: TEST_SCRYPT,
    buyerMailRetryDelaysMs: options.buyerMailRetryDelaysMs,
  });
  // The test administers the stack as the operator would.
  const adminOptions = { actor: OPERATOR, timeoutMs: 30_000, internalToken: TEST_INTERNAL_TOKEN };
  const admin = createRpcChannel(all.addrs.catalog, adminOptions);
  const orderAdmin = createRpcChannel(all.addrs.order, adminOptions);
  const webhookAdmin = all.addrs.webhook ? createRpcChannel(all.addrs.webhook, adminOptions) : undefined;
  return {
    db,
    baseUrl,
    /** /metrics of every role of the stack: its own port, never the gateway's (baseUrl). */
    metricsUrl: `http://127.0.0.1:${all.metricsPort}/metrics`,
    /** Where mails are written as .eml files when no smtpUrl was given. */
    mailDir: path.join(dataDir, "mail"),
    catalogAddr: all.addrs.catalog,
    orderAddr: all.addrs.order,
    config,
    stores: admin.client(StoreService),
    accounts: admin.client(AccountService),
    catalog: admin.client(CatalogService),
    orders: orderAdmin.client(OrderService),
    bank: orderAdmin.client(BankReconciliationService),
    /** Present when the stack runs the webhook service. */
    webhooks: webhookAdmin?.client(WebhookService),
    webhookAddr: all.addrs.webhook,
    webhookSql: all.sql.webhook,
    catalogSql: all.sql.catalog,
    busNames,
    dbUrl: db.url,
    /** The store's audit log as the dashboard and the CLI read it: every service's part, merged. */
    auditLog: async (storeId: string) =>
      (await storeAuditLog({ catalog: admin.client(AccountService), order: orderAdmin.client(OrderService), webhook: webhookAdmin?.client(WebhookService) }, storeId, { limit: 500 })).entries,
    /** SQL on the order service's schema, for asserting what was (not) written. */
    orderSql: all.sql.order,
    async close() {
      admin.close();
      orderAdmin.close();
      webhookAdmin?.close();
      await all.close(100);
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** Only the catalog service, in this process, on a database of its own; the mail it sends is kept in `mails`. */
export async function startCatalogOnly() {
  const db = await createTestDatabase();
  const sql = connectDb(db.url, { schema: CATALOG_SCHEMA, max: 4 });
  const mails: OutgoingMail[] = [];
  const server = await startCatalogService({
    sql,
    logger: createLogger("catalog", process.env.TEST_LOG_LEVEL ?? "silent"),
    host: "127.0.0.1",
    port: 0,
    mail: { mailer: { send: (mail) => mails.push(mail) }, publicBaseUrl: "http://dashboard.test" },
    scryptParams: TEST_SCRYPT,
    internalToken: TEST_INTERNAL_TOKEN,
  });
  return {
    db,
    server,
    /** SQL on the catalog's schema, for asserting what was (not) written. */
    sql,
    mails,
    port: server.port,
    async close() {
      await server.close(100);
      await sql.end({ timeout: 1 });
      await db.drop();
    },
  };
}

/** A store with a live key (and a bank account unless `bank` is false). */
export async function createStore(stack: Pick<Stack, "stores">, plan: Plan = Plan.GROWTH, name = "Test Store", bank = true) {
  const { store } = await stack.stores.createStore({
    name,
    plan,
    bankAccount: bank
      ? { bankName: "Bank Central Asia", bankCode: "BCA", accountNumber: "0001112223", accountHolder: "Test Holder" }
      : undefined,
  });
  const key = await stack.stores.createApiKey({ storeId: store!.id, name: "test" });
  return { storeId: store!.id, keyId: key.apiKey!.id, key: key.secret };
}

export async function createProduct(
  stack: Pick<Stack, "catalog">,
  storeId: string,
  title: string,
  price: number,
  status: ItemStatus = ItemStatus.PUBLISHED,
) {
  const { item } = await stack.catalog.createProduct({ storeId, title, price: BigInt(price), status });
  return item!;
}

export async function createBundle(
  stack: Pick<Stack, "catalog">,
  storeId: string,
  title: string,
  price: number,
  productIds: string[],
  status: ItemStatus = ItemStatus.PUBLISHED,
) {
  const { item } = await stack.catalog.createBundle({ storeId, title, price: BigInt(price), status, productIds });
  return item!;
}

export const buyer = { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" };

export { ItemStatus, Plan };
