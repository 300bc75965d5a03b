// Each service's part of a store's audit log (docs/team.md#audit-log): an `audit_log` table of the
// same shape in the order, webhook and catalog schemas. A service writes its entries in
// the transaction of the change they record, through its own pool, and lists them;
// readers merge the parts by time (common/audit.ts mergeAudit). These statements are
// shared because the table is; no service reaches another's schema with them.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { isAuditAction, MAX_AUDIT_ACTOR_LENGTH, type AuditAction } from "../common/audit.js";
import { auditActorName, type Actor } from "../common/actor.js";
import { AuditChangeSchema, AuditEntrySchema, AuditPositionSchema, type AuditEntry, type AuditPosition } from "../gen/audit/v1/audit_pb.js";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Db } from "./db.js";
import { fieldError } from "./field-errors.js";

/** How many entries a list gives when not told, and at most. */
export const AUDIT_LIST_DEFAULT = 100;
export const AUDIT_LIST_MAX = 500;

/** A field of a settings change, before and after, as the reader shows it. */
export interface AuditFieldChange {
  field: string;
  before: string;
  after: string;
}

export interface AuditRow {
  id: string;
  store_id: string;
  created_at: Date;
  /** created_at to the microsecond (a Date keeps milliseconds): the paging position with seq. */
  micros: string;
  seq: string;
  actor: string;
  action: string;
  target: string;
  target_label: string;
  changes: AuditFieldChange[];
}

export type NewAuditEntry = Pick<AuditRow, "store_id" | "actor" | "action" | "target" | "target_label" | "changes">;

export async function insertAudit(db: Db, entries: NewAuditEntry[]) {
  if (entries.length === 0) return;
  await db`insert into audit_log ${db(entries.map((entry) => ({ ...entry, changes: db.json(entry.changes as never) })))}`;
}

/** Which entries a reader asks for: a page's size, where the page starts, and filters. */
export interface AuditQuery {
  limit: number;
  /** Only entries strictly before this (micros, seq), newest first. */
  before?: { micros: bigint; seq: bigint };
  actor?: string;
  action?: string;
}

/** The store's entries, newest first, as the query asks. */
export async function listAudit(db: Db, storeId: string, query: AuditQuery): Promise<AuditRow[]> {
  const before = query.before
    ? db`and (created_at, seq) < (timestamptz 'epoch' + ${String(query.before.micros)}::bigint * interval '1 microsecond', ${String(query.before.seq)}::bigint)`
    : db``;
  return db<AuditRow[]>`
    select id, store_id, created_at, (extract(epoch from created_at) * 1000000)::bigint::text as micros, seq::text as seq,
      actor, action, target, target_label, changes
    from audit_log
    where store_id = ${storeId} ${before}
      ${query.actor ? db`and actor = ${query.actor}` : db``}
      ${query.action ? db`and action = ${query.action}` : db``}
    -- Qualified: a bare seq would be the text column of the select list, and '9' sorts after '10'.
    order by audit_log.created_at desc, audit_log.seq desc limit ${query.limit}`;
}

/**
 * The entry recording that `actor` did `action` to the thing `target` names, in the
 * store; `label` is what the thing was called then, `changes` a settings change's fields.
 */
export function auditEntry(
  storeId: string,
  actor: Actor,
  action: AuditAction,
  target: string,
  { label = "", changes = [] }: { label?: string; changes?: AuditFieldChange[] } = {},
): NewAuditEntry {
  return { store_id: storeId, actor: auditActorName(actor), action, target, target_label: label, changes };
}

/**
 * The fields that differ between two versions of a thing's settings, in the order
 * given. A field named in `secret` shows "(hidden)" on both sides when it changed.
 */
export function fieldChanges(before: Record<string, string>, after: Record<string, string>, secret: readonly string[] = []): AuditFieldChange[] {
  return Object.keys(after)
    .filter((field) => (before[field] ?? "") !== (after[field] ?? ""))
    .map((field) => (secret.includes(field) ? { field, before: "(hidden)", after: "(hidden)" } : { field, before: before[field] ?? "", after: after[field] ?? "" }));
}

/** A ListAudit request checked: the store, a page size, a position and known filters, else INVALID_ARGUMENT naming the field. */
export function auditQuery(request: { limit: number; before?: AuditPosition; actor: string; action: string }): AuditQuery {
  if (request.action && !isAuditAction(request.action)) throw fieldError("action", "is not an action the audit log records");
  if (request.actor.length > MAX_AUDIT_ACTOR_LENGTH) throw fieldError("actor", `must be at most ${MAX_AUDIT_ACTOR_LENGTH} characters`);
  const before = request.before;
  if (before && (before.micros < 0n || before.seq < 0n)) throw fieldError("before", "must be a position from an earlier page");
  return {
    limit: requireAuditLimit(request.limit),
    before: before ? { micros: before.micros, seq: before.seq } : undefined,
    actor: request.actor.trim() || undefined,
    action: request.action || undefined,
  };
}

