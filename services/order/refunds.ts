// Refunds (docs/refunds.md). A bank-transfer order's refund is `manual`: the merchant says
// the money went back, and it succeeds at once. A gateway order's refund goes through
// the gateway: the refund is written pending first (so concurrent refunds count it
// against what is left), then the gateway is asked with the refund's id as its
// refund_key, and its answer settles the refund once. A gateway that is away leaves it
// pending; the sweeper asks again with the same key. Refunds the gateway reports on its
// own (a notification or a status answer) are recorded once, asked for or not.
//
// Settling writes the refund's status, the order's refunded_amount, at full the order's
// change to `refunded` (history and status events), `refund.succeeded` or
// `refund.failed`, and for a refund that asked to restock the stock change putting the
// order's sold units back (docs/refunds.md#restock), in one transaction with the order
// row locked.
import { randomUUID } from "node:crypto";
import { auditTarget } from "../../common/audit.js";
import type { Actor } from "../../common/actor.js";
import { auditEntry, insertAudit } from "../../platform/audit-log.js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { RefundOrderResponseSchema, type RefundOrderResponse } from "../../gen/order/v1/order_pb.js";
import type { Logger } from "../../platform/logger.js";
import { refundEvent } from "./events.js";
import { refundAmount, refundableLeft, refundMethodOf, requireAllowed } from "./order-actions.js";
import { reportedRefunds, type ReportedRefund } from "./notifications.js";
import type { PaymentGateway, RefundAnswer } from "./payment-gateways/types.js";
import { renderOrder, renderRefund, type RenderContext } from "./messages.js";
import type { StatusChanges } from "./status-changes.js";
import { type Db, type Sql, transaction } from "../../platform/db.js";
import { addRefundedAmount, findOrder, itemsOf, touchOrder, type OrderRow, type OrderScope } from "./db/orders.js";
import { insertEvents } from "./db/outbox.js";
import { claimDueRefunds, findRefund, findRefundByIdempotencyKey, insertRefund, keepRefundResponse, type RefundRow, refundsOf, type RefundStatus, retryRefundAt, settleRefund } from "./db/refunds.js";
import { liveSessionsOf } from "./db/sessions.js";
import { insertStockChanges } from "./db/stock-changes.js";
import { restockChange } from "./stock.js";

/** While the request that wrote a gateway refund is asking the gateway, the sweeper leaves it alone. */
export const REFUND_REQUEST_LEASE_MS = 60_000;
/** Waits between attempts at a refund the gateway could not be reached for; the last repeats. */
export const REFUND_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000];
/** Pending refunds one instance sends again per sweep, all at once (each within the gateway's timeout, well inside the lease). */
export const REFUNDS_PER_SWEEP = 4;
/** A replay of an Idempotency-Key whose first request has not answered is "in flight" this long; later it answers with the refund as it is. */
export const REFUND_IN_FLIGHT_MS = 30_000;

export function retryDelay(attempts: number, delays: readonly number[] = REFUND_RETRY_DELAYS_MS): number {
  return delays[Math.min(attempts, delays.length - 1)]!;
}

export type ReplayDecision = { kind: "replay"; response: Uint8Array } | { kind: "current" } | { kind: "refuse"; message: string };

/** What a request with an Idempotency-Key that a refund already holds gets. */
export function replayDecision(existing: Pick<RefundRow, "request_hash" | "response" | "created_at">, requestHash: string, now = Date.now()): ReplayDecision {
  if (existing.request_hash !== requestHash) return { kind: "refuse", message: "Idempotency-Key was already used with a different request" };
  if (existing.response) return { kind: "replay", response: existing.response };
  if (now - existing.created_at.getTime() < REFUND_IN_FLIGHT_MS) return { kind: "refuse", message: "a request with this Idempotency-Key is still in flight" };
  // The first request died before answering; its refund is the sweeper's now.
  return { kind: "current" };
}

export interface RefundInput {
  storeId: string;
  orderId: string;
  amount?: number;
  reason: string;
  reference?: string;
  idempotencyKey?: string;
  requestHash: string;
  /** Test data instead of live (docs/keys.md#test-mode). */
  testMode?: boolean;
  /** Put the order's sold units back once the refund succeeds (docs/refunds.md#restock). */
  restock?: boolean;
}

/** Another request took the Idempotency-Key between our look and our write. */
class KeyTaken extends Error {}

