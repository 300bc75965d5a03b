// What makes a bank mutation well-formed (docs/reconciliation.md#the-api), for the order service (every
// ReconcileMutations call) and for a statement import (the whole file, before any of it
// is sent). Pure: the caller turns a problem into its own error.
import { parseRfc3339 } from "./rfc3339.js";
import { rupiah } from "./rupiah.js";

/** Why a credit did not match (docs/reconciliation.md#the-api): the order service decides, the API documents them. */
export const UNMATCHED_REASONS = {
  none: "no order with this amount",
  cancelled: "order cancelled",
  paid: "order already paid",
  early: "transfer before order",
  // Reservations make this impossible for orders made since they exist; only orders
  // from before the upgrade can share an amount, and guessing between them could pay
  // the wrong one.
  several: "several orders with this amount",
  // The one order that could be paid shares its amount with an order paid (or refunded)
  // within the grace before the transfer: this may be a second payment for that one, so
  // a person decides.
  ambiguous: "ambiguous",
} as const;

/**
 * A credit's amount against the order's transfer amount, as people read it on the
 * dashboard, in the order service's refusal and in the order's history: "Rp 152 short",
 * "Rp 1.000 over"; "" when they are equal.
 */
export function amountDifferenceText(received: bigint | number, due: bigint | number): string {
  const difference = BigInt(received) - BigInt(due);
  if (difference === 0n) return "";
  return difference < 0n ? `${rupiah(-difference)} short` : `${rupiah(difference)} over`;
}

/**
 * How the order service's refusal of a differing credit ends: what a person must decide.
 * The CLI recognises the refusal by it to name its own option for that decision.
 */
export const ASSIGN_ANYWAY_HINT = "assign it anyway only if the store accepts the difference";

/** "Rp 65.000 received, Rp 152 short"; "Rp 65.152 received" when it was the amount due. */
export function amountReceivedText(received: bigint | number, due: bigint | number): string {
  const difference = amountDifferenceText(received, due);
  return `${rupiah(received)} received${difference ? `, ${difference}` : ""}`;
}

export const MAX_MUTATIONS_PER_CALL = 500;
/** The most mutations one ListMutations call answers. */
export const MAX_MUTATION_LIST_LIMIT = 500;
export const MAX_MUTATION_AMOUNT = 10_000_000_000_000;
export const MAX_MUTATION_ID_LENGTH = 100;
export const MAX_MUTATION_DESCRIPTION_LENGTH = 500;
export const MUTATION_TYPES = ["credit", "debit"] as const;

export interface MutationInput {
  id: string;
  amount: bigint;
  type: string;
  occurredAt: string;
  description: string;
}

export interface MutationProblem {
  /** Which mutation, counted from 0. */
  index: number;
  /** Its field, as the API names it: id, amount, type, occurred_at, description. */
  field: string;
  message: string;
}

/** A mutation id: 1–100 characters, taken as given (the bank's spelling is the key); the problem, if any. */
export function mutationIdProblem(id: string): string | undefined {
  return id.length < 1 || id.length > MAX_MUTATION_ID_LENGTH ? `must be 1 to ${MAX_MUTATION_ID_LENGTH} characters` : undefined;
}

/**
 * The first problem of these mutations, in order; undefined when every one is
 * well-formed. How many may come in one call is the caller's rule.
 */
export function findMutationProblem(mutations: readonly MutationInput[]): MutationProblem | undefined {
  return findMutationProblems(mutations, 1)[0];
}

/**
 * The problems of these mutations, in order (each mutation's fields as the API lists
 * them), at most `limit` of them; empty when every one is well-formed. An id given
 * twice is refused at its second place: which of the two the bank meant is not ours
 * to guess.
 */
export function findMutationProblems(mutations: readonly MutationInput[], limit = Number.POSITIVE_INFINITY): MutationProblem[] {
  const problems: MutationProblem[] = [];
  const firstAt = new Map<string, number>();
  for (const [index, m] of mutations.entries()) {
    const problem = (field: string, message: string) => void problems.push({ index, field, message });
    const idProblem = mutationIdProblem(m.id);
    const earlier = firstAt.get(m.id);
    if (idProblem) problem("id", idProblem);
    else if (earlier !== undefined) problem("id", `repeats mutations[${earlier}].id; each id may appear once per request`);
    else firstAt.set(m.id, index);
    if (m.amount < 1n || m.amount > BigInt(MAX_MUTATION_AMOUNT)) problem("amount", `must be a whole number of rupiah from 1 to ${MAX_MUTATION_AMOUNT}`);
    if (!(MUTATION_TYPES as readonly string[]).includes(m.type)) problem("type", `must be ${MUTATION_TYPES.join(" or ")}`);
    if (!parseRfc3339(m.occurredAt)) problem("occurred_at", "must be an RFC 3339 date-time with an offset, e.g. 2026-11-20T10:00:00+07:00");
    if (m.description.length > MAX_MUTATION_DESCRIPTION_LENGTH) problem("description", `must be at most ${MAX_MUTATION_DESCRIPTION_LENGTH} characters`);
    if (problems.length >= limit) return problems.slice(0, limit);
  }
  return problems;
}
