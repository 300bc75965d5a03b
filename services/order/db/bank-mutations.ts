// Bank mutations (docs/reconciliation.md). What a mutation's result is, is decided in
// bank-matching.ts and reconciliation.ts.
import type { Db } from "../../../platform/db.js";

export type MutationType = "credit" | "debit";
export type MutationStatus = "matched" | "unmatched" | "ignored" | "assigned" | "dismissed";

export interface NewBankMutation {
  store_id: string;
  mutation_id: string;
  amount: number;
  type: MutationType;
  occurred_at: Date;
  description: string;
  status: MutationStatus;
  /** When the call carrying it arrived. */
  received_at: Date;
  /** Its index in that call. */
  request_position: number;
  /** False for a test mutation: it matches test orders only (docs/reconciliation.md#test-mode). */
  livemode: boolean;
}

export interface BankMutationRow extends NewBankMutation {
  reason: string;
  order_id: string | null;
  /** The payment reference of order_id, for people. */
  payment_reference: string | null;
  reviewed_at: Date | null;
}

/**
 * Records a mutation unless the store has one with its id: true when this call wrote
 * it. A concurrent call writing the same id waits for this one to finish first.
 */
export async function insertMutation(db: Db, mutation: NewBankMutation): Promise<boolean> {
  const rows = await db`insert into bank_mutations ${db(mutation)} on conflict (store_id, livemode, mutation_id) do nothing returning 1`;
  return rows.length === 1;
}

const mutationColumns = (db: Db) => db`m.*, o.payment_reference`;

// A mutation id is the store's once per mode (013_test_mode.sql): every statement names both.

export async function findMutation(db: Db, storeId: string, mutationId: string, forUpdate = false, livemode = true): Promise<BankMutationRow | undefined> {
  const [row] = await db<BankMutationRow[]>`
    select ${mutationColumns(db)} from bank_mutations m left join orders o on o.id = m.order_id
    where m.store_id = ${storeId} and m.livemode = ${livemode} and m.mutation_id = ${mutationId}
    ${forUpdate ? db`for update of m` : db``}`;
  return row;
}

/** The mutation's result; with `reviewed`, stamped as a person's decision. */
export async function settleMutation(
  db: Db,
  storeId: string,
  mutationId: string,
  outcome: { status: MutationStatus; reason?: string; order_id?: string | null; reviewed?: boolean },
  livemode = true,
): Promise<BankMutationRow> {
  const [row] = await db<BankMutationRow[]>`
    with m as (
      update bank_mutations set status = ${outcome.status}, reason = ${outcome.reason ?? ""}, order_id = ${outcome.order_id ?? null}
        ${outcome.reviewed ? db`, reviewed_at = clock_timestamp()` : db``}
      where store_id = ${storeId} and livemode = ${livemode} and mutation_id = ${mutationId}
      returning *
    )
    select ${mutationColumns(db)} from m left join orders o on o.id = m.order_id`;
  return row!;
}

/** The store's mutations, newest first (later in a call is newer); `review`: only unmatched ones. */
export async function listMutations(db: Db, storeId: string, options: { review: boolean; limit: number; livemode?: boolean }): Promise<BankMutationRow[]> {
  return db<BankMutationRow[]>`
    select ${mutationColumns(db)} from bank_mutations m left join orders o on o.id = m.order_id
    where m.store_id = ${storeId} and m.livemode = ${options.livemode ?? true} ${options.review ? db`and m.status = 'unmatched'` : db``}
    order by m.received_at desc, m.request_position desc
    limit ${options.limit}`;
}

export async function countUnreviewedMutations(db: Db, storeId: string, livemode = true): Promise<number> {
  const [row] = await db<{ count: number }[]>`
    select count(*) as count from bank_mutations where store_id = ${storeId} and livemode = ${livemode} and status = 'unmatched'`;
  return row!.count;
}