export function createRefunds(deps: {
  sql: Sql;
  gateway: Pick<PaymentGateway, "refund" | "status">;
  statusChanges: StatusChanges;
  render: RenderContext;
  logger: Logger;
  retryDelaysMs?: readonly number[];
  onEventsCommitted?: () => void;
}) {
  const { sql, statusChanges, render, logger } = deps;
  // A test order's refund goes to the sandbox, like its payment (docs/keys.md#test-mode).
  const gatewayOf = (refund: Pick<RefundRow, "livemode">) => (refund.livemode ? deps.gateway : render.testGateway);
  const committed = <T>(result: T): T => {
    deps.onEventsCommitted?.();
    return result;
  };

  async function lockOrder(tx: Db, orderId: string, scope: OrderScope = {}): Promise<OrderRow> {
    const row = await findOrder(tx, orderId, { ...scope, forUpdate: true });
    if (!row) throw new ConnectError(`order ${orderId} not found`, Code.NotFound);
    return row;
  }

  /**
   * Settles a pending refund (or one in `from`) in the caller's transaction, the order
   * row locked by the caller: nothing when it is in none of those (settled once).
   * Returns the refund as it now is. A success that would take the order past its
   * amount is written failed instead, loudly: only a gateway's report could ask for it.
   */
  async function settle(
    tx: Db,
    order: OrderRow,
    refundId: string,
    outcome: { status: "succeeded" | "failed"; failure_message?: string; gateway_key?: string },
    from: RefundStatus[] = ["pending"],
  ): Promise<RefundRow | undefined> {
    const current = await findRefund(tx, refundId, true);
    if (!current || !from.includes(current.status)) return undefined;
    let final = outcome;
    if (outcome.status === "succeeded" && order.refunded_amount + current.amount > order.amount) {
      logger.error({ orderId: order.id, refundId, amount: current.amount, refunded: order.refunded_amount }, "a refund would take the refunded amount past the order's amount: recorded as failed; check it at the gateway");
      if (current.status === "failed") return undefined;
      final = { status: "failed", failure_message: "the refunds would add up to more than the order's amount" };
    }
    const refund = await settleRefund(tx, refundId, final, from);
    if (!refund) return undefined;
    // The order shows its refunds, so settling one changes the order (docs/orders.md#syncing).
    let row = refund.status === "succeeded" ? order : await touchOrder(tx, order.id);
    if (refund.status === "succeeded") {
      row = await addRefundedAmount(tx, order.id, refund.amount);
      // A refund of money that came for a cancelled or expired order leaves its status be.
      if (row.refunded_amount >= row.amount && row.status === "paid") row = (await statusChanges.apply(tx, row, "refunded", "refund")).row;
    }
    const message = await statusChanges.orderMessage(tx, row);
    // Independent writes of one transaction: one round trip.
    await Promise.all([insertEvents(tx, [refundEvent(refund, message, renderRefund(refund))]), insertStockChanges(tx, restockChange(order, refund))]);
    logger.info({ orderId: order.id, refundId, amount: refund.amount, method: refund.method, status: refund.status, failure: refund.failure_message ?? undefined }, "refund settled");
    return refund;
  }

  /**
   * A refusal of a refund we sent before: the earlier attempt may have gone through
   * with its answer lost, and a gateway may refuse the repeat rather than answer it
   * again. Its status answer says whether a refund with our key was made.
   */
  async function confirmRefusal(refund: RefundRow, paymentReference: string, refusal: RefundAnswer): Promise<RefundAnswer> {
    const gateway = gatewayOf(refund);
    if (refund.attempts === 0 || !gateway.status) return refusal;
    const status = await gateway.status(paymentReference);
    const made = status.kind === "found" && reportedRefunds(status.fields.refunds).some((reported) => reported.key === refund.id);
    return made ? { kind: "succeeded" } : refusal;
  }

  /** Asks the gateway for a pending refund and settles it with the answer, or leaves it for a retry. */
  async function attempt(refund: RefundRow, paymentReference: string): Promise<void> {
    let answer: RefundAnswer;
    try {
      answer = await gatewayOf(refund).refund({ orderId: paymentReference, refundKey: refund.id, amount: refund.amount, reason: refund.reason });
      if (answer.kind === "refused") answer = await confirmRefusal(refund, paymentReference, answer);
    } catch (error) {
      const at = new Date(Date.now() + retryDelay(refund.attempts, deps.retryDelaysMs));
      await retryRefundAt(sql, refund.id, at);
      logger.warn({ orderId: refund.order_id, refundId: refund.id, attempts: refund.attempts + 1, retryAt: at.toISOString(), err: (error as Error).message }, "refund left pending: the payment gateway could not be reached; will retry with the same refund key");
      return;
    }
    const outcome =
      answer.kind === "succeeded"
        ? { status: "succeeded" as const, ...(answer.gatewayRefundId === undefined ? {} : { gateway_key: answer.gatewayRefundId }) }
        : { status: "failed" as const, failure_message: answer.message };
    committed(await transaction(sql, async (tx) => settle(tx, await lockOrder(tx, refund.order_id), refund.id, outcome)));
  }

  /** The answer to a refund request: the refund and the order as they are now. */
  async function respond(refundId: string, replayed = false): Promise<RefundOrderResponse> {
    const refund = (await findRefund(sql, refundId))!;
    const order = (await findOrder(sql, refund.order_id))!;
    const [items, sessions, refunds] = await Promise.all([itemsOf(sql, [order.id]), liveSessionsOf(sql, [order.id]), refundsOf(sql, [order.id])]);
    return create(RefundOrderResponseSchema, {
      refund: renderRefund(refund),
      order: renderOrder(render, order, items.get(order.id)!, sessions.get(order.id), refunds.get(order.id)),
      replayed,
    });
  }

  async function answerExisting(existing: RefundRow, input: RefundInput): Promise<RefundOrderResponse> {
    // The store's keys are one namespace: a key another order's refund holds is a key reused.
    if (existing.order_id !== input.orderId) throw new ConnectError("Idempotency-Key was already used with a different request", Code.AlreadyExists);
    const decision = replayDecision(existing, input.requestHash);
    if (decision.kind === "refuse") throw new ConnectError(decision.message, Code.AlreadyExists);
    if (decision.kind === "replay") return { ...fromBinary(RefundOrderResponseSchema, decision.response), replayed: true };
    return respond(existing.id, true);
  }

  /** POST /v1/orders/{id}/refunds, the dashboard's "Refund" and `store-admin order refund`. */
  async function refund(input: RefundInput, actor: Actor): Promise<RefundOrderResponse> {
    // Of one mode: the other's orders are not found, and its keys are its own.
    const livemode = !input.testMode;
    if (input.idempotencyKey !== undefined) {
      const existing = await findRefundByIdempotencyKey(sql, input.storeId, input.idempotencyKey, livemode);
      if (existing) return answerExisting(existing, input);
    }
    let started: { refund: RefundRow; order: OrderRow };
    try {
      started = committed(
        await transaction(sql, async (tx) => {
          const order = await lockOrder(tx, input.orderId, { storeId: input.storeId, livemode });
          // A request with this key that held the lock before us has answered by now.
          if (input.idempotencyKey !== undefined && (await findRefundByIdempotencyKey(tx, input.storeId, input.idempotencyKey, livemode))) throw new KeyTaken();
          requireAllowed("refund", order);
          const refunds = (await refundsOf(tx, [order.id])).get(order.id)!;
          const amount = refundAmount(input.amount, refundableLeft(order, refunds));
          const method = refundMethodOf(order.payment_kind)!;
          const inserted = await insertRefund(tx, {
            id: randomUUID(),
            store_id: order.store_id,
            order_id: order.id,
            amount,
            reason: input.reason,
            reference: input.reference ?? null,
            status: "pending",
            method,
            gateway_key: null,
            idempotency_key: input.idempotencyKey ?? null,
            request_hash: input.idempotencyKey === undefined ? null : input.requestHash,
            // This request asks the gateway itself; the sweeper takes over if it dies.
            next_attempt_at: method === "gateway" ? new Date(Date.now() + REFUND_REQUEST_LEASE_MS) : null,
            livemode: order.livemode,
            restock: input.restock === true,
          });
          if (!inserted) throw new KeyTaken();
          // A pending refund shows on the order: the order changed (docs/orders.md#syncing).
          if (method === "gateway") await touchOrder(tx, order.id);
          await insertAudit(tx, [auditEntry(order.store_id, actor, "order.refunded", auditTarget("order", order.id), { label: order.payment_reference })]);
          logger.info({ orderId: order.id, refundId: inserted.id, amount, method }, "refund requested");
          // Money the merchant already sent back: recorded as done, in this transaction.
          const settled = method === "manual" ? await settle(tx, order, inserted.id, { status: "succeeded" }) : undefined;
          return { refund: settled ?? inserted, order };
        }),
      );
    } catch (error) {
      if (!(error instanceof KeyTaken)) throw error;
      const existing = await findRefundByIdempotencyKey(sql, input.storeId, input.idempotencyKey!, livemode);
      if (!existing) throw new ConnectError("a request with this Idempotency-Key is still in flight", Code.AlreadyExists);
      return answerExisting(existing, input);
    }
    if (started.refund.status === "pending") await attempt(started.refund, started.order.payment_reference);
    const response = await respond(started.refund.id);
    if (input.idempotencyKey !== undefined) await keepRefundResponse(sql, started.refund.id, toBinary(RefundOrderResponseSchema, response));
    return response;
  }

  /** Asks the gateway again, all at once, for up to REFUNDS_PER_SWEEP pending refunds that are due; returns how many. */
  async function retryDue(): Promise<number> {
    const due = await claimDueRefunds(sql, REFUNDS_PER_SWEEP, REFUND_REQUEST_LEASE_MS);
    await Promise.all(
      due.map(async (refund) => {
        const order = await findOrder(sql, refund.order_id);
        if (order) await attempt(refund, order.payment_reference);
      }),
    );
    return due.length;
  }

  /**
   * Records what the gateway says it refunded on the order (a `refund`/`partial_refund`
   * notification, or a status answer), each refund once. One we asked for (its key is
   * our refund's id, or the gateway's id we kept) is settled as succeeded, even one we
   * had recorded as failed. Another is written as a succeeded gateway refund, but only
   * for what the gateway's total says is beyond what we already know of, so one refund
   * reported under two keys is not counted twice. With no list, a `refund_amount` above
   * what we know of is recorded as one refund of the difference. Returns how many
   * refunds changed.
   */
  async function recordReported(orderId: string, reported: ReportedRefund[], totalReported?: number): Promise<number> {
    return committed(
      await transaction(sql, async (tx) => {
        let order = await lockOrder(tx, orderId);
        // Only money we took can come back; the status machine would refuse the rest too.
        if (order.status !== "paid" && order.status !== "refunded") {
          logger.warn({ orderId, status: order.status }, "the gateway reports a refund on an order that is not paid: nothing recorded");
          return 0;
        }
        let known = (await refundsOf(tx, [order.id])).get(order.id)!;
        const ownOf = (entry: ReportedRefund) => known.find((refund) => refund.id === entry.key || refund.gateway_key === entry.key);
        const total = totalReported ?? (reported.length > 0 ? reported.reduce((sum, entry) => sum + entry.amount, 0) : undefined);
        const entries = [...reported];
        if (entries.length === 0 && total !== undefined) entries.push({ key: `refund_amount:${total}`, amount: total - refundsTotal(known) });
        // Ours first: a report of our own refund must not be taken for an unknown one.
        entries.sort((a, b) => Number(ownOf(b) !== undefined) - Number(ownOf(a) !== undefined));
        let changed = 0;
        for (const entry of entries) {
          const ours = ownOf(entry);
          let refundId: string;
          if (ours) {
            if (ours.status === "succeeded") continue;
            if (ours.status === "failed") logger.error({ orderId, refundId: ours.id }, "the gateway reports a refund we recorded as failed: recorded as succeeded");
            refundId = ours.id;
          } else {
            const amount = Math.min(entry.amount, (total ?? Number.POSITIVE_INFINITY) - refundsTotal(known), refundableLeft(order, known));
            if (amount < 1) continue; // already known under another key, or beyond the order
            const inserted = await insertRefund(tx, {
              id: randomUUID(),
              store_id: order.store_id,
              order_id: order.id,
              amount,
              reason: entry.reason || "refunded at the payment gateway",
              reference: null,
              status: "pending",
              method: "gateway",
              gateway_key: entry.key,
              idempotency_key: null,
              request_hash: null,
              next_attempt_at: null,
              livemode: order.livemode,
              // Made at the gateway, not asked for here: nothing says to put units back.
              restock: false,
            });
            if (!inserted) continue;
            refundId = inserted.id;
            logger.warn({ orderId, refundId, amount }, "the gateway reports a refund we did not ask for: recorded");
          }
          if (await settle(tx, order, refundId, { status: "succeeded" }, ["pending", "failed"])) changed++;
          order = (await findOrder(tx, order.id))!;
          known = (await refundsOf(tx, [order.id])).get(order.id)!;
        }
        return changed;
      }),
    );
  }

  return { refund, retryDue, recordReported, settle };
}

/** What the order's refunds that succeeded or are under way add up to. */
function refundsTotal(refunds: Pick<RefundRow, "status" | "amount">[]): number {
  return refunds.filter((refund) => refund.status !== "failed").reduce((sum, refund) => sum + refund.amount, 0);
}

export type Refunds = ReturnType<typeof createRefunds>;
