// The catalog's part of each store's audit log (docs/team.md#audit-log): who (a member's email,
// `operator`, `system`, or an API key) did what (common/audit.ts's vocabulary) to which
// thing. The catalog's modules write their entries in the transaction of the change
// they record (db/audit.ts); nobody else writes here. This module lists them.
import type { AuditQuery } from "../../../platform/audit-log.js";
import type { Sql } from "../../../platform/db.js";
import { listAudit, type AuditRow } from "../db/audit.js";
import type { Stores } from "../merchant-stores.js";

export function createAudit({ sql, stores }: { sql: Sql; stores: Pick<Stores, "get"> }) {
  return {
    /** The store's entries the query asks for (platform/audit-log.ts), newest first; NOT_FOUND for an unknown store. */
    async list(storeId: string, query: AuditQuery): Promise<AuditRow[]> {
      const owner = await stores.get(storeId);
      return listAudit(sql, owner.id, query);
    },
  };
}

export type Audit = ReturnType<typeof createAudit>;
