// Each service's part of a store's audit log (CONTRACT §13): an `audit_log` table of the
// same shape in the order, webhook and catalog schemas. A service writes its entries in
// the transaction of the change they record, through its own pool, and lists them;
// readers merge the parts by time (common/audit.ts mergeAudit). These statements are
// shared because the table is; no service reaches another's schema with them.
import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { AuditAction } from "../../common/audit.js";
import { auditActorName, type Actor } from "../../common/actor.js";
import { AuditEntrySchema, type AuditEntry } from "../../gen/audit/v1/audit_pb.js";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Db } from "./db.js";
import { fieldError } from "./rpc-errors.js";

/** How many entries a list gives when not told, and at most. */
export const AUDIT_LIST_DEFAULT = 100;
export const AUDIT_LIST_MAX = 500;

export interface AuditRow {
  id: string;
  store_id: string;
  created_at: Date;
  actor: string;
  action: string;
  target: string;
}

export type NewAuditEntry = Pick<AuditRow, "store_id" | "actor" | "action" | "target">;

export async function insertAudit(db: Db, entries: NewAuditEntry[]) {
  if (entries.length === 0) return;
  await db`insert into audit_log ${db(entries)}`;
}

/** The store's latest entries, newest first. */
export async function listAudit(db: Db, storeId: string, limit: number): Promise<AuditRow[]> {
  return db<AuditRow[]>`
    select id, store_id, created_at, actor, action, target from audit_log
    where store_id = ${storeId} order by created_at desc, seq desc limit ${limit}`;
}

/** The entry recording that `actor` did `action` to the thing `target` names, in the store. */
export function auditEntry(storeId: string, actor: Actor, action: AuditAction, target: string): NewAuditEntry {
  return { store_id: storeId, actor: auditActorName(actor), action, target };
}

/** 0 means the default; otherwise 1 to AUDIT_LIST_MAX, else INVALID_ARGUMENT naming `limit`. */
export function requireAuditLimit(limit: number): number {
  if (limit === 0) return AUDIT_LIST_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_LIST_MAX) throw fieldError("limit", `must be from 1 to ${AUDIT_LIST_MAX}`);
  return limit;
}

export function auditEntryMessage(row: AuditRow): AuditEntry {
  return create(AuditEntrySchema, {
    id: row.id,
    storeId: row.store_id,
    at: timestampFromDate(row.created_at),
    actor: row.actor,
    action: row.action,
    target: row.target,
  });
}

/**
 * The store's audit log from the services' parts (each newest first): newest first,
 * at most `limit`. Ties keep the order of the parts as given.
 */
export function mergeAuditParts<E extends Pick<AuditEntry, "at">>(parts: E[][], limit: number): E[] {
  const at = (entry: E) => (entry.at ? timestampDate(entry.at).getTime() : 0);
  return parts
    .flatMap((part, index) => part.map((entry, position) => ({ entry, index, position })))
    .sort((a, b) => at(b.entry) - at(a.entry) || a.index - b.index || a.position - b.position)
    .slice(0, limit)
    .map(({ entry }) => entry);
}

/** An entry as each service's ListAudit gives it. */
export type AuditEntryLike = Pick<AuditEntry, "id" | "at" | "actor" | "action" | "target">;

/** A service that keeps a part of the store's audit log. */
export interface AuditSource {
  listAudit(request: { storeId: string; limit: number }): Promise<{ entries: AuditEntryLike[] }>;
}

/**
 * The store's audit log, newest first, at most `limit`: every service's part, asked at
 * once and merged. A service that cannot be reached (or is not deployed) is named in
 * `unavailable` rather than failing the whole log; the reader says so.
 */
export async function storeAuditLog(
  sources: Record<string, AuditSource | undefined>,
  storeId: string,
  limit = AUDIT_LIST_DEFAULT,
): Promise<{ entries: AuditEntryLike[]; unavailable: string[] }> {
  const unavailable: string[] = [];
  const parts = await Promise.all(
    Object.entries(sources).map(async ([name, source]) => {
      if (!source) return (unavailable.push(name), []);
      try {
        return (await source.listAudit({ storeId, limit })).entries;
      } catch (error) {
        if (!(error instanceof ConnectError && (error.code === Code.Unavailable || error.code === Code.DeadlineExceeded))) throw error;
        unavailable.push(name);
        return [];
      }
    }),
  );
  return { entries: mergeAuditParts(parts, limit), unavailable: unavailable.sort() };
}
