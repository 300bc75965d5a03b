// The role table of docs/team.md#roles as data, every role × every permission, and the actor
// each RPC carries: its headers, what it may do, how the audit log names it.
import test from "ava";
import { actorFromHeaders, actorHeaders, actorMay, auditActorName, OPERATOR, SYSTEM, type Actor } from "../../common/actor.js";
import { PERMISSION_NAMES, permissionsOf, ROLES, roleMay, type Permission, type Role } from "../../common/roles.js";
import { SCOPES, type Scope } from "../../common/scopes.js";

// The role table of docs/team.md#roles, written out here as that page shows it: ✔ where the role may.
const ROLE_TABLE: Record<Permission, Record<Role, boolean>> = {
  view: { owner: true, developer: true, support: true, viewer: true },
  developer_settings: { owner: true, developer: true, support: false, viewer: false },
  payments: { owner: true, developer: false, support: true, viewer: false },
  store_admin: { owner: true, developer: false, support: false, viewer: false },
  catalog: { owner: true, developer: true, support: false, viewer: false },
  payment_links: { owner: true, developer: true, support: true, viewer: false },
};

test("every role × every permission is the documented table (docs/team.md)", (t) => {
  t.deepEqual([...PERMISSION_NAMES].sort(), Object.keys(ROLE_TABLE).sort());
  for (const permission of PERMISSION_NAMES) {
    for (const role of ROLES) t.is(roleMay(role, permission), ROLE_TABLE[permission][role], `${role} / ${permission}`);
  }
  t.deepEqual(permissionsOf("owner"), ["view", "developer_settings", "payments", "store_admin", "catalog", "payment_links"]);
  t.deepEqual(permissionsOf("viewer"), ["view"]);
});

const member = (role: Role): Actor => ({ kind: "member", memberId: "3f7e6a52-0c3e-4d59-9a51-7f0e7d1e2b10", role, email: "sari@toko.example" });

test("an actor travels in headers and comes back the same; anything malformed is no actor", (t) => {
  for (const actor of [OPERATOR, SYSTEM, member("support"), { kind: "api_key", keyId: "k-1", scopes: ["orders:read", "payments:write"] } as Actor, { kind: "api_key", keyId: "k-2", scopes: [] } as Actor]) {
    t.deepEqual(actorFromHeaders(new Headers(actorHeaders(actor))), actor);
  }
  t.is(actorFromHeaders(new Headers()), undefined);
  t.is(actorFromHeaders(new Headers({ "x-actor": "member", "x-actor-id": "m", "x-actor-role": "admin", "x-actor-email": "a@b.c" })), undefined, "no such role");
  t.is(actorFromHeaders(new Headers({ "x-actor": "member", "x-actor-role": "owner", "x-actor-email": "a@b.c" })), undefined, "no member id");
  t.is(actorFromHeaders(new Headers({ "x-actor": "root" })), undefined);
  t.is(actorFromHeaders(new Headers({ "x-actor": "api_key", "x-actor-id": "k-1", "x-actor-scopes": "orders:read,admin" })), undefined, "no such scope");
});

test("members may what their role may; the operator and the system anything; an API key sees, and does what its scopes give", (t) => {
  for (const permission of PERMISSION_NAMES) {
    for (const role of ROLES) t.is(actorMay(member(role), permission), ROLE_TABLE[permission][role]);
    t.true(actorMay(OPERATOR, permission));
    t.true(actorMay(SYSTEM, permission));
  }
  const may = (scopes: Scope[]) => PERMISSION_NAMES.filter((permission) => actorMay({ kind: "api_key", keyId: "k-1", scopes }, permission));
  t.deepEqual(may([...SCOPES]), ["view", "payments", "catalog", "payment_links"]);
  t.deepEqual(may(["catalog:read", "catalog:write", "orders:read", "orders:write"]), ["view", "catalog", "payment_links"], "no money without payments:write");
  t.deepEqual(may(["orders:read"]), ["view"]);
});

test("the audit log names a member by email, the operator and the system by name, a key by id", (t) => {
  t.is(auditActorName(member("owner")), "sari@toko.example");
  t.is(auditActorName(OPERATOR), "operator");
  t.is(auditActorName(SYSTEM), "system");
  t.is(auditActorName({ kind: "api_key", keyId: "k-1", scopes: [] }), "key:k-1");
});
