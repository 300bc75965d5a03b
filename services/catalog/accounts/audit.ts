// Each store's audit log (CONTRACT §8, §10): who (a member's email, or `operator` for
// the CLI) did what (common/audit.ts's vocabulary) to which thing. Callers record the
// changes they made; this module only makes sure every entry speaks that vocabulary.
import { isAuditAction, OPERATOR_ACTOR, type AuditAction } from "../../../common/audit.js";
import type { Stores } from "../merchant-stores.js";
import { invalid } from "../validation.js";
import { AUDIT_LIST_DEFAULT, AUDIT_LIST_MAX, AUDIT_TARGET_MAX_LENGTH } from "./account-policy.js";
import type { AuditRow, NewAuditEntry, Pool } from "./account-store.js";
import type * as sqlStore from "./account-store.js";
import { normalizeEmail } from "./member-email.js";

/** `operator`, or an email (normalized like members' emails); INVALID_ARGUMENT naming `actor` otherwise. */
export function requireActor(actor: string): string {
  if (actor === OPERATOR_ACTOR) return actor;
  const email = normalizeEmail(actor);
  if (email === undefined) throw invalid(`actor must be "${OPERATOR_ACTOR}" or an email address`);
  return email;
}

export function requireAction(action: string): AuditAction {
  if (!isAuditAction(action)) throw invalid("action must be one of the audit actions of common/audit.ts, e.g. key.created");
  return action;
}

/** Up to 300 characters; may be empty for an action on the store as a whole. */
export function requireTarget(target: string): string {
  if ([...target].length > AUDIT_TARGET_MAX_LENGTH) throw invalid(`target must be at most ${AUDIT_TARGET_MAX_LENGTH} characters`);
  return target;
}

/** 0 means the default (100); otherwise 1 to 500. */
export function requireAuditLimit(limit: number): number {
  if (limit === 0) return AUDIT_LIST_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_LIST_MAX) throw invalid(`limit must be from 1 to ${AUDIT_LIST_MAX}`);
  return limit;
}

export interface AuditRecord {
  actor: string;
  action: AuditAction;
  target: string;
}

export type AuditStore = Pick<typeof sqlStore, "insertAuditEntries" | "listAudit">;

/**
 * How the catalog's other modules (keys, settings) write the entry of a change into
 * this log, inside the change's own transaction.
 */
export type AuditWriter = Pick<typeof sqlStore, "insertAuditEntries">;

export function createAudit({ sql, store, stores }: { sql: Pool; store: AuditStore; stores: Pick<Stores, "get"> }) {
  return {
    /** Appends one entry; NOT_FOUND for an unknown store. */
    async record(storeId: string, entry: AuditRecord): Promise<AuditRow> {
      const owner = await stores.get(storeId);
      const newEntry: NewAuditEntry = { store_id: owner.id, ...entry };
      const [row] = await store.insertAuditEntries(sql, [newEntry]);
      return row!;
    },

    /** The store's latest entries, newest first; NOT_FOUND for an unknown store. */
    async list(storeId: string, limit: number): Promise<AuditRow[]> {
      const owner = await stores.get(storeId);
      return store.listAudit(sql, owner.id, limit);
    },
  };
}

export type Audit = ReturnType<typeof createAudit>;
