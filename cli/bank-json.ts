import type { BankMutation, MutationResult } from "../gen/order/v1/bank_pb.js";

// How the operator CLI prints reconciliation results, as POST /v1/bank-mutations does.

export function mutationResultJson(r: MutationResult) {
  return { id: r.id, result: r.result, order_id: r.orderId || null, reason: r.reason || null };
}

export function bankMutationJson(m: BankMutation) {
  return {
    id: m.id,
    amount: Number(m.amount),
    type: m.type,
    occurred_at: m.occurredAt,
    description: m.description,
    status: m.status,
    reason: m.reason || null,
    order_id: m.orderId || null,
    payment_reference: m.paymentReference || null,
    received_at: m.receivedAt,
    reviewed_at: m.reviewedAt || null,
  };
}
