// The gateway's word (docs/payments.md#notifications, docs/refunds.md): a Midtrans HTTP notification, or the answer of
// its Status API, which carries the same fields. Verify the signature and that the
// amount is the order's, else change nothing; map the transaction status onto the
// status machine; record refunds the gateway reports; acknowledge what the machine
// refuses. Both kinds go through `apply`, so a status check changes an order exactly
// as the notification it stands in for would. The checks are pure functions;
// `createNotifications` looks the order up and applies the change.
//
// A notification's signature covers only order_id, status_code and gross_amount, so a
// signed body can be replayed with another transaction_status (a settlement's as a
// refund). A notification that would move money is therefore never applied on its own
// word when the gateway can be asked: the gateway's status answer is, and only what it
// says. The sandbox has no status to ask; its own signed notifications count.
import { Code, ConnectError } from "@connectrpc/connect";
import { isPaymentReference } from "../../common/ids.js";
import { verifyMidtransSignature } from "../../common/midtrans.js";
import { textProblem } from "../../common/text.js";
import type { Logger } from "../../platform/logger.js";
import type { StatusChangeResult } from "./status-changes.js";
import type { PaymentGateway, StatusAnswer } from "./payment-gateways/types.js";
import type { OrderStatus } from "./status-machine.js";
import type { Sql } from "../../platform/db.js";
import { findOrder, findOrderByReference, type OrderRow } from "./db/orders.js";
import { throwFieldProblems } from "../../platform/field-errors.js";
import { asksGateway } from "./test-mode.js";

export interface MidtransNotification {
  order_id: string;
  status_code: string;
  gross_amount: string;
  signature_key: string;
  transaction_status: string;
  fraud_status?: string;
  /** Refunds the gateway reports (refund and partial_refund, and status answers). */
  refunds: ReportedRefund[];
  /** What the gateway says it has refunded in all, when it says. */
  refund_amount?: number;
}

/** A refund the gateway says it made: keyed by its refund_key (ours, if we asked) or its own id. */
export interface ReportedRefund {
  key: string;
  amount: number;
  reason?: string;
}

/** Transaction statuses that report a refund rather than a change of the order's status. */
export const REFUND_STATUSES = ["refund", "partial_refund"];

/**
 * Whether a notification would move money: pay the order, or record a refund. Only
 * these wait for the gateway's status answer; the others (pending, deny, failure,
 * cancel, expire) take no money in and give none back.
 */
export function movesMoney(n: Pick<MidtransNotification, "transaction_status" | "fraud_status">): boolean {
  return statusFromMidtrans(n) === "paid" || REFUND_STATUSES.includes(n.transaction_status);
}

/** "150000.00" → 150000; anything that is not a whole rupiah amount → undefined. */
export function parseGrossAmount(text: string): number | undefined {
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  if (match[2] && Number(match[2]) !== 0) return undefined;
  return Number(match[1]);
}

/** An amount as Midtrans writes it ("150000.00", or a number in a status answer); anything else → undefined. */
function amountOf(value: unknown): number | undefined {
  return typeof value === "string" || typeof value === "number" ? parseGrossAmount(String(value)) : undefined;
}

/** What a Midtrans transaction status means for the order; undefined = no change. */
export function statusFromMidtrans(n: Pick<MidtransNotification, "transaction_status" | "fraud_status">): OrderStatus | undefined {
  switch (n.transaction_status) {
    case "settlement":
      return "paid";
    case "capture":
      return n.fraud_status === undefined || n.fraud_status === "accept" ? "paid" : undefined;
    case "deny":
    case "failure":
      return "failed";
    case "cancel":
      return "cancelled";
    case "expire":
      return "expired";
    default:
      // "pending", "authorize", anything new: nothing to do yet. "refund" and
      // "partial_refund" are recorded as refunds (refunds.ts), which turn the order
      // refunded when they add up to its amount.
      return undefined;
  }
}

