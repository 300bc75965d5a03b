// Gateway payment sessions (docs/payments.md#payment-sessions): a pending gateway order has at most one
// live session, prepared at creation or by the next read when there is none or it has
// expired. A gateway that fails or is slow leaves the order without one (snap: null),
// and the next read tries again.
import { ConnectError } from "@connectrpc/connect";
import type { Logger } from "../../platform/logger.js";
import type { SessionRequest } from "./payment-gateways/types.js";
import { gatewayFor, type Gateways } from "./test-mode.js";
import { type Sql, transaction } from "../../platform/db.js";
import { findOrder, itemsOf, type OrderItemRow, type OrderRow } from "./db/orders.js";
import { insertSession, liveSessionsOf, type SessionRow } from "./db/sessions.js";

/**
 * Preparations running at once in this process. Each holds a pooled connection across
 * the gateway call: a slow gateway must not take them all.
 */
export const MAX_PREPARING = 4;

/** Only a pending gateway order has a payment session. */
export function wantsSession(row: Pick<OrderRow, "payment_kind" | "status">): boolean {
  return row.payment_kind === "gateway" && row.status === "pending";
}

/**
 * When a session made at `now` stops taking payment: the order's expiry, or sooner
 * with a session TTL (unset or 0: no cap); undefined when that is not in the future.
 */
export function sessionExpiry(orderExpiresAt: Date, now: number, sessionTtlMs?: number): Date | undefined {
  const expiresAt = new Date(Math.min(orderExpiresAt.getTime(), sessionTtlMs ? now + sessionTtlMs : Number.POSITIVE_INFINITY));
  return expiresAt.getTime() > now ? expiresAt : undefined;
}

/** What the gateway is asked for: our reference is its order id. */
export function sessionRequest(order: OrderRow, items: OrderItemRow[], expiresAt: Date): SessionRequest {
  return {
    orderId: order.payment_reference,
    amount: order.amount,
    method: order.payment_method,
    items: items.map((item) => ({ id: item.item_id, name: item.title, price: item.unit_price, quantity: item.quantity })),
    buyer: { name: order.buyer_name, email: order.buyer_email, phone: order.buyer_phone },
    expiresAt,
    finishUrl: order.success_url,
  };
}

export function createPaymentSessions(deps: {
  sql: Sql;
  /** A live order's session is PAYMENT_GATEWAY's, a test order's always the sandbox's (test-mode.ts). */
  gateways: Gateways;
  logger: Logger;
  /** Caps a gateway session's life below the order's (unset: the order's expiry). */
  sessionTtlMs?: number;
  maxPreparing?: number;
}) {
  const { sql, gateways, logger } = deps;
  const maxPreparing = deps.maxPreparing ?? MAX_PREPARING;
  const preparingByOrder = new Map<string, Promise<SessionRow | undefined>>();

  /** The order's live session, if any; never calls the gateway. */
  async function liveSessionOf(orderId: string): Promise<SessionRow | undefined> {
    return (await liveSessionsOf(sql, [orderId])).get(orderId);
  }

  /**
   * The live gateway session of a pending gateway order, made if there is none. The
   * order row is locked meanwhile, so concurrent callers wait and then reuse the one
   * session. A failing gateway leaves the order without a session (undefined).
   */
  async function ensureSession(row: OrderRow): Promise<SessionRow | undefined> {
    if (!wantsSession(row)) return undefined;
    const existing = await liveSessionOf(row.id);
    if (existing) return existing;
    // Reads of one order in this process share one preparation; other instances wait
    // on the order's row lock below.
    const running = preparingByOrder.get(row.id);
    if (running) return running;
    // Past the cap the answer is "no session yet" (snap: null), as when the gateway is
    // down, and the next read tries again.
    if (preparingByOrder.size >= maxPreparing) return undefined;
    const preparation = prepareSession(row).finally(() => preparingByOrder.delete(row.id));
    preparingByOrder.set(row.id, preparation);
    return preparation;
  }

  async function prepareSession(row: OrderRow): Promise<SessionRow | undefined> {
    try {
      return await transaction(sql, async (tx) => {
        const locked = await findOrder(tx, row.id, { forUpdate: true });
        if (!locked || locked.status !== "pending") return undefined;
        const live = (await liveSessionsOf(tx, [row.id])).get(row.id);
        if (live) return live;
        const items = (await itemsOf(tx, [row.id])).get(row.id)!;
        const expiresAt = sessionExpiry(locked.expires_at, Date.now(), deps.sessionTtlMs);
        if (!expiresAt) return undefined;
        const gateway = gatewayFor(gateways, locked.livemode);
        const session = await gateway.createSession(sessionRequest(locked, items, expiresAt));
        return insertSession(tx, {
          order_id: row.id,
          provider: gateway.provider,
          token: session.token,
          redirect_url: session.redirectUrl,
          expires_at: expiresAt,
        });
      });
    } catch (error) {
      if (error instanceof ConnectError) throw error;
      logger.warn({ orderId: row.id, err: (error as Error).message }, "payment session not prepared");
      return undefined;
    }
  }

  return { ensureSession, liveSessionOf };
}

export type PaymentSessions = ReturnType<typeof createPaymentSessions>;