/** 0 means the default; otherwise 1 to AUDIT_LIST_MAX, else INVALID_ARGUMENT naming `limit`. */
function requireAuditLimit(limit: number): number {
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
    targetLabel: row.target_label,
    changes: row.changes.map((change) => create(AuditChangeSchema, change)),
    position: create(AuditPositionSchema, { micros: BigInt(row.micros), seq: BigInt(row.seq) }),
  });
}

/** An entry as each service's ListAudit gives it. */
export type AuditEntryLike = Pick<AuditEntry, "id" | "at" | "actor" | "action" | "target" | "targetLabel" | "changes" | "position">;

/** A service that keeps a part of the store's audit log. */
export interface AuditSource {
  listAudit(request: { storeId: string; limit: number; before?: AuditPosition; actor: string; action: string }): Promise<{ entries: AuditEntryLike[] }>;
}

/**
 * Where a page of the merged log ends: the last entry's position and the part it came
 * from. The log's order is (micros desc, part in the order the sources are given, seq
 * desc), so a part before the cursor's continues below its micros, a part after it at
 * or below them, and the cursor's own part strictly below (micros, seq).
 */
export interface AuditCursor {
  micros: bigint;
  part: string;
  seq: bigint;
}

const MAX_SEQ = (1n << 63n) - 1n;

export function encodeAuditCursor(cursor: AuditCursor): string {
  return Buffer.from(`${cursor.micros}.${cursor.part}.${cursor.seq}`).toString("base64url");
}

/** The cursor a reader was given, or undefined if the text is not one. */
export function decodeAuditCursor(text: string): AuditCursor | undefined {
  const match = /^(\d{1,19})\.([a-z]{1,20})\.(\d{1,19})$/.exec(Buffer.from(text, "base64url").toString());
  if (!match) return undefined;
  const [micros, seq] = [BigInt(match[1]!), BigInt(match[3]!)];
  return micros <= MAX_SEQ && seq <= MAX_SEQ ? { micros, part: match[2]!, seq } : undefined;
}

/** What a part is asked for to continue after the cursor (see AuditCursor). */
function partBefore(cursor: AuditCursor | undefined, part: string, parts: string[]): AuditPosition | undefined {
  if (!cursor) return undefined;
  const [mine, theirs] = [parts.indexOf(part), parts.indexOf(cursor.part)];
  const seq = mine === theirs ? cursor.seq : mine < theirs ? 0n : MAX_SEQ;
  return create(AuditPositionSchema, { micros: cursor.micros, seq });
}

export interface AuditPage {
  entries: AuditEntryLike[];
  /** Where the next page starts; undefined on the last page. */
  next?: string;
  /** Parts that could not be read just now: the page is incomplete without them. */
  unavailable: string[];
}

/**
 * A page of the store's audit log, newest first: every service's part asked at once
 * and merged. A service that cannot be reached (or is not deployed) is named in
 * `unavailable` rather than failing the whole log; the reader says so. An unknown
 * cursor is INVALID_ARGUMENT naming `cursor`.
 */
export async function storeAuditLog(
  sources: Record<string, AuditSource | undefined>,
  storeId: string,
  { limit = AUDIT_LIST_DEFAULT, cursor, actor = "", action = "" }: { limit?: number; cursor?: string; actor?: string; action?: string } = {},
): Promise<AuditPage> {
  const names = Object.keys(sources);
  const after = cursor ? decodeAuditCursor(cursor) : undefined;
  if (cursor && (!after || !names.includes(after.part))) throw fieldError("cursor", "is not a cursor of this log");
  const unavailable: string[] = [];
  let more = false;
  const parts = await Promise.all(
    names.map(async (name) => {
      const source = sources[name];
      if (!source) return (unavailable.push(name), []);
      try {
        const { entries } = await source.listAudit({ storeId, limit, before: partBefore(after, name, names), actor, action });
        if (entries.length >= limit) more = true;
        return entries.map((entry) => ({ entry, part: name }));
      } catch (error) {
        if (!(error instanceof ConnectError && (error.code === Code.Unavailable || error.code === Code.DeadlineExceeded))) throw error;
        unavailable.push(name);
        return [];
      }
    }),
  );
  const rank = (part: string) => names.indexOf(part);
  const key = (item: { entry: AuditEntryLike; part: string }) => item.entry.position ?? create(AuditPositionSchema, {});
  const merged = parts
    .flat()
    .sort((a, b) => {
      const [pa, pb] = [key(a), key(b)];
      if (pa.micros !== pb.micros) return pa.micros > pb.micros ? -1 : 1;
      if (a.part !== b.part) return rank(a.part) - rank(b.part);
      return pa.seq === pb.seq ? 0 : pa.seq > pb.seq ? -1 : 1;
    });
  const page = merged.slice(0, limit);
  const last = page.at(-1);
  const next = (more || merged.length > limit) && last ? encodeAuditCursor({ micros: key(last).micros, part: last.part, seq: key(last).seq }) : undefined;
  return { entries: page.map(({ entry }) => entry), next, unavailable: unavailable.sort() };
}