/** The gateway's refunds in a notification or status answer: `refunds[]` entries keyed by refund_key, else the gateway's own id. */
export function reportedRefunds(list: unknown): ReportedRefund[] {
  if (!Array.isArray(list)) return [];
  const found: ReportedRefund[] = [];
  for (const entry of list) {
    if (typeof entry !== "object" || entry === null) continue;
    const e = entry as Record<string, unknown>;
    const key = [e.refund_key, e.refund_chargeback_id].find(
      (value): value is string | number => (typeof value === "string" && value !== "") || typeof value === "number",
    );
    const amount = amountOf(e.refund_amount);
    if (key === undefined || amount === undefined || amount < 1) continue;
    found.push({ key: String(key), amount, ...(typeof e.reason === "string" && e.reason !== "" ? { reason: e.reason.slice(0, 200) } : {}) });
  }
  return found;
}

/** Reads a notification's (or status answer's) fields; undefined when a required one is missing. */
export function midtransFields(value: unknown): MidtransNotification | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const n = value as Record<string, unknown>;
  const text = (field: string) => (typeof n[field] === "string" ? n[field] : undefined);
  const orderId = text("order_id");
  const statusCode = text("status_code");
  const gross = typeof n.gross_amount === "number" ? String(n.gross_amount) : text("gross_amount");
  const signature = text("signature_key");
  const status = text("transaction_status");
  if (!orderId || !statusCode || !gross || !signature || !status) return undefined;
  const refundAmount = amountOf(n.refund_amount);
  return {
    order_id: orderId,
    status_code: statusCode,
    gross_amount: gross,
    signature_key: signature,
    transaction_status: status,
    fraud_status: text("fraud_status"),
    refunds: reportedRefunds(n.refunds),
    ...(refundAmount === undefined ? {} : { refund_amount: refundAmount }),
  };
}

/** Parses a notification body; undefined when a required field is missing. */
export function parseMidtransNotification(body: Uint8Array): MidtransNotification | undefined {
  try {
    return midtransFields(JSON.parse(Buffer.from(body).toString("utf8")));
  } catch {
    return undefined;
  }
}

/**
 * A notification the order service may act on: a known provider, a Midtrans body,
 * signed with our server key (else UNAUTHENTICATED), and whose other text is text.
 * Throws INVALID_ARGUMENT otherwise.
 */
export function readNotification(provider: string, body: Uint8Array, serverKey: string): MidtransNotification {
  if (provider !== "midtrans") throw new ConnectError(`unknown provider ${provider}`, Code.InvalidArgument);
  return verifiedFields(parseMidtransNotification(body), serverKey);
}

/** Fields signed with our server key (else UNAUTHENTICATED) whose other text is text. */
export function verifiedFields(notification: MidtransNotification | undefined, serverKey: string): MidtransNotification {
  if (!notification) throw new ConnectError("not a Midtrans notification", Code.InvalidArgument);
  if (!verifyMidtransSignature(notification, serverKey)) {
    throw new ConnectError("bad notification signature", Code.Unauthenticated);
  }
  // Signed, so the sender holds our server key; its other text still has to be text.
  const problems = (["status_code", "gross_amount", "transaction_status", "fraud_status"] as const).flatMap((field) => {
    const problem = notification[field] === undefined ? undefined : textProblem(notification[field]);
    return problem ? [{ field, description: problem }] : [];
  });
  throwFieldProblems(problems);
  return notification;
}

/**
 * The gateway's status answer about the transaction `reference`: a notification's
 * fields, signed with our server key (else UNAUTHENTICATED), and about that transaction
 * (else INVALID_ARGUMENT), so an answer can never move another order.
 */
export function verifiedAnswer(fields: Record<string, unknown>, reference: string, serverKey: string): MidtransNotification {
  const answer = verifiedFields(midtransFields(fields), serverKey);
  if (answer.order_id !== reference) throw new ConnectError("the status answer is about another transaction", Code.InvalidArgument);
  return answer;
}

/** Whether the notification is for this order's amount (to the rupiah). */
export function amountMatches(notification: Pick<MidtransNotification, "gross_amount">, orderAmount: number): boolean {
  return parseGrossAmount(notification.gross_amount) === orderAmount;
}

/**
 * How a notification the status machine refused is acknowledged in the log. Money
 * that arrived for an order the store cancelled stays cancelled by the machine, so a
 * person must refund it.
 */
