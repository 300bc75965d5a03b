// API keys' scopes through the catalog's Connect routes in memory, over a database of
// the test's own: a member grants only what their role may do, whatever the form sent;
// the key answers with its scopes; and a member's keys leave with them unless the owner
// keeps them, the audit log naming the keys either way.
import test, { type ExecutionContext } from "ava";
import { Code } from "@connectrpc/connect";
import type { Actor } from "../../common/actor.js";
import type { Role } from "../../common/roles.js";
import { SCOPES } from "../../common/scopes.js";
import { catalogRouterSetup } from "../helpers/catalog-router.js";
import { failure } from "../helpers/rpc-failure.js";

/** A store, and a member of it with `role` who has accepted their invitation. */
async function setup(t: ExecutionContext, role: Role) {
  const s = await catalogRouterSetup(t, `Toko ${role}`);
  const email = `${role}.${Math.random().toString(36).slice(2)}@example.co.id`;
  const { invitationToken } = await s.asOperator(() => s.accounts.inviteMember({ storeId: s.storeId, email, role }));
  const { member } = await s.accounts.acceptInvitation({ token: invitationToken, password: "a long enough password" });
  const actor: Actor = { kind: "member", memberId: member!.id, role, email };
  s.as.actor = actor;
  return { ...s, actor, email };
}

test("a developer's key refuses payments:write whatever the form sent, names the scope, and makes no key", async (t) => {
  const s = await setup(t, "developer");
  for (const scopes of [["payments:write"], ["orders:read", "payments:write"], [...SCOPES]]) {
    const refused = await failure(s.stores.createApiKey({ storeId: s.storeId, name: "Sync", scopes }));
    t.is(refused.code, Code.PermissionDenied, scopes.join(","));
    t.regex(refused.message, /developer role may not grant payments:write/);
  }
  t.deepEqual((await s.stores.listApiKeys({ storeId: s.storeId })).apiKeys, [], "no key was made");

  const made = await s.stores.createApiKey({ storeId: s.storeId, name: "Sync", scopes: [] });
  t.deepEqual(made.apiKey!.scopes, ["catalog:read", "catalog:write", "orders:read", "orders:write"], "by default, all a developer may grant");
  t.is(made.apiKey!.createdBy, s.email);
  const principal = await s.stores.authenticateApiKey({ secret: made.secret });
  t.deepEqual(principal.scopes, made.apiKey!.scopes);
});

test("an owner grants any scope; scopes come back in the table's order; an unknown scope is INVALID_ARGUMENT naming scopes", async (t) => {
  const s = await setup(t, "owner");
  const made = await s.stores.createApiKey({ storeId: s.storeId, name: "ERP", scopes: ["payments:write", "orders:read"] });
  t.deepEqual(made.apiKey!.scopes, ["orders:read", "payments:write"]);
  t.deepEqual((await s.stores.authenticateApiKey({ secret: made.secret })).scopes, ["orders:read", "payments:write"]);
  const all = await s.stores.createApiKey({ storeId: s.storeId, name: "All", scopes: [] });
  t.deepEqual(all.apiKey!.scopes, [...SCOPES]);

  const unknown = await failure(s.stores.createApiKey({ storeId: s.storeId, name: "Bad", scopes: ["orders:read", "admin"] }));
  t.is(unknown.code, Code.InvalidArgument);
  t.is(unknown.field, "scopes");
  t.regex(unknown.message, /unknown scope "admin"/);
  t.is((await s.stores.listApiKeys({ storeId: s.storeId })).apiKeys.length, 2);
});

test("roles that do not manage keys make none; the operator grants everything", async (t) => {
  const s = await setup(t, "support");
  t.is((await failure(s.stores.createApiKey({ storeId: s.storeId, name: "x", scopes: ["orders:read"] }))).code, Code.PermissionDenied);
  const made = await s.asOperator(() => s.stores.createApiKey({ storeId: s.storeId, name: "CLI", scopes: [] }));
  t.deepEqual(made.apiKey!.scopes, [...SCOPES]);
  t.is(made.apiKey!.createdBy, "operator");
});

test("removing a member revokes the keys they made, unless kept; the audit log names the keys either way", async (t) => {
  const owner = await setup(t, "owner");
  const invite = async (role: Role) => {
    const email = `${role}.${Math.random().toString(36).slice(2)}@example.co.id`;
    const { invitationToken } = await owner.asOperator(() => owner.accounts.inviteMember({ storeId: owner.storeId, email, role }));
    const { member } = await owner.accounts.acceptInvitation({ token: invitationToken, password: "a long enough password" });
    return { kind: "member", memberId: member!.id, role, email } as Actor & { kind: "member" };
  };
  const keyOf = async (actor: Actor, name: string) => {
    owner.as.actor = actor;
    const made = await owner.stores.createApiKey({ storeId: owner.storeId, name, scopes: [] });
    owner.as.actor = owner.actor;
    return made.secret;
  };
  const gone = await invite("developer");
  const goneKey = await keyOf(gone, "Shop sync");
  const ownersKey = await keyOf(owner.actor, "Owner's");
  const kept = await invite("developer");
  const keptKey = await keyOf(kept, "ERP");

  const removed = await owner.accounts.removeMember({ storeId: owner.storeId, memberId: gone.memberId });
  t.deepEqual(removed.apiKeys, ["Shop sync"]);
  t.is((await failure(owner.stores.authenticateApiKey({ secret: goneKey }))).code, Code.Unauthenticated, "their key no longer works");
  t.truthy(await owner.stores.authenticateApiKey({ secret: ownersKey }), "another member's key stays");

  const keptRemoval = await owner.accounts.removeMember({ storeId: owner.storeId, memberId: kept.memberId, keepApiKeys: true });
  t.deepEqual(keptRemoval.apiKeys, ["ERP"]);
  t.truthy(await owner.stores.authenticateApiKey({ secret: keptKey }), "a kept key still works");

  const { entries } = await owner.accounts.listAudit({ storeId: owner.storeId, limit: 50 });
  const removals = entries.filter((entry) => entry.action === "member.removed");
  const said = (email: string) => removals.find((entry) => entry.target.includes(email))?.changes.map((c) => `${c.field}: ${c.before} → ${c.after}`);
  t.deepEqual(said(gone.email), ["API keys: Shop sync → revoked"]);
  t.deepEqual(said(kept.email), ["API keys: ERP → kept"]);
});
