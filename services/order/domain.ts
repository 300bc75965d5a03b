// Wires the order service's domain modules together: the one place that says which
// module uses which. routes.ts gets the result; tests pass fake clients and a fake
// payment gateway, and a database of their own.
import type { Client } from "@connectrpc/connect";
import type { CatalogService, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { listAudit, type AuditQuery } from "../../platform/audit-log.js";
import type { Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import { createExpiry } from "./expiry.js";
import { createGatewayChecks } from "./gateway-checks.js";
import { createIdempotency } from "./idempotency.js";
import { createNotifications } from "./notifications.js";
import { createOrders } from "./orders.js";
import { createPaymentLinks } from "./payment-links.js";
import { createSales } from "./sales.js";
import { createReconciliation } from "./reconciliation.js";
import { createRefunds } from "./refunds.js";
import type { PaymentGateway } from "./payment-gateways/types.js";
import type { RenderContext } from "./messages.js";
import { createPaymentSessions } from "./payment-sessions.js";
import { createSandboxGateway } from "./payment-gateways/sandbox.js";
import { createStatusChanges } from "./status-changes.js";

const DEFAULT_BANK_MATCH_GRACE_MS = 7 * 86_400_000;
const DEFAULT_STATUS_CHECK_AFTER_MS = 15 * 60_000;

export interface OrderDomainDeps {
  /** The pool the order service's SQL (db/) runs on. */
  sql: Sql;
  logger: Logger;
  stores: Pick<Client<typeof StoreService>, "getStore">;
  catalog: Pick<Client<typeof CatalogService>, "getOrderCatalog">;
  /** PAYMENT_GATEWAY's gateway: live orders pay through it. */
  gateway: PaymentGateway;
  /** Test orders' gateway, whatever PAYMENT_GATEWAY says (docs/keys.md#test-mode); default a sandbox on publicBaseUrl. */
  testGateway?: PaymentGateway;
  publicBaseUrl: string;
  paymentWindowMs: number;
  /** Caps a gateway session's life below the order's (unset: the order's expiry). */
  sessionTtlMs?: number;
  /** Signs Midtrans notifications (docs/payments.md#notifications). */
  midtransServerKey: string;
  /** BANK_MATCH_GRACE (docs/reconciliation.md#unique-codes); default 7 days. */
  bankMatchGraceMs?: number;
  /** PAYMENT_STATUS_CHECK_AFTER (docs/refunds.md#when-the-gateway-is-silent); default 15 min. Used only with a gateway that can be asked. */
  statusCheckAfterMs?: number;
  /** Waits between attempts at a refund the gateway could not be reached for (default refunds.ts). */
  refundRetryDelaysMs?: readonly number[];
  /** Called after a transaction that wrote outbox rows commits (wakes the relay). */
  onEventsCommitted?: () => void;
}

export function createOrderDomain(deps: OrderDomainDeps) {
  const { sql, logger, onEventsCommitted } = deps;
  const testGateway =
    deps.testGateway ?? (deps.gateway.provider === "sandbox" ? deps.gateway : createSandboxGateway({ publicBaseUrl: deps.publicBaseUrl, clientKey: deps.gateway.clientKey }));
  const render: RenderContext = { publicBaseUrl: deps.publicBaseUrl, gateway: deps.gateway, testGateway };
  const bankMatchGraceMs = deps.bankMatchGraceMs ?? DEFAULT_BANK_MATCH_GRACE_MS;
  const statusCheckAfterMs = deps.statusCheckAfterMs ?? DEFAULT_STATUS_CHECK_AFTER_MS;
  // A gateway with a word of its own (Midtrans) is asked when silent, and told when an order expires.
  const asksGateway = deps.gateway.status !== undefined;
  const statusChanges = createStatusChanges({ render, logger, bankMatchGraceMs, gatewayExpires: deps.gateway.expire !== undefined });
  const expiry = createExpiry({ sql, statusChanges, onEventsCommitted });
  const sessions = createPaymentSessions({ sql, gateways: render, logger, sessionTtlMs: deps.sessionTtlMs });
  const idempotency = createIdempotency({ sql });
  const orders = createOrders({
    sql,
    logger,
    stores: deps.stores,
    catalog: deps.catalog,
    render,
    paymentWindowMs: deps.paymentWindowMs,
    statusCheckAfterMs: asksGateway ? statusCheckAfterMs : undefined,
    sessions,
    statusChanges,
    expiry,
    idempotency,
    onEventsCommitted,
  });
  const refunds = createRefunds({ sql, gateway: deps.gateway, statusChanges, render, logger, retryDelaysMs: deps.refundRetryDelaysMs, onEventsCommitted });
  const notifications = createNotifications({
    sql,
    logger,
    midtransServerKey: deps.midtransServerKey,
    gateway: deps.gateway,
    changeStatus: (orderId, to, cause, detail) => orders.changeStatus(orderId, to, cause, { detail }),
    recordRefunds: refunds.recordReported,
    onPendingWord: (row) => gatewayChecks.heard(row),
    onUnconfirmed: (row) => gatewayChecks.askSoon(row),
  });
  const gatewayChecks = createGatewayChecks({ sql, gateway: deps.gateway, notifications, logger, checkAfterMs: statusCheckAfterMs });
  const bank = createReconciliation({ sql, logger, statusChanges, expiry, bankMatchGraceMs, onEventsCommitted });
  // The order service's part of the store's audit log: entries are written by each change.
  const audit = { list: (storeId: string, query: AuditQuery) => listAudit(sql, storeId, query) };
  const sales = createSales({ sql });
  const paymentLinks = createPaymentLinks({ sql, render, catalog: deps.catalog, orders });
  return { render, orders, notifications, bank, expiry, sessions, idempotency, statusChanges, refunds, gatewayChecks, statusCheckAfterMs, audit, sales, paymentLinks };
}

export type OrderDomain = ReturnType<typeof createOrderDomain>;
