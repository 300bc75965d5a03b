import path from "node:path";
import { fileURLToPath } from "node:url";
import { CatalogService, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { BankReconciliationService } from "../../gen/order/v1/bank_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import type { EventBus } from "../../platform/bus.js";
import type { Config } from "../../platform/config.js";
import { migrate, ping, type Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import { openRpcChannel } from "../../platform/rpc-client.js";
import { startRpcServer, type InProcessTarget } from "../../platform/rpc-server.js";
import { registerDbPool, setOutboxSource, setStockChangesSource } from "../../platform/metrics.js";
import { createOrderDomain } from "./domain.js";
import { startExpirySweeper } from "./expiry.js";
import { gatewaySweepEvery, startGatewaySweeper } from "./gateway-checks.js";
import { startOutboxRelay } from "./outbox-relay.js";
import { startBuyerMail } from "./buyer-mail.js";
import type { Mailer } from "../../platform/mail.js";
import { startStockRelay } from "./stock-relay.js";
import { createMidtransGateway } from "./payment-gateways/midtrans.js";
import { createSandboxGateway } from "./payment-gateways/sandbox.js";
import type { PaymentGateway } from "./payment-gateways/types.js";
import { createOrderRoutes } from "./routes.js";

export const ORDER_SCHEMA = "orders";
const migrations = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

export type OrderServiceConfig = Pick<
  Config,
  | "CATALOG_ADDR"
  | "PUBLIC_BASE_URL"
  | "PAYMENT_GATEWAY"
  | "MIDTRANS_SERVER_KEY"
  | "MIDTRANS_CLIENT_KEY"
  | "MIDTRANS_BASE_URL"
  | "MIDTRANS_API_BASE_URL"
  | "PAYMENT_STATUS_CHECK_AFTER"
  | "MIDTRANS_TIMEOUT"
  | "ORDER_PAYMENT_WINDOW"
  | "PAYMENT_SESSION_TTL"
  | "BANK_MATCH_GRACE"
> &
  Partial<Pick<Config, "BUYER_REMINDER_BEFORE">> &
  Partial<Pick<Config, "RPC_TRANSPORT">>;

export function createPaymentGateway(config: OrderServiceConfig): PaymentGateway {
  return config.PAYMENT_GATEWAY === "midtrans"
    ? createMidtransGateway({
        baseUrl: config.MIDTRANS_BASE_URL,
        apiBaseUrl: config.MIDTRANS_API_BASE_URL,
        serverKey: config.MIDTRANS_SERVER_KEY,
        clientKey: config.MIDTRANS_CLIENT_KEY,
        timeoutMs: config.MIDTRANS_TIMEOUT,
      })
    : createSandboxGateway({ publicBaseUrl: config.PUBLIC_BASE_URL, clientKey: config.MIDTRANS_CLIENT_KEY });
}

/**
 * Migrates the order schema, serves the order service's gRPC APIs (orders and bank
 * reconciliation) and runs the expiry sweeper, the outbox relay (with a bus) and the
 * stock relay. `sql` must be a pool whose search_path
 * is the order schema.
 */
export async function startOrderService(options: {
  sql: Sql;
  logger: Logger;
  config: OrderServiceConfig;
  host: string;
  port: number;
  sweepEveryMs?: number;
  /** Where outbox events go; without one they stay in the outbox. */
  bus?: EventBus;
  /** The catalog service in this process, called directly instead of at CATALOG_ADDR. */
  catalog?: InProcessTarget;
  /** Waits between attempts at a refund the gateway could not be reached for (tests shorten them). */
  refundRetryDelaysMs?: readonly number[];
  /** INTERNAL_TOKEN: every call to this service must carry it, and its own calls carry it. */
  internalToken?: string;
  /** Where buyer mail goes (docs/payments.md#buyer-mail); without one it waits in buyer_mails. */
  mailer?: Pick<Mailer, "deliver">;
  /** Waits between attempts at a buyer mail (tests shorten them). */
  buyerMailRetryDelaysMs?: readonly number[];
  /** How often the stock relay looks for changes whose kick was lost (default 2 s). */
  stockRelayPollMs?: number;
}) {
  const { sql, logger, config } = options;
  await migrate(sql, ORDER_SCHEMA, migrations, logger);
  const catalogChannel = openRpcChannel(options.catalog ?? config.CATALOG_ADDR, {
    timeoutMs: 3_000,
    role: "order",
    logger,
    internalToken: options.internalToken,
    transport: config.RPC_TRANSPORT,
  });
  const relay = options.bus ? startOutboxRelay({ sql, bus: options.bus, logger }) : undefined;
  const catalog = catalogChannel.client(CatalogService);
  // Stock changes go to the catalog, bus or no bus (docs/orders.md#stock).
  const stockRelay = startStockRelay({ sql, catalog, logger, pollMs: options.stockRelayPollMs });
  registerDbPool("orders", sql);
  if (relay) setOutboxSource(() => relay.backlog());
  setStockChangesSource(() => stockRelay.backlog());
  const domain = createOrderDomain({
    sql,
    logger,
    stores: catalogChannel.client(StoreService),
    catalog,
    gateway: createPaymentGateway(config),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    paymentWindowMs: config.ORDER_PAYMENT_WINDOW,
    sessionTtlMs: config.PAYMENT_SESSION_TTL,
    midtransServerKey: config.MIDTRANS_SERVER_KEY,
    bankMatchGraceMs: config.BANK_MATCH_GRACE,
    statusCheckAfterMs: config.PAYMENT_STATUS_CHECK_AFTER,
    refundRetryDelaysMs: options.refundRetryDelaysMs,
    // Every change that writes events may write a stock change too, and the outbox
    // trigger may have owed a buyer mail (016_buyer_mails.sql): all three wake.
    onEventsCommitted: () => {
      relay?.kick();
      stockRelay.kick();
      buyerMail?.kick();
    },
  });
  const buyerMail = options.mailer
    ? startBuyerMail({
        sql,
        logger,
        mailer: options.mailer,
        stores: catalogChannel.client(StoreService),
        render: domain.render,
        reminderBeforeMs: config.BUYER_REMINDER_BEFORE ?? 3 * 3_600_000,
        retryDelaysMs: options.buyerMailRetryDelaysMs,
      })
    : undefined;
  const server = await startRpcServer({
    name: "order",
    host: options.host,
    port: options.port,
    logger,
    routes: createOrderRoutes(domain),
    services: [OrderService.typeName, BankReconciliationService.typeName],
    ready: async () => {
      await ping(sql);
      await options.bus?.ready();
    },
    internalToken: options.internalToken,
  });
  const sweeper = startExpirySweeper({ expiry: domain.expiry, idempotency: domain.idempotency, logger, everyMs: options.sweepEveryMs });
  const gatewaySweeper = startGatewaySweeper({
    checks: domain.gatewayChecks,
    refunds: domain.refunds,
    logger,
    everyMs: gatewaySweepEvery(domain.statusCheckAfterMs),
  });
  return {
    port: server.port,
    inProcess: server.inProcess,
    domain,
    relay,
    stockRelay,
    async close(graceMs?: number) {
      await sweeper.stop();
      await buyerMail?.stop();
      await gatewaySweeper.stop();
      await server.close(graceMs);
      await relay?.stop();
      await stockRelay.stop();
      catalogChannel.close();
    },
  };
}
