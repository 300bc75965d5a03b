// The scopes of API keys as data: which operation needs which scope, which role may
// grant which, and what a key's scopes let it do in the services.
import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { actorMay, actorMayChangeOrder } from "../../common/actor.js";
import { ROLES, type Role } from "../../common/roles.js";
import { grantableScopes, parseScopes, ROUTE_SCOPES, SCOPES, scopesAllow, type Scope } from "../../common/scopes.js";
import { fromConnectError } from "../../gateway/errors.js";
import { openApiDocument } from "../../gateway/openapi.js";

// The scope table, written out: each keyed operation and the one scope it needs.
const EXPECTED_ROUTES: Record<string, Scope> = {
  "GET /v1/products": "catalog:read",
  "GET /v1/payment-methods": "catalog:read",
  "GET /v1/orders": "orders:read",
  "GET /v1/orders/{order_id}": "orders:read",
  "PATCH /v1/orders/{order_id}": "orders:write",
  "POST /v1/orders/{order_id}/cancel": "orders:write",
  "POST /v1/orders": "orders:write",
  "POST /v1/orders/{order_id}/refunds": "payments:write",
  "POST /v1/test/orders/{order_id}/simulate": "orders:write",
  "POST /v1/bank-mutations": "payments:write",
  "GET /v1/events": "orders:read",
  "POST /v1/payment-links": "orders:write",
  "GET /v1/payment-links": "orders:read",
  "POST /v1/payment-links/{link_id}/deactivate": "orders:write",
};

test("each keyed operation needs the scope of the table", (t) => {
  t.deepEqual({ ...ROUTE_SCOPES }, EXPECTED_ROUTES);
});

test("every keyed operation the OpenAPI document lists names its scope, and only those", (t) => {
  const keyed: Record<string, string> = {};
  for (const [path, item] of Object.entries(openApiDocument.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, { security?: unknown[]; "x-required-scope"?: string }>)) {
      if (operation.security?.length === 0) {
        t.is(operation["x-required-scope"], undefined, `${method} ${path} needs no key, so no scope`);
        continue;
      }
      keyed[`${method.toUpperCase()} ${path}`] = operation["x-required-scope"] ?? "(none)";
    }
  }
  t.deepEqual(keyed, EXPECTED_ROUTES);
});

test("a role grants what it may do itself: an owner all five, a developer all but payments:write, the others none", (t) => {
  const expected: Record<Role, Scope[]> = {
    owner: [...SCOPES],
    developer: ["catalog:read", "catalog:write", "orders:read", "orders:write"],
    support: [],
    viewer: [],
  };
  for (const role of ROLES) t.deepEqual(grantableScopes(role), expected[role], role);
});

test("a key moves money only with payments:write and changes the catalog only with catalog:write; every key sees", (t) => {
  t.true(scopesAllow([], "view"));
  t.false(scopesAllow(["orders:read", "orders:write", "catalog:read", "catalog:write"], "payments"));
  t.true(scopesAllow(["payments:write"], "payments"));
  t.true(scopesAllow(["catalog:write"], "catalog"));
  for (const permission of ["developer_settings", "store_admin"] as const) t.false(scopesAllow([...SCOPES], permission), permission);
  t.false(actorMay({ kind: "api_key", keyId: "k", scopes: ["orders:write"] }, "payments"));
});

test("a change that moves no money (cancel a pending order, metadata): a key with orders:write or payments:write, a member with payments", (t) => {
  const key = (scopes: Scope[]) => ({ kind: "api_key" as const, keyId: "k", scopes });
  t.true(actorMayChangeOrder(key(["orders:write"])));
  t.true(actorMayChangeOrder(key(["payments:write"])));
  t.false(actorMayChangeOrder(key(["orders:read", "catalog:write"])));
  for (const role of ["owner", "support"] as const) t.true(actorMayChangeOrder({ kind: "member", memberId: "m", role, email: "a@b.co" }), role);
  for (const role of ["developer", "viewer"] as const) t.false(actorMayChangeOrder({ kind: "member", memberId: "m", role, email: "a@b.co" }), role);
  t.true(actorMayChangeOrder({ kind: "operator" }));
});

test("scopes parse into the table's order, each once; anything else is no scope list", (t) => {
  t.deepEqual(parseScopes(["payments:write", "orders:read", "orders:read"]), ["orders:read", "payments:write"]);
  t.deepEqual(parseScopes([]), []);
  t.is(parseScopes(["orders:read", "orders:*"]), undefined);
  t.is(parseScopes(["Orders:Read"]), undefined);
});

test("a service's PERMISSION_DENIED reaches an API client as 403 FORBIDDEN with its words, never as PLAN_REQUIRED", (t) => {
  const error = fromConnectError(new ConnectError("this key lacks payments:write", Code.PermissionDenied));
  t.is(error.status, 403);
  t.is(error.code, "FORBIDDEN");
  t.is(error.message, "this key lacks payments:write");
});
