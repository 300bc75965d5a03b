// The catalog's part of each store's audit log: the same table and statements as every
// service's (platform/audit-log.ts), plus an insert that answers with the rows. Every
// module of the catalog writes the entry of a change here, inside the change's own
// transaction.
import type { Db } from "../../../platform/db.js";
import type { AuditRow, NewAuditEntry } from "../../../platform/audit-log.js";

export { listAudit, type AuditRow, type NewAuditEntry } from "../../../platform/audit-log.js";

export async function insertAuditEntries(db: Db, entries: NewAuditEntry[]): Promise<AuditRow[]> {
  if (entries.length === 0) return [];
  return db<AuditRow[]>`
    insert into audit_log ${db(entries.map((entry) => ({ ...entry, changes: db.json(entry.changes as never) })))}
    returning id, store_id, created_at, (extract(epoch from created_at) * 1000000)::bigint::text as micros, seq::text as seq,
      actor, action, target, target_label, changes`;
}
