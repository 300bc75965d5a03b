// Sends the mail buyers are owed (docs/payments.md#buyer-mail). The rows come from the
// outbox trigger of 016_buyer_mails.sql, so a mail is owed exactly when the change that
// calls for it commits; this worker sends each one once.
//
// Each mail is claimed alone in its own transaction (FOR UPDATE SKIP LOCKED: several
// workers share the table without sending one mail twice), sent while the row stays
// locked, and marked in that same transaction. What at-most-once cannot close: a crash
// (or a lost connection) after the mail server accepted the mail and before the commit
// sends it again. Its Message-ID is the same every time, made from the order, the kind
// and the refund, so the buyer's mail client can tell it is the same mail.
//
// A mail server that is away delays mail: the attempt fails, is logged, and is tried
// again later at growing delays; nothing here touches an order. Logs name the kind, the
// order and the store, and the buyer's address only masked; never a body.
import type { Client } from "@connectrpc/connect";
import type { StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { isLanguage } from "../../common/i18n/index.js";
import { transaction, type Db, type Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import { describeMailFailure, isPermanent, maskAddress, type Mailer } from "../../platform/mail.js";
import { renderBuyerMail, type BuyerMailOrder } from "./buyer-mail-templates.js";
import { lockDueBuyerMail, markBuyerMailFailed, markBuyerMailSent, markBuyerMailSkipped, type BuyerMailRow } from "./db/buyer-mails.js";
import { findOrderWithItems, type OrderRow, type OrderItemRow } from "./db/orders.js";
import { checkoutUrl, type RenderContext } from "./messages.js";
import { startRelayLoop } from "./relay-loop.js";

/**
 * Waits before the 2nd, 3rd, … attempt: 5 s, 30 s, 2 min, 10 min, 30 min, then hourly
 * doubling to 8 h; after the last one (about 16 hours on) the mail is given up. A late
 * receipt is still worth sending; one a day late is not.
 */
export const BUYER_MAIL_RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000];

export interface BuyerMailDeps {
  /** The order service's pool. */
  sql: Sql;
  logger: Logger;
  mailer: Pick<Mailer, "deliver">;
  /** GetStore: the store's email_buyers and buyer_language, asked at each mail. */
  stores: Pick<Client<typeof StoreService>, "getStore">;
  render: RenderContext;
  /** BUYER_REMINDER_BEFORE */
  reminderBeforeMs: number;
  /** The slow timer between kicks (default 2 s). */
  pollMs?: number;
  retryDelaysMs?: readonly number[];
}

type Outcome = { sent: Record<string, unknown> } | { skipped: string };

export function startBuyerMail(deps: BuyerMailDeps) {
  const { sql, logger, reminderBeforeMs } = deps;
  const delays = deps.retryDelaysMs ?? BUYER_MAIL_RETRY_DELAYS_MS;
  const host = new URL(deps.render.publicBaseUrl).hostname || "localhost";

  /** One due mail, claimed, attempted and settled; false when none was due. */
  async function sendOne(): Promise<boolean> {
    return transaction(sql, async (tx) => {
      const row = await lockDueBuyerMail(tx, reminderBeforeMs);
      if (!row) return false;
      const about = { kind: row.kind, orderId: row.order_id, storeId: row.store_id, attempt: row.attempts + 1 };
      try {
        const outcome = await attempt(tx, row);
        if ("skipped" in outcome) {
          await markBuyerMailSkipped(tx, row.id, outcome.skipped);
          logger.info({ ...about, reason: outcome.skipped }, "buyer mail skipped");
        } else {
          await markBuyerMailSent(tx, row.id);
          logger.info({ ...about, ...outcome.sent }, "buyer mail sent");
        }
      } catch (thrown) {
        // A server's reply may quote the recipient ("550 <budi@…>: no such user").
        const described = describeMailFailure(thrown);
        const error = { ...described, message: maskAddresses(String(described.message)) };
        const delay = delays[row.attempts];
        const givenUp = isPermanent(thrown) || delay === undefined;
        await markBuyerMailFailed(tx, row.id, error.message.slice(0, 500), givenUp ? null : new Date(Date.now() + delay));
        if (givenUp) logger.error({ ...about, reason: isPermanent(thrown) ? "refused for good" : "out of retries", error }, "buyer mail not delivered");
        else logger.warn({ ...about, retryInMs: delay, error }, "buyer mail not delivered; will retry");
      }
      return true;
    });
  }

  async function attempt(tx: Db, row: BuyerMailRow): Promise<Outcome> {
    const found = await findOrderWithItems(tx, row.order_id);
    if (!found) return { skipped: "order not found" };
    const order = found.row;
    if (!order.livemode) return { skipped: "test order" };
    // "What to pay" and its reminder are moot once the order is paid, cancelled or lapsed.
    const stillPending = order.status === "pending" && order.expires_at.getTime() > Date.now();
    if ((row.kind === "received" || row.kind === "reminder") && !stillPending) return { skipped: `order is ${order.status}` };
    // A payment window no longer than the reminder's lead: "order received" already said the deadline.
    if (row.kind === "reminder" && order.expires_at.getTime() - reminderBeforeMs <= order.created_at.getTime()) {
      return { skipped: "payment window shorter than BUYER_REMINDER_BEFORE" };
    }
    const refund = row.refund_id ? found.refunds.find((r) => r.id === row.refund_id) : undefined;
    if (row.kind === "refund" && !refund) return { skipped: "refund not found" };

    // The store's word as it is now: a merchant who turns mail off stops what is still waiting.
    const { store } = await deps.stores.getStore({ id: row.store_id });
    if (!store?.emailBuyers) return { skipped: "email_buyers off" };
    const language = isLanguage(store.buyerLanguage) ? store.buyerLanguage : "id";

    const mail = renderBuyerMail(
      row.kind,
      language,
      mailOrder(deps.render, order, found.items),
      refund && { amount: Number(refund.amount), reason: refund.reason, createdAt: refund.created_at.toISOString() },
    );
    const sent = await deps.mailer.deliver({
      to: order.buyer_email,
      ...mail,
      kind: `buyer-${row.kind}`,
      messageId: `<${["buyer", row.kind, row.order_id, row.refund_id].filter(Boolean).join(".")}@${host}>`,
    });
    return { sent: { to: maskAddress(order.buyer_email), ...sent } };
  }

  // When to look for due mail is the relays' rule (relay-loop.ts): a kick after each
  // commit, a slow timer, backoff while the database or the catalog is away. A delivery
  // may wait on a slow mail server, so a run is given up only after a minute.
  return startRelayLoop({
    logger,
    drain: async () => ((await sendOne()) ? 1 : 0),
    batch: 1,
    pollMs: deps.pollMs ?? 2_000,
    batchDeadlineMs: 60_000,
    failureMessage: "buyer mail worker could not run; will retry",
  });
}

function maskAddresses(text: string): string {
  return text.replace(/[^\s<>@"']+@[^\s<>@"']+/g, maskAddress);
}

/**
 * The order as the mail tells it. A gateway order's "pay now" is its checkout page, not
 * the gateway session's page: a session can lapse (PAYMENT_SESSION_TTL) long before the
 * mail is read, or not be made yet when it is sent; the checkout page always leads to a
 * live one.
 */
function mailOrder(render: RenderContext, order: OrderRow, items: OrderItemRow[]): BuyerMailOrder {
  return {
    storeName: order.store_name,
    buyerName: order.buyer_name,
    paymentReference: order.payment_reference,
    checkoutUrl: checkoutUrl(render, order.id),
    amount: Number(order.amount),
    subtotal: Number(order.subtotal),
    paymentMethod: order.payment_method,
    expiresAt: order.expires_at.toISOString(),
    items: items.map((item) => ({ title: item.title, quantity: item.quantity, unitPrice: Number(item.unit_price), lineTotal: Number(item.line_total) })),
    ...(order.payment_kind === "bank_transfer"
      ? {
          bank: {
            bankName: order.bank_name ?? "",
            bankCode: order.bank_code ?? "",
            accountNumber: order.account_number ?? "",
            accountHolder: order.account_holder ?? "",
            transferAmount: Number(order.amount),
            uniqueCode: order.unique_amount_code ?? 0,
          },
        }
      : {}),
    ...(order.payment_kind === "gateway" ? { paymentUrl: checkoutUrl(render, order.id) } : {}),
    ...(order.paid_at ? { paidAt: order.paid_at.toISOString() } : {}),
    refundedAmount: Number(order.refunded_amount ?? 0),
  };
}
