// The audit log's vocabulary (docs/cli.md, docs/team.md#audit-log): who did what to which thing. The CLI,
// the dashboard and the catalog service (which keeps the log) all use these names.

/** The actor of every change made with `store-admin`. */
export const OPERATOR_ACTOR = "operator";

export const AUDIT_ACTIONS = [
  "store.created",
  "product.created",
  "bundle.created",
  "product.price_changed",
  "product.status_changed",
  "bundle.price_changed",
  "bundle.status_changed",
  "product.updated",
  "bundle.updated",
  "member.signed_in",
  "member.invited",
  "member.removed",
  "member.role_changed",
  "member.password_reset",
  "invitation.revoked",
  "key.created",
  "key.revoked",
  "store.plan_changed",
  "store.settings_changed",
  "endpoint.created",
  "endpoint.updated",
  "endpoint.enabled",
  "endpoint.disabled",
  "endpoint.deleted",
  "endpoint.secret_revealed",
  "endpoint.secret_rotated",
  "endpoint.header_set",
  "endpoint.header_removed",
  "endpoint.headers_revealed",
  "endpoint.test_sent",
  "events.replayed",
  "delivery.resent",
  "order.marked_paid",
  "order.cancelled",
  "order.refunded",
  "bank_mutations.imported",
  "bank_mutation.assigned",
  "bank_mutation.dismissed",
  "payment_link.created",
  "payment_link.deactivated",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Whether `value` names an action the audit log records (a filter's check). */
export const isAuditAction = (value: string): value is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(value);

/** The longest actor a filter may name: an email address's limit. */
export const MAX_AUDIT_ACTOR_LENGTH = 320;

/**
 * The change a member's removal records about the API keys they made: `before` their
 * labels, `after` "revoked" or "kept". The Team page's notice reads it back.
 */
export const MEMBER_API_KEYS_FIELD = "API keys";

/** A target as the log shows it: "key:<id>", "endpoint:<id>", "order:<id>", "member:<email>". */
export function auditTarget(
  kind: "store" | "product" | "bundle" | "key" | "endpoint" | "delivery" | "order" | "member" | "mutation" | "payment_link",
  id: string,
): string {
  return `${kind}:${id}`;
}
