// The audit_log statements of services/lib/audit-log.ts over a service fake's own state,
// shared by the in-memory stores: the rows live in the fake's state, so a rolled-back
// transaction takes its entries with it, as in PostgreSQL.
import { randomUUID } from "node:crypto";
import type { AuditRow, NewAuditEntry } from "../../services/lib/audit-log.js";

export function fakeAuditStatements(rows: () => AuditRow[], now: () => number = Date.now) {
  return {
    async insertAudit(_db: unknown, entries: NewAuditEntry[]) {
      for (const entry of entries) rows().push({ ...entry, id: randomUUID(), created_at: new Date(now()) });
    },
    async listAudit(_db: unknown, storeId: string, limit: number): Promise<AuditRow[]> {
      return rows()
        .filter((row) => row.store_id === storeId)
        .reverse()
        .slice(0, limit)
        .map((row) => ({ ...row }));
    },
  };
}
