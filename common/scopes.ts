// What an API key may do (docs/keys.md#scopes): five scopes, stored with the key,
// checked by the gateway on every /v1 call and by the services for what moves money.
// A member can hand out only what their own role may do, so a key never lets anyone
// do more than they could on a page.
import { roleMay, type Permission, type Role } from "./roles.js";

export const SCOPES = ["catalog:read", "catalog:write", "orders:read", "orders:write", "payments:write"] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope allows, for the key form and the docs. */
export const SCOPE_TEXT: Record<Scope, string> = {
  "catalog:read": "read products and payment methods",
  "catalog:write": "create and change products, bundles and stock",
  "orders:read": "read orders and events",
  "orders:write": "create orders, cancel pending ones and set their metadata",
  "payments:write": "refund orders and post bank mutations",
};

/**
 * The role permission a member needs to grant each scope. Reading and creating orders
 * is what every key is for, so any role that manages keys may grant them; moving money
 * and changing the catalog need the role's own right to do so.
 */
const GRANT_NEEDS: Record<Scope, Permission> = {
  "catalog:read": "view",
  "catalog:write": "catalog",
  "orders:read": "view",
  "orders:write": "view",
  "payments:write": "payments",
};

/**
 * The service permission each scope gives a key, beyond seeing: the services refuse a
 * key's call that needs a permission no scope of it gives.
 */
const KEY_PERMISSIONS: Partial<Record<Permission, Scope>> = {
  payments: "payments:write",
  catalog: "catalog:write",
  payment_links: "orders:write",
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scopes a member with `role` may put on a key: none unless the role manages keys. */
export function grantableScopes(role: Role): Scope[] {
  if (!roleMay(role, "developer_settings")) return [];
  return SCOPES.filter((scope) => roleMay(role, GRANT_NEEDS[scope]));
}

/** Whether a key with `scopes` may do what the service permission covers: every key sees. */
export function scopesAllow(scopes: readonly Scope[], permission: Permission): boolean {
  if (permission === "view") return true;
  const needed = KEY_PERMISSIONS[permission];
  return needed !== undefined && scopes.includes(needed);
}

/**
 * The scope that lets a key change its store's orders where no money moves (cancel a
 * pending order, set metadata), beyond creating them: whoever may make an order may
 * call it off before it is paid (actorMayChangeOrder in actor.ts).
 */
export const ORDER_CHANGE_SCOPE: Scope = "orders:write";

/** The scope that gives a key the service permission, when one does. */
export function scopeGranting(permission: Permission): Scope | undefined {
  return KEY_PERMISSIONS[permission];
}

/** The scopes in the table's order, each once; undefined when one is not a scope. */
export function parseScopes(values: readonly string[]): Scope[] | undefined {
  if (!values.every(isScope)) return undefined;
  return SCOPES.filter((scope) => values.includes(scope));
}

/**
 * What a member is refused when they ask for a scope beyond their role ("grant
 * payments:write"): the catalog's refusal says it, and the dashboard's 403 page names it.
 */
export function grantRefusal(scope: Scope): string {
  return `grant ${scope}`;
}

/** The message of a call outside the key's scopes, the same from the gateway and the services. */
export function missingScopeMessage(scope: Scope): string {
  return `this key lacks ${scope}`;
}

/**
 * The scope each keyed /v1 operation needs, by method and OpenAPI path: the gateway's
 * routes are registered through it and the OpenAPI document names it per operation.
 */
export const ROUTE_SCOPES = {
  "GET /v1/products": "catalog:read",
  "POST /v1/products": "catalog:write",
  "GET /v1/products/{product_id}": "catalog:read",
  "PATCH /v1/products/{product_id}": "catalog:write",
  "GET /v1/payment-methods": "catalog:read",
  "POST /v1/orders": "orders:write",
  "GET /v1/orders": "orders:read",
  "GET /v1/orders/{order_id}": "orders:read",
  "PATCH /v1/orders/{order_id}": "orders:write",
  "POST /v1/orders/{order_id}/cancel": "orders:write",
  "POST /v1/orders/{order_id}/refunds": "payments:write",
  "POST /v1/bank-mutations": "payments:write",
  "GET /v1/events": "orders:read",
  // A test order moves no money: whoever may create orders may simulate their payment.
  "POST /v1/test/orders/{order_id}/simulate": "orders:write",
  // Payment links (docs/api.md#payment-links): a link makes orders, so the order scopes.
  "POST /v1/payment-links": "orders:write",
  "GET /v1/payment-links": "orders:read",
  "POST /v1/payment-links/{link_id}/deactivate": "orders:write",
} as const satisfies Record<string, Scope>;

export type ScopedRoute = keyof typeof ROUTE_SCOPES;
