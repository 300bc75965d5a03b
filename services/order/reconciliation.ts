// Bank-transfer reconciliation (docs/reconciliation.md): each incoming mutation is recorded once
// per store and, when it is a credit, matched to the order whose unique transfer amount
// it carries (the decision is bank-matching.ts's); unmatched credits wait for a person
// to assign or dismiss them. Each mode is its own ledger (docs/reconciliation.md#test-mode):
// a test mutation is recorded, matched, listed and reviewed among test orders only.
import { auditTarget } from "../../common/audit.js";
import { amountDifferenceText, amountReceivedText, ASSIGN_ANYWAY_HINT } from "../../common/bank-mutations.js";
import { rupiah } from "../../common/rupiah.js";
import type { Actor } from "../../common/actor.js";
import { auditEntry, insertAudit } from "../../platform/audit-log.js";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { MutationResultSchema, type BankMutation, type MutationResult } from "../../gen/order/v1/bank_pb.js";
import type { Logger } from "../../platform/logger.js";
import { decideMatch, type MatchDecision } from "./bank-matching.js";
import type { Expiry } from "./expiry.js";
import { renderMutation } from "./messages.js";
import type { StatusChanges } from "./status-changes.js";
import { checkTransition } from "./status-machine.js";
import { type Db, type Sql, transaction } from "../../platform/db.js";
import { type BankMutationRow, countUnreviewedMutations, findMutation, insertMutation, listMutations, settleMutation } from "./db/bank-mutations.js";
import { findOrder, findOrderByReference, type OrderRow, transferOrdersFor } from "./db/orders.js";
import type { OrderKey, ValidMutation } from "./validation.js";

/** The history cause of a payment by a bank mutation; the mutation id goes in its detail. */
export const BANK_MUTATION_CAUSE = "bank_mutation";

export interface ReconciliationDeps {
  sql: Sql;
  logger: Logger;
  statusChanges: StatusChanges;
  expiry: Pick<Expiry, "expireIfDue">;
  /** BANK_MATCH_GRACE. */
  bankMatchGraceMs: number;
  /** Called after a transaction that wrote outbox rows commits (wakes the relay). */
  onEventsCommitted?: () => void;
}

type ResultKind = "matched" | "unmatched" | "duplicate" | "ignored";

/** Transactions one reconcile call runs at once: a few of the pool's connections, never most. */
const RECONCILE_CONCURRENCY = 4;

