// Who acts behind an RPC (docs/team.md#who-acts): a member of the store (with the role they hold
// there), the operator (`store-admin`), the system itself, or an API key (the store's
// own systems through /v1). Callers state it in request headers, set by one client
// interceptor (platform/rpc-client.ts); the service that owns the thing reads it
// (platform/rpc-actor.ts), decides with the role table (roles.ts) and writes it
// into the audit entry of the change.
import { OPERATOR_ACTOR } from "./audit.js";
import { isRole, roleMay, type Permission, type Role } from "./roles.js";
import { ORDER_CHANGE_SCOPE, parseScopes, scopesAllow, type Scope } from "./scopes.js";

export type Actor =
  | { kind: "member"; memberId: string; role: Role; email: string }
  | { kind: "operator" }
  | { kind: "system" }
  | { kind: "api_key"; keyId: string; scopes: Scope[] };

export const OPERATOR: Actor = { kind: "operator" };
export const SYSTEM: Actor = { kind: "system" };

/** The headers an actor travels in. */
export const ACTOR_HEADERS = { kind: "x-actor", id: "x-actor-id", role: "x-actor-role", email: "x-actor-email", scopes: "x-actor-scopes" } as const;

/** The request headers that state `actor`. */
export function actorHeaders(actor: Actor): Record<string, string> {
  switch (actor.kind) {
    case "member":
      return { [ACTOR_HEADERS.kind]: "member", [ACTOR_HEADERS.id]: actor.memberId, [ACTOR_HEADERS.role]: actor.role, [ACTOR_HEADERS.email]: actor.email };
    case "api_key":
      return { [ACTOR_HEADERS.kind]: "api_key", [ACTOR_HEADERS.id]: actor.keyId, [ACTOR_HEADERS.scopes]: actor.scopes.join(",") };
    default:
      return { [ACTOR_HEADERS.kind]: actor.kind };
  }
}

/** The actor stated by request headers; undefined when none is, or it is malformed. */
export function actorFromHeaders(header: { get(name: string): string | null }): Actor | undefined {
  const kind = header.get(ACTOR_HEADERS.kind);
  const id = header.get(ACTOR_HEADERS.id) ?? "";
  switch (kind) {
    case "operator":
      return OPERATOR;
    case "system":
      return SYSTEM;
    case "api_key": {
      const listed = header.get(ACTOR_HEADERS.scopes) ?? "";
      const scopes = parseScopes(listed === "" ? [] : listed.split(","));
      return id && scopes ? { kind: "api_key", keyId: id, scopes } : undefined;
    }
    case "member": {
      const role = header.get(ACTOR_HEADERS.role) ?? "";
      const email = header.get(ACTOR_HEADERS.email) ?? "";
      return id && email && isRole(role) ? { kind: "member", memberId: id, role, email } : undefined;
    }
    default:
      return undefined;
  }
}

/** Whether the actor may do what `permission` covers: the operator and the system may do anything. */
export function actorMay(actor: Actor, permission: Permission): boolean {
  switch (actor.kind) {
    case "member":
      return roleMay(actor.role, permission);
    case "api_key":
      return scopesAllow(actor.scopes, permission);
    default:
      return true;
  }
}

/**
 * Whether the actor may change an order in a way that moves no money: cancel a pending
 * one, set its metadata (docs/keys.md#scopes). A key needs orders:write, the scope that
 * makes orders, or payments:write; a member needs the role's `payments`, as for every
 * order action on the dashboard; the operator and the system may.
 */
export function actorMayChangeOrder(actor: Actor): boolean {
  if (actor.kind === "api_key") return actor.scopes.includes(ORDER_CHANGE_SCOPE) || scopesAllow(actor.scopes, "payments");
  return actorMay(actor, "payments");
}

/** How the audit log names the actor: a member's email, `operator`, `system`, or `key:<id>`. */
export function auditActorName(actor: Actor): string {
  switch (actor.kind) {
    case "member":
      return actor.email;
    case "operator":
      return OPERATOR_ACTOR;
    case "system":
      return "system";
    case "api_key":
      return `key:${actor.keyId}`;
  }
}
