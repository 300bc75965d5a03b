// The audit_log statements of platform/audit-log.ts over a service fake's own state,
// shared by the in-memory stores: the rows live in the fake's state, so a rolled-back
// transaction takes its entries with it, as in PostgreSQL. Like the table, a row's
// position is its time in microseconds and a sequence number for ties; the entries of
// one insert share their time, as entries written within one microsecond do.
import { randomUUID } from "node:crypto";
import type { AuditQuery, AuditRow, NewAuditEntry } from "../../platform/audit-log.js";

let seq = 0;

/** A stored row for a new entry written at `at`. */
export function fakeAuditRow(entry: NewAuditEntry, at: Date): AuditRow {
  return { ...entry, changes: entry.changes.map((change) => ({ ...change })), id: randomUUID(), created_at: at, micros: String(at.getTime() * 1000), seq: String(++seq) };
}

const position = (row: AuditRow) => ({ micros: BigInt(row.micros), seq: BigInt(row.seq) });

/** listAudit's answer over `rows`: the store's, newest first, strictly before the position, filtered. */
export function fakeListAudit(rows: AuditRow[], storeId: string, query: AuditQuery): AuditRow[] {
  const before = query.before;
  return rows
    .filter((row) => row.store_id === storeId)
    .filter((row) => {
      if (!before) return true;
      const at = position(row);
      return at.micros < before.micros || (at.micros === before.micros && at.seq < before.seq);
    })
    .filter((row) => (query.actor === undefined || row.actor === query.actor) && (query.action === undefined || row.action === query.action))
    .sort((a, b) => {
      const [pa, pb] = [position(a), position(b)];
      if (pa.micros !== pb.micros) return pa.micros > pb.micros ? -1 : 1;
      return pa.seq === pb.seq ? 0 : pa.seq > pb.seq ? -1 : 1;
    })
    .slice(0, query.limit)
    .map((row) => ({ ...row }));
}

export function fakeAuditStatements(rows: () => AuditRow[], now: () => number = Date.now) {
  return {
    async insertAudit(_db: unknown, entries: NewAuditEntry[]) {
      const at = new Date(now());
      for (const entry of entries) rows().push(fakeAuditRow(entry, at));
    },
    async listAudit(_db: unknown, storeId: string, query: AuditQuery): Promise<AuditRow[]> {
      return fakeListAudit(rows(), storeId, query);
    },
  };
}
