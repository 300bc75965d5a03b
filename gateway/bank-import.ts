// Importing a bank statement (docs/reconciliation.md#statements) for the CLI and the dashboard alike: the CSV
// is parsed and checked whole first, by the rules the order service applies (nothing is
// applied when any line is wrong), then sent 500 mutations at a time, with the same
// matching as POST /v1/bank-mutations.
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { MUTATIONS_PER_CALL, parseStatement, StatementError, statementLineError } from "../common/bank-statement.js";
import type { BankReconciliationService, MutationResult } from "../gen/order/v1/bank_pb.js";

export type BankClient = Pick<Client<typeof BankReconciliationService>, "reconcileMutations">;

/** The import stopped part-way (the order service went away): what was sent stays done. */
export class ImportInterrupted extends Error {
  constructor(
    readonly applied: number,
    readonly total: number,
    override readonly cause: unknown,
  ) {
    super(
      `the import stopped after ${applied} of ${total} mutations (${(cause as Error).message}); ` +
        "import the same statement again to finish: the lines already done answer duplicate",
    );
  }
}

/**
 * The results in file order; StatementError naming the line for a bad file. The order
 * service records each call in the store's audit log as it applies it (as the actor the
 * channel states), so no change goes unrecorded.
 */
export async function importStatement(bank: BankClient, storeId: string, text: string, testMode = false): Promise<MutationResult[]> {
  const mutations = parseStatement(text);
  const results: MutationResult[] = [];
  for (let offset = 0; offset < mutations.length; offset += MUTATIONS_PER_CALL) {
    const chunk = mutations.slice(offset, offset + MUTATIONS_PER_CALL);
    try {
      const answer = await bank.reconcileMutations({ storeId, mutations: chunk, testMode });
      results.push(...answer.results);
    } catch (error) {
      if (results.length > 0) throw new ImportInterrupted(results.length, mutations.length, error);
      // parseStatement checked every line by the same rules; this is the service's word
      // should the two ever differ.
      if (error instanceof ConnectError && error.code === Code.InvalidArgument) throw new StatementError(statementLineError(error.rawMessage, offset));
      throw error;
    }
  }
  return results;
}
