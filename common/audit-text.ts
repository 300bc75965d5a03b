// The audit log read as sentences (docs/team.md#audit-log): "Marked SO-7LJP… as paid". One
// table of phrases for the dashboard and the CLI; the dashboard links the target.
import { auditActorName, SYSTEM } from "./actor.js";
import { AUDIT_ACTIONS, OPERATOR_ACTOR, type AuditAction } from "./audit.js";

/** A target ("order:<id>", "member:<email>") split into its kind and id. */
export function parseAuditTarget(target: string): { kind: string; id: string } {
  const colon = target.indexOf(":");
  return colon < 0 ? { kind: "", id: target } : { kind: target.slice(0, colon), id: target.slice(colon + 1) };
}

/** What an action did, before and after the target's name; "" for nothing after. */
const PHRASES: Record<AuditAction, readonly [string, string]> = {
  "store.created": ["Created the store", ""],
  "product.created": ["Created product", ""],
  "bundle.created": ["Created bundle", ""],
  "product.price_changed": ["Changed the price of product", ""],
  "product.status_changed": ["Changed the status of product", ""],
  "bundle.price_changed": ["Changed the price of bundle", ""],
  "bundle.status_changed": ["Changed the status of bundle", ""],
  "product.updated": ["Changed product", ""],
  "bundle.updated": ["Changed bundle", ""],
  "member.signed_in": ["Signed in as", ""],
  "member.invited": ["Invited", ""],
  "member.removed": ["Removed", "from the team"],
  "member.role_changed": ["Changed the role of", ""],
  "member.password_reset": ["Reset the password of", ""],
  "invitation.revoked": ["Revoked the invitation of", ""],
  "key.created": ["Created API key", ""],
  "key.revoked": ["Revoked API key", ""],
  "store.plan_changed": ["Changed the plan of the store", ""],
  "store.settings_changed": ["Changed the settings of the store", ""],
  "endpoint.created": ["Added webhook endpoint", ""],
  "endpoint.updated": ["Changed webhook endpoint", ""],
  "endpoint.enabled": ["Enabled webhook endpoint", ""],
  "endpoint.disabled": ["Disabled webhook endpoint", ""],
  "endpoint.deleted": ["Deleted webhook endpoint", ""],
  "endpoint.secret_revealed": ["Revealed the signing secret of", ""],
  "endpoint.secret_rotated": ["Rotated the signing secret of", ""],
  "endpoint.header_set": ["Set a custom header on", ""],
  "endpoint.header_removed": ["Removed a custom header from", ""],
  "endpoint.headers_revealed": ["Revealed the custom headers of", ""],
  "endpoint.test_sent": ["Sent a test event to", ""],
  "events.replayed": ["Resent missed events to", ""],
  "delivery.resent": ["Resent delivery", ""],
  "payment_link.created": ["Created payment link", ""],
  "payment_link.deactivated": ["Deactivated payment link", ""],
  "order.marked_paid": ["Marked", "as paid"],
  "order.cancelled": ["Cancelled", ""],
  "order.refunded": ["Refunded", ""],
  "bank_mutations.imported": ["Imported a bank statement", ""],
  "bank_mutation.assigned": ["Assigned bank transfer", "to its order"],
  "bank_mutation.dismissed": ["Dismissed bank transfer", ""],
};

/** Targets that need no name in the sentence: the phrase already says which thing. */
const SELF_EVIDENT = new Set<string>(["store.created", "store.plan_changed", "store.settings_changed", "bank_mutations.imported"]);

export interface AuditSentence {
  before: string;
  /** The target as named in the sentence; undefined when the phrase says it all. */
  target?: { kind: string; id: string; name: string };
  after: string;
}

/** The sentence an entry reads as. An action this version does not know reads as its name. */
export function auditSentence(entry: { action: string; target: string; targetLabel: string }): AuditSentence {
  const phrase = (PHRASES as Record<string, readonly [string, string]>)[entry.action];
  const { kind, id } = parseAuditTarget(entry.target);
  // An id alone says what it is unless the phrase already does ("Revoked API key 67c3b5f6…").
  const named = phrase?.[0].toLowerCase().includes(kind === "mutation" ? "transfer" : kind);
  const target = { kind, id, name: entry.targetLabel || fallbackName(named ? "" : kind, id) };
  if (!phrase) return { before: entry.action, target, after: "" };
  return SELF_EVIDENT.has(entry.action) ? { before: phrase[0], after: phrase[1] } : { before: phrase[0], target, after: phrase[1] };
}

/** The sentence as plain text (the CLI). */
export function auditSentenceText(entry: { action: string; target: string; targetLabel: string }): string {
  const { before, target, after } = auditSentence(entry);
  return [before, target?.name, after].filter(Boolean).join(" ");
}

/** An id alone, shortened: a UUID's first 8 characters say which one to anyone comparing. */
function fallbackName(kind: string, id: string): string {
  const short = /^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(id) ? `${id.slice(0, 8)}…` : id;
  return kind === "member" || kind === "" ? short : `${kind} ${short}`;
}

/** Who did it, as a person reads it: the member's email, "Operator (store-admin)", "System", "API key 67c3b5f6…". */
export function auditActorText(actor: string): string {
  if (actor === OPERATOR_ACTOR) return "Operator (store-admin)";
  if (actor === auditActorName(SYSTEM)) return "System";
  if (actor.startsWith("key:")) return `API key ${fallbackName("", actor.slice(4))}`;
  return actor;
}

/** The actions a reader may filter by, each with its phrase (the dashboard's select). */
export const AUDIT_ACTION_CHOICES = AUDIT_ACTIONS.map((action) => ({ action, text: [PHRASES[action][0], PHRASES[action][1]].filter(Boolean).join(" … ") }));

/** A settings field as a person reads it: "bank_account.number" → "bank account number". */
export function auditFieldText(field: string): string {
  return field.replace(/[._]/g, " ");
}
