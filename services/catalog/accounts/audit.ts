// The catalog's part of each store's audit log (CONTRACT §13): who (a member's email,
// `operator`, `system`, or an API key) did what (common/audit.ts's vocabulary) to which
// thing. The catalog's modules write their entries in the transaction of the change
// they record (account-store.ts's AuditWriter); nobody else writes here. This module
// lists them.
import type { AuditQuery } from "../../../platform/audit-log.js";
import type { Stores } from "../merchant-stores.js";
import type { AuditRow, Pool } from "../db/members.js";
import type * as sqlStore from "../db/members.js";

export type AuditStore = Pick<typeof sqlStore, "listAudit">;

export function createAudit({ sql, store, stores }: { sql: Pool; store: AuditStore; stores: Pick<Stores, "get"> }) {
  return {
    /** The store's entries the query asks for (platform/audit-log.ts), newest first; NOT_FOUND for an unknown store. */
    async list(storeId: string, query: AuditQuery): Promise<AuditRow[]> {
      const owner = await stores.get(storeId);
      return store.listAudit(sql, owner.id, query);
    },
  };
}

export type Audit = ReturnType<typeof createAudit>;