export function refusalLog(target: OrderStatus, current: OrderStatus | undefined): { level: "error" | "warn"; message: string } {
  return target === "paid" && current === "cancelled"
    ? { level: "error", message: "payment received for a cancelled order: refund needed" }
    : { level: "warn", message: "notification refused by the status machine" };
}

export interface NotificationOutcome {
  orderId: string;
  status: string;
  changed: boolean;
}

/** The cause a status check writes into the order's history (docs/refunds.md#when-the-gateway-is-silent); the transaction status goes in its detail. */
export const STATUS_CHECK_CAUSE = "gateway status check";
/** The history detail of a change a notification asked for and the gateway's status answer confirmed. */
export const CONFIRMED_DETAIL = "confirmed by the gateway's status answer";

/**
 * What asking the gateway about an order came to: `away` (no answer: unreachable, timed
 * out, 5xx…), `no_transaction` (the gateway has none for the order), `rejected` (an
 * answer that is not the gateway's word about this order: bad signature, another
 * amount or transaction), or `applied` with what the answer did.
 */
export type GatewayWord =
  | { kind: "away"; reason: string }
  | { kind: "no_transaction" }
  | { kind: "rejected"; reason: string }
  | { kind: "applied"; transactionStatus: string; outcome: NotificationOutcome };

/** Errors that say the answer was not the gateway's word about the order, rather than that we could not apply it. */
const ANSWER_PROBLEMS = [Code.Unauthenticated, Code.InvalidArgument, Code.NotFound];

