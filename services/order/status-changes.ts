// Writing one status change (docs/orders.md#history): the rule comes from status-machine.ts, the
// event bodies from events.ts, the transfer amount's reservation from bank-matching.ts,
// the stock change from stock.ts; this writes the new status, a history row, the outbox
// events, the reservation and the stock change, all in the caller's transaction.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Order } from "../../gen/order/v1/order_pb.js";
import type { Logger } from "../../platform/logger.js";
import { reservationAfter } from "./bank-matching.js";
import { statusChangeEvents } from "./events.js";
import { renderOrder, type RenderContext } from "./messages.js";
import { checkTransition, type OrderStatus } from "./status-machine.js";
import type { Db } from "../../platform/db.js";
import { insertHistoryAndEvents, itemsOf, type OrderRow, updateStatuses } from "./db/orders.js";
import { refundsOf } from "./db/refunds.js";
import { liveSessionsOf } from "./db/sessions.js";
import { insertStockChanges } from "./db/stock-changes.js";
import { holdTransferAmounts } from "./db/transfer-amounts.js";
import { stockChangesForStatus } from "./stock.js";

/** What a history row says beyond its cause: what the cause refers to, and for a bank payment the amount it brought. */
export interface HistoryDetail {
  detail?: string;
  amountReceived?: number;
}

export interface StatusChangeResult {
  row: OrderRow;
  changed: boolean;
}

export function createStatusChanges(deps: {
  render: RenderContext;
  logger: Logger;
  /** How long an expired or cancelled order keeps its transfer amount (BANK_MATCH_GRACE). */
  bankMatchGraceMs: number;
  /**
   * Whether the gateway can expire a transaction (Midtrans): then an expired or
   * cancelled gateway order is expired there too, so the buyer cannot pay it after.
   */
  gatewayExpires?: boolean;
}) {
  const { render, logger } = deps;

  /** The orders as events show them, read in the caller's transaction, in the order of `rows`. */
  async function orderMessages(tx: Db, rows: OrderRow[]): Promise<Order[]> {
    const ids = rows.map((row) => row.id);
    const [items, sessions, refunds] = await Promise.all([itemsOf(tx, ids), liveSessionsOf(tx, ids), refundsOf(tx, ids)]);
    return rows.map((row) => renderOrder(render, row, items.get(row.id)!, sessions.get(row.id), refunds.get(row.id)));
  }

  /** The order as events show it, read in the caller's transaction. */
  async function orderMessage(tx: Db, row: OrderRow): Promise<Order> {
    return (await orderMessages(tx, [row]))[0]!;
  }

  /**
   * Writes `row → to` in the caller's transaction (`row` locked by the caller), with
   * `detail` in the history row when the cause refers to something (a bank mutation
   * id, or that and the amount it brought). Returns the row unchanged for a repeat;
   * refuses the rest with FAILED_PRECONDITION.
   */
  async function apply(tx: Db, row: OrderRow, to: OrderStatus, cause: string, detail?: string | HistoryDetail): Promise<StatusChangeResult> {
    return (await applyMany(tx, [row], to, cause, detail))[0]!;
  }

  /**
   * apply for many locked rows at once, in a fixed number of statements however many
   * there are (the expiry sweeper's batches): every row is checked first, so one refused
   * change writes nothing. Results in the order of `rows`.
   */
  async function applyMany(tx: Db, rows: OrderRow[], to: OrderStatus, cause: string, detail?: string | HistoryDetail): Promise<StatusChangeResult[]> {
    const note = typeof detail === "string" ? { detail } : { detail: detail?.detail, amount_received: detail?.amountReceived };
    for (const row of rows) {
      if (checkTransition(row.status, to).kind === "refused") {
        throw new ConnectError(`order ${row.payment_reference} cannot go from ${row.status} to ${to}`, Code.FailedPrecondition);
      }
    }
    const changing = rows.filter((row) => checkTransition(row.status, to).kind !== "repeat");
    if (changing.length === 0) return rows.map((row) => ({ row, changed: false }));
    // A test order's gateway is the sandbox, which has nothing to expire (test-mode.ts).
    const expiresAtGateway = (row: OrderRow) => deps.gatewayExpires === true && row.livemode && row.payment_kind === "gateway" && (to === "expired" || to === "cancelled");
    const updated = await updateStatuses(tx, changing.map((row) => ({ id: row.id, expireAtGateway: expiresAtGateway(row) })), to);
    const rendered = await orderMessages(tx, changing.map((row) => updated.get(row.id)!));
    const events = changing.flatMap((row, i) => statusChangeEvents(updated.get(row.id)!, rendered[i]!, row.status));
    const holds = changing.flatMap((row) => {
      const until = reservationAfter(updated.get(row.id)!, to, deps.bankMatchGraceMs);
      return until === undefined ? [] : [{ orderId: row.id, until }];
    });
    // Independent writes of one transaction: one round trip.
    await Promise.all([
      insertHistoryAndEvents(
        tx,
        changing.map((row) => ({ order_id: row.id, from_status: row.status, to_status: to, cause, ...note })),
        events,
      ),
      holdTransferAmounts(tx, holds),
      insertStockChanges(tx, stockChangesForStatus(changing, to)),
    ]);
    for (const row of changing) logger.info({ orderId: row.id, from: row.status, to, cause }, "order status changed");
    return rows.map((row) => (updated.has(row.id) ? { row: updated.get(row.id)!, changed: true } : { row, changed: false }));
  }

  return { apply, applyMany, orderMessage };
}

export type StatusChanges = ReturnType<typeof createStatusChanges>;
