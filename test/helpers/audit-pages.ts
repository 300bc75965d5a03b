// A service's part of the audit log read as the dashboard reads it (docs/team.md#audit-log): page
// after page, each asking for the entries strictly before the last one it was given.
import type { ExecutionContext } from "ava";
import type { AuditEntry, AuditPosition } from "../../gen/audit/v1/audit_pb.js";

/** One ListAudit call of a service, its store already chosen. */
export type AuditList = (request: { limit?: number; before?: AuditPosition; actor?: string; action?: string }) => Promise<{ entries: AuditEntry[] }>;

/** Every page of `size` entries, until one comes back short. */
export async function auditPages(list: AuditList, size: number, filters: { actor?: string; action?: string } = {}): Promise<AuditEntry[][]> {
  const pages: AuditEntry[][] = [];
  let before: AuditPosition | undefined;
  for (;;) {
    const { entries } = await list({ limit: size, before, ...filters });
    if (entries.length > 0) pages.push(entries);
    if (entries.length < size) return pages;
    before = entries.at(-1)!.position;
  }
}

const positionOf = (entry: AuditEntry) => `${entry.position!.micros}.${entry.position!.seq}`;

/**
 * Pages of 1, 2 and 3 entries give what one call gives, in order: nothing twice,
 * nothing left out. Pages of one split every tie, so with `ties` (some entries of the
 * same microsecond, as one transaction writes them) this proves the position breaks
 * them. The whole list, newest first.
 */
export async function checkPaging(t: ExecutionContext, list: AuditList, { filters = {}, ties = false }: { filters?: { actor?: string; action?: string }; ties?: boolean } = {}): Promise<AuditEntry[]> {
  const { entries: whole } = await list({ limit: 500, ...filters });
  t.true(whole.length >= 3, "enough entries to page through");
  t.is(new Set(whole.map(positionOf)).size, whole.length, "each entry has its own position");
  if (ties) t.true(whole.some((entry, n) => n > 0 && entry.position!.micros === whole[n - 1]!.position!.micros), "some entries share their microsecond");
  for (const size of [1, 2, 3]) {
    const pages = await auditPages(list, size, filters);
    t.deepEqual(pages.flat().map((entry) => entry.id), whole.map((entry) => entry.id), `pages of ${size}`);
  }
  return whole;
}
