import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { AuditEntry } from "../gen/audit/v1/audit_pb.js";
import type { Member } from "../gen/catalog/v1/account_pb.js";
import { auditSentenceText } from "../common/audit-text.js";

// How the operator CLI prints members and audit entries.

const iso = (value: Timestamp | undefined) => (value ? timestampDate(value).toISOString() : null);

export function memberJson(m: Member) {
  return { id: m.id, email: m.email, role: m.role, status: m.status, created_at: iso(m.createdAt) };
}

export function auditJson(e: Pick<AuditEntry, "at" | "actor" | "action" | "target" | "targetLabel" | "changes">) {
  return {
    at: iso(e.at),
    actor: e.actor,
    action: e.action,
    target: e.target,
    ...(e.targetLabel ? { target_label: e.targetLabel } : {}),
    sentence: auditSentenceText(e),
    ...(e.changes.length > 0 ? { changes: e.changes.map(({ field, before, after }) => ({ field, before, after })) } : {}),
  };
}
