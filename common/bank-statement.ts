// A bank statement as CSV (docs/reconciliation.md#statements): `id,occurred_at,amount,type,description` with
// that header row, one mutation per line. The CLI and the dashboard import it the same
// way: this turns the text into the mutations of POST /v1/bank-mutations, and the order
// service judges each one as it judges the API's. Errors name the line and the column.
import { parse } from "csv-parse/sync";
import { findMutationProblem, MAX_MUTATIONS_PER_CALL } from "./bank-mutations.js";

export const STATEMENT_COLUMNS = ["id", "occurred_at", "amount", "type", "description"] as const;
export const MAX_STATEMENT_BYTES = 1024 * 1024;
/** Mutations per reconcile call; a longer statement is sent in several. */
export const MUTATIONS_PER_CALL = MAX_MUTATIONS_PER_CALL;

export interface StatementMutation {
  id: string;
  amount: bigint;
  type: string;
  occurredAt: string;
  description: string;
}

export class StatementError extends Error {}

/** The line of the file a mutation came from (the header is line 1). */
export const lineOfRow = (index: number) => index + 2;

/**
 * The mutations of a statement, in file order. Throws StatementError naming the line
 * ("line 7: amount must be a positive whole number of rupiah") for a wrong header, a
 * row with the wrong number of columns or an amount that is not a whole number.
 */
export function parseStatement(text: string): StatementMutation[] {
  if (Buffer.byteLength(text, "utf8") > MAX_STATEMENT_BYTES) throw new StatementError("the statement is larger than 1 MiB");
  let rows: string[][];
  try {
    rows = parse(text.replace(/^\uFEFF/, ""), { relax_column_count: true, skip_empty_lines: true, bom: true });
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new StatementError(`${line ? `line ${line}: ` : ""}not valid CSV (${(error as Error).message.replace(/^Invalid \w+: /, "")})`);
  }
  const header = rows[0]?.map((cell) => cell.trim().toLowerCase());
  if (!header || header.join(",") !== STATEMENT_COLUMNS.join(",")) {
    throw new StatementError(`line 1: the header must be ${STATEMENT_COLUMNS.join(",")}`);
  }
  const mutations = rows.slice(1).map((row, index) => {
    const line = lineOfRow(index);
    if (row.length !== STATEMENT_COLUMNS.length) throw new StatementError(`line ${line}: expected ${STATEMENT_COLUMNS.length} columns, found ${row.length}`);
    const [id, occurredAt, amount, type, description] = row.map((cell) => cell.trim()) as [string, string, string, string, string];
    if (!/^[0-9]{1,13}$/.test(amount) || BigInt(amount) <= 0n) throw new StatementError(`line ${line}: amount must be a positive whole number of rupiah`);
    return { id, occurredAt, amount: BigInt(amount), type: type.toLowerCase(), description };
  });
  if (mutations.length === 0) throw new StatementError("the statement has no mutations after its header");
  // The whole file is checked before any of it is sent, so a bad line 900 applies nothing.
  const problem = findMutationProblem(mutations);
  if (problem) throw new StatementError(`line ${lineOfRow(problem.index)}: ${problem.field} ${problem.message.replace(/mutations\[(\d+)\]\.id/, (_, i) => `line ${lineOfRow(Number(i))}`)}`);
  return mutations;
}

/**
 * `mutations[3].amount: …` from the order service, for a chunk starting at `offset`
 * → `line 6: amount: …`; other messages as they are.
 */
export function statementLineError(message: string, offset: number): string {
  const match = /^mutations\[(\d+)\]\.(\w+)(.*)$/s.exec(message);
  if (!match) return message;
  return `line ${lineOfRow(offset + Number(match[1]))}: ${match[2]}${match[3]}`;
}
