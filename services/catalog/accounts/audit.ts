// The catalog's part of each store's audit log (CONTRACT §13): who (a member's email,
// `operator`, `system`, or an API key) did what (common/audit.ts's vocabulary) to which
// thing. The catalog's modules write their entries in the transaction of the change
// they record (account-store.ts's AuditWriter); nobody else writes here. This module
// lists them.
import type { Stores } from "../merchant-stores.js";
import { invalid } from "../validation.js";
import { AUDIT_LIST_DEFAULT, AUDIT_LIST_MAX } from "./account-policy.js";
import type { AuditRow, Pool } from "./account-store.js";
import type * as sqlStore from "./account-store.js";

/** 0 means the default (100); otherwise 1 to 500. */
export function requireAuditLimit(limit: number): number {
  if (limit === 0) return AUDIT_LIST_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_LIST_MAX) throw invalid(`limit must be from 1 to ${AUDIT_LIST_MAX}`);
  return limit;
}

export type AuditStore = Pick<typeof sqlStore, "listAudit">;

export function createAudit({ sql, store, stores }: { sql: Pool; store: AuditStore; stores: Pick<Stores, "get"> }) {
  return {
    /** The store's latest entries, newest first; NOT_FOUND for an unknown store. */
    async list(storeId: string, limit: number): Promise<AuditRow[]> {
      const owner = await stores.get(storeId);
      return store.listAudit(sql, owner.id, limit);
    },
  };
}

export type Audit = ReturnType<typeof createAudit>;