export function createNotifications(deps: {
  sql: Sql;
  logger: Logger;
  midtransServerKey: string;
  /** The gateway's Status API; absent (the sandbox) when there is nothing to ask. */
  gateway: Pick<PaymentGateway, "status">;
  changeStatus: (orderId: string, to: OrderStatus, cause: string, detail?: string) => Promise<StatusChangeResult>;
  recordRefunds: (orderId: string, reported: ReportedRefund[], totalReported?: number) => Promise<number>;
  /** A notification left the order pending: the gateway is not silent, so its next status check moves on. */
  onPendingWord?: (row: OrderRow) => Promise<void>;
  /** A notification that would move money could not be confirmed (no answer, or none that could be verified): ask again soon. */
  onUnconfirmed?: (row: OrderRow) => Promise<void>;
}) {
  const { sql, logger } = deps;

  /** The gateway order a notification names; NOT_FOUND for anything else. */
  async function orderOf(notification: MidtransNotification): Promise<OrderRow> {
    // An order_id that cannot be a reference is simply not one of ours.
    const row = isPaymentReference(notification.order_id) ? await findOrderByReference(sql, notification.order_id) : undefined;
    if (!row || row.payment_kind !== "gateway") {
      throw new ConnectError("no gateway order has this order_id", Code.NotFound);
    }
    return row;
  }

  /** The order a notification names, if the notification is for its amount (else INVALID_ARGUMENT). */
  async function matchingOrder(notification: MidtransNotification): Promise<OrderRow> {
    const row = await orderOf(notification);
    if (!amountMatches(notification, row.amount)) {
      logger.warn({ orderId: row.id }, "notification amount does not match the order");
      throw new ConnectError("gross_amount does not match the order amount", Code.InvalidArgument);
    }
    return row;
  }

  /** A Midtrans HTTP notification, as received. */
  async function handle(provider: string, body: Uint8Array): Promise<NotificationOutcome> {
    const notification = readNotification(provider, body, deps.midtransServerKey);
    // A test order's notifications come from the sandbox's pages, which Midtrans knows
    // nothing of: they count on their own word, as in sandbox mode (test-mode.ts).
    const confirm = movesMoney(notification) && deps.gateway.status !== undefined && asksGateway(await orderOf(notification), deps.gateway);
    const outcome = confirm ? await confirmed(notification) : await apply(notification, `midtrans ${notification.transaction_status}`);
    if (outcome.status === "pending" && deps.onPendingWord) {
      const row = await findOrder(sql, outcome.orderId);
      if (row?.status === "pending") await deps.onPendingWord(row);
    }
    return outcome;
  }

  /**
   * A notification that would move money, applied as the gateway's status answer says:
   * a replayed or altered one changes nothing the gateway does not confirm. With the
   * gateway away it is not applied: UNAVAILABLE, so the sender tries again later.
   */
  async function confirmed(notification: MidtransNotification): Promise<NotificationOutcome> {
    const row = await matchingOrder(notification);
    const word = await askGateway(row, "notification");
    const claimed = { orderId: row.id, claimed: notification.transaction_status };
    switch (word.kind) {
      case "applied":
        if (word.transactionStatus !== notification.transaction_status) {
          logger.warn({ ...claimed, confirmed: word.transactionStatus }, "notification differs from the gateway's status answer: the answer was applied");
        }
        return word.outcome;
      case "no_transaction":
        logger.warn(claimed, "notification not confirmed: the gateway has no transaction for the order; nothing changed");
        return { orderId: row.id, status: row.status, changed: false };
      case "rejected":
        logger.error({ ...claimed, err: word.reason }, "notification not applied: the gateway's status answer could not be verified; will be asked again");
        break;
      case "away":
        logger.warn({ ...claimed, err: word.reason }, "notification not applied yet: the payment gateway could not be asked to confirm it; Midtrans will send it again");
        break;
    }
    await deps.onUnconfirmed?.(row);
    throw new ConnectError("the payment gateway could not confirm this notification; send it again later", Code.Unavailable);
  }

  /**
   * Asks the gateway about the order and applies its answer: the one path for a status
   * check and for a notification it confirms. A status check's history names the check
   * (the transaction status in its detail); a confirmed notification's names the
   * transaction status the gateway confirmed. Errors applying a verified answer (our
   * database away) are thrown.
   */
  async function askGateway(row: OrderRow, via: "status check" | "notification"): Promise<GatewayWord> {
    let answer: StatusAnswer;
    try {
      answer = await deps.gateway.status!(row.payment_reference);
    } catch (error) {
      return { kind: "away", reason: (error as Error).message };
    }
    if (answer.kind === "not_found") return { kind: "no_transaction" };
    try {
      const word = verifiedAnswer(answer.fields, row.payment_reference, deps.midtransServerKey);
      const status = word.transaction_status;
      const outcome = via === "status check" ? await apply(word, STATUS_CHECK_CAUSE, status) : await apply(word, `midtrans ${status}`, CONFIRMED_DETAIL);
      return { kind: "applied", transactionStatus: status, outcome };
    } catch (error) {
      if (error instanceof ConnectError && ANSWER_PROBLEMS.includes(error.code)) return { kind: "rejected", reason: error.message };
      throw error;
    }
  }

  async function apply(notification: MidtransNotification, cause: string, detail?: string): Promise<NotificationOutcome> {
    const row = await matchingOrder(notification);
    if (REFUND_STATUSES.includes(notification.transaction_status)) {
      // A full refund that says no amount refunded the whole order.
      const total = notification.refund_amount ?? (notification.transaction_status === "refund" ? row.amount : undefined);
      const changed = await deps.recordRefunds(row.id, notification.refunds, total);
      const current = await findOrder(sql, row.id);
      return { orderId: row.id, status: current!.status, changed: changed > 0 };
    }
    const target = statusFromMidtrans(notification);
    if (!target) return { orderId: row.id, status: row.status, changed: false };
    try {
      const result = await deps.changeStatus(row.id, target, cause, detail);
      return { orderId: row.id, status: result.row.status, changed: result.changed };
    } catch (error) {
      // A refused transition is still a delivered notification: acknowledge it, or
      // the gateway would retry it forever.
      if (error instanceof ConnectError && error.code === Code.FailedPrecondition) {
        const current = await findOrder(sql, row.id);
        const log = refusalLog(target, current?.status);
        if (log.level === "error") {
          logger.error({ orderId: row.id, paymentReference: row.payment_reference }, log.message);
        } else {
          logger.warn({ orderId: row.id, target }, log.message);
        }
        return { orderId: row.id, status: current!.status, changed: false };
      }
      throw error;
    }
  }

  return { handle, askGateway };
}

export type Notifications = ReturnType<typeof createNotifications>;