export function createReconciliation(deps: ReconciliationDeps) {
  const { sql, logger, statusChanges, expiry, bankMatchGraceMs: graceMs } = deps;

  /**
   * Pays the order the credit matches, if any, in the caller's transaction. The
   * decision is taken again on the order's locked row: another mutation, a person or
   * the sweeper may have changed it since it was read, and only one payment may win.
   */
  async function matchCredit(tx: Db, storeId: string, livemode: boolean, mutation: ValidMutation, candidates: Promise<OrderRow[]>): Promise<MatchDecision> {
    const orders = await candidates;
    const first = decideMatch(mutation, orders, graceMs);
    if (first.result !== "matched") return first;
    const locked = await findOrder(tx, first.orderId, { storeId, livemode, forUpdate: true });
    if (!locked) throw new Error(`order ${first.orderId} vanished while being matched`);
    const decision = decideMatch(mutation, orders.map((order) => (order.id === locked.id ? locked : order)), graceMs);
    if (decision.result !== "matched") return decision;
    // The mutation's result goes down the same connection as the payment, in one
    // pipeline: both are in this transaction, so neither is kept without the other.
    // Both settle before a failure is thrown: no statement of either is sent after the rollback.
    const outcomes = await Promise.allSettled([
      expiry.expireIfDue(tx, locked).then((row) => statusChanges.apply(tx, row, "paid", BANK_MUTATION_CAUSE, { detail: mutation.id, amountReceived: mutation.amount })),
      settleMutation(tx, storeId, mutation.id, { status: "matched", order_id: decision.orderId }, livemode),
    ]);
    for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
    return decision;
  }

  /**
   * One mutation in one short transaction. The mutation row is written first: a
   * concurrent call carrying the same id waits on its key, then finds it and answers
   * `duplicate` with this one's order.
   */
  async function reconcileOne(storeId: string, livemode: boolean, mutation: ValidMutation, received: { at: Date; position: number }): Promise<MutationResult> {
    const result = (kind: ResultKind, orderId = "", reason = "") =>
      create(MutationResultSchema, { id: mutation.id, result: kind, orderId, reason });
    return transaction(sql, async (tx) => {
      // A credit's candidate orders are read in the same round trip as its row is
      // written (pipelined on the transaction's connection); a duplicate ignores them.
      const candidates = mutation.type === "credit" ? transferOrdersFor(tx, storeId, livemode, mutation.amount, mutation.occurredAt, graceMs) : undefined;
      candidates?.catch(() => {}); // its failure, if any, is the transaction's: awaited below or rolled back with it
      const fresh = await insertMutation(tx, {
        store_id: storeId,
        mutation_id: mutation.id,
        amount: mutation.amount,
        type: mutation.type,
        occurred_at: mutation.occurredAt,
        description: mutation.description,
        status: mutation.type === "debit" ? "ignored" : "unmatched",
        received_at: received.at,
        request_position: received.position,
        livemode,
      });
      if (!fresh) {
        const earlier = await findMutation(tx, storeId, mutation.id, false, livemode);
        if (!earlier) throw new Error(`bank mutation ${mutation.id} conflicted but cannot be read`);
        return result("duplicate", earlier.order_id ?? "");
      }
      if (!candidates) return result("ignored");
      const decision = await matchCredit(tx, storeId, livemode, mutation, candidates);
      if (decision.result === "matched") return result("matched", decision.orderId);
      await settleMutation(tx, storeId, mutation.id, { status: "unmatched", reason: decision.reason }, livemode);
      return result("unmatched", "", decision.reason);
    });
  }

  /**
   * Each mutation in its own transaction, so a batch holds no lock longer than one
   * payment. Mutations of one amount go one after another in request order (the
   * earlier one pays, the later one finds the order paid); different amounts concern
   * different orders, so they run a few at a time, which shares the commits' disk
   * flushes. When one fails (the database went away), no further one starts and those
   * done stay applied; sending the batch again answers them `duplicate`.
   */
  async function reconcile(storeId: string, mutations: ValidMutation[], actor: Actor, livemode = true): Promise<MutationResult[]> {
    // The import is recorded before any of it is applied: whatever it changes has its
    // record, even when the database goes away halfway.
    await insertAudit(sql, [auditEntry(storeId, actor, "bank_mutations.imported", auditTarget("store", storeId))]);
    const receivedAt = new Date();
    const started = receivedAt.getTime();
    const counts: Record<ResultKind, number> = { matched: 0, unmatched: 0, duplicate: 0, ignored: 0 };
    const results = new Array<MutationResult>(mutations.length);
    const byAmount = new Map<number, number[]>();
    for (const [index, mutation] of mutations.entries()) {
      const group = byAmount.get(mutation.amount);
      if (group) group.push(index);
      else byAmount.set(mutation.amount, [index]);
    }
    const queue = [...byAmount.values()];
    let failure: { error: unknown } | undefined;
    let processed = 0;
    const worker = async () => {
      for (let group = queue.shift(); group && !failure; group = queue.shift()) {
        for (const index of group) {
          if (failure) return;
          try {
            const answer = await reconcileOne(storeId, livemode, mutations[index]!, { at: receivedAt, position: index });
            results[index] = answer;
            counts[answer.result as ResultKind]++;
            processed++;
            if (answer.result === "matched") deps.onEventsCommitted?.();
          } catch (error) {
            failure ??= { error };
            return;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(RECONCILE_CONCURRENCY, queue.length) }, worker));
    // Counts only: descriptions are the buyers' words and stay out of logs.
    logger.info({ storeId, mutations: mutations.length, processed, ...counts, ms: Date.now() - started }, "bank mutations reconciled");
    if (failure) throw failure.error;
    return results;
  }

  /** The mutation, locked, if it waits for review; NOT_FOUND or FAILED_PRECONDITION otherwise. */
  async function lockForReview(tx: Db, storeId: string, mutationId: string, livemode: boolean): Promise<BankMutationRow> {
    const mutation = await findMutation(tx, storeId, mutationId, true, livemode);
    if (!mutation) throw new ConnectError(`mutation ${mutationId} not found`, Code.NotFound);
    if (mutation.status !== "unmatched") {
      throw new ConnectError(`mutation ${mutationId} is ${mutation.status}, not waiting for review`, Code.FailedPrecondition);
    }
    return mutation;
  }

  /**
   * A person pays the order with an unmatched credit. Whether the amount fits is
   * theirs to judge (a buyer may have left off the code), but a credit that is not the
   * order's transfer amount is refused until they say they accept the difference
   * (`acceptDifference`): "assign" alone must not pay an order short unnoticed. The
   * order must be the store's bank-transfer order and able to become paid. The history
   * keeps the amount received, and the audit entry the difference.
   */
  async function assign(storeId: string, mutationId: string, key: OrderKey, actor: Actor, livemode = true, acceptDifference = false): Promise<BankMutation> {
    const row = await transaction(sql, async (tx) => {
      const mutation = await lockForReview(tx, storeId, mutationId, livemode);
      // An order of the other mode is not there for this mutation.
      const order =
        "orderId" in key
          ? await findOrder(tx, key.orderId, { storeId, livemode, forUpdate: true })
          : await findOrderByReference(tx, key.paymentReference, true, { storeId, livemode });
      if (!order) throw new ConnectError(`order ${"orderId" in key ? key.orderId : key.paymentReference} not found`, Code.NotFound);
      if (order.payment_kind !== "bank_transfer") {
        throw new ConnectError(`order ${order.payment_reference} is not a bank-transfer order`, Code.FailedPrecondition);
      }
      const current = await expiry.expireIfDue(tx, order);
      const difference = amountDifferenceText(mutation.amount, current.amount);
      // Only an order that could be paid now asks about the difference: accepting one
      // must not be the step before learning the order is paid already.
      if (difference && !acceptDifference && checkTransition(current.status, "paid").kind === "change") {
        throw new ConnectError(
          `the transfer of ${rupiah(mutation.amount)} is not the ${rupiah(current.amount)} that order ${current.payment_reference} asks for, ${difference}: ${ASSIGN_ANYWAY_HINT}`,
          Code.FailedPrecondition,
        );
      }
      const { changed } = await statusChanges.apply(tx, current, "paid", BANK_MUTATION_CAUSE, { detail: mutationId, amountReceived: mutation.amount });
      if (!changed) throw new ConnectError(`order ${order.payment_reference} is already paid`, Code.FailedPrecondition);
      // A difference is recorded as what the order asked for against what arrived.
      const changes = difference ? [{ field: "amount", before: `${rupiah(current.amount)} due`, after: amountReceivedText(mutation.amount, current.amount) }] : [];
      await insertAudit(tx, [auditEntry(storeId, actor, "bank_mutation.assigned", auditTarget("mutation", mutationId), { label: mutation.mutation_id, changes })]);
      return settleMutation(tx, storeId, mutationId, { status: "assigned", reason: mutation.reason, order_id: order.id, reviewed: true }, livemode);
    });
    deps.onEventsCommitted?.();
    logger.info({ storeId, orderId: row.order_id }, "bank mutation assigned");
    return renderMutation(row);
  }

  /** A person takes an unmatched credit off the review list; nothing is paid. */
  async function dismiss(storeId: string, mutationId: string, actor: Actor, livemode = true): Promise<BankMutation> {
    const row = await transaction(sql, async (tx) => {
      const mutation = await lockForReview(tx, storeId, mutationId, livemode);
      await insertAudit(tx, [auditEntry(storeId, actor, "bank_mutation.dismissed", auditTarget("mutation", mutationId), { label: mutation.mutation_id })]);
      return settleMutation(tx, storeId, mutationId, { status: "dismissed", reason: mutation.reason, reviewed: true }, livemode);
    });
    logger.info({ storeId }, "bank mutation dismissed");
    return renderMutation(row);
  }

  async function list(storeId: string, options: { review: boolean; limit: number; livemode?: boolean }): Promise<BankMutation[]> {
    return (await listMutations(sql, storeId, options)).map(renderMutation);
  }

  async function countUnreviewed(storeId: string, livemode = true): Promise<number> {
    return countUnreviewedMutations(sql, storeId, livemode);
  }

  return { reconcile, assign, dismiss, list, countUnreviewed };
}

export type Reconciliation = ReturnType<typeof createReconciliation>;
