// The catalog enforces the roles of docs/team.md#roles for its changing RPCs (API keys, settings, items, the team and
// its invitations) and writes each change's audit entry with it: the real routes and
// domain in memory over a database of the test's own, each call made as whoever
// `as.actor` names. Two concurrent demotions are accounts/accounts.test.ts's.
import test, { type ExecutionContext } from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { ROLES, roleMay, type Permission } from "../../common/roles.js";
import { ItemStatus } from "../../gen/catalog/v1/catalog_pb.js";
import { catalogRouterSetup } from "../helpers/catalog-router.js";

async function setup(t: ExecutionContext) {
  const { as, stores, items, accounts, storeId, member, asOperator } = await catalogRouterSetup(t, "Toko Peran");
  const audit = () => asOperator(async () => (await accounts.listAudit({ storeId, limit: 500 })).entries);
  const state = () =>
    asOperator(async () => ({
      keys: (await stores.listApiKeys({ storeId })).apiKeys.map((k) => [k.id, k.revokedAt !== undefined]),
      members: (await accounts.listMembers({ storeId })).members.map((m) => [m.id, m.role]),
      invitations: (await accounts.listInvitations({ storeId })).invitations.map((i) => i.id),
      items: (await items.listPublishedItems({ storeId, limit: 50 })).items.map((i) => [i.id, i.price, i.status]),
      store: (await stores.getStore({ id: storeId })).store,
    }));
  /** A published product, made by the operator. */
  const product = () => asOperator(async () => (await items.createProduct({ storeId, title: `Kopi ${Math.random()}`, price: 20_000n, status: ItemStatus.PUBLISHED })).item!);
  return { as, stores, items, accounts, storeId, member, asOperator, audit, state, product };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Each changing RPC: its permission, the audit action it writes, and a call that makes a fresh change. */
const CHANGES: { rpc: string; permission: Permission; action: string; call: (s: Setup) => Promise<() => Promise<unknown>> }[] = [
  { rpc: "CreateApiKey", permission: "developer_settings", action: "key.created", call: async (s) => () => s.stores.createApiKey({ storeId: s.storeId, name: "ci" }) },
  {
    rpc: "RevokeApiKey",
    permission: "developer_settings",
    action: "key.revoked",
    call: async (s) => {
      const { apiKey } = await s.asOperator(() => s.stores.createApiKey({ storeId: s.storeId, name: "old" }));
      return () => s.stores.revokeApiKey({ storeId: s.storeId, keyId: apiKey!.id });
    },
  },
  {
    rpc: "UpdateStoreSettings",
    permission: "store_admin",
    action: "store.settings_changed",
    call: async (s) => () => s.stores.updateStoreSettings({ storeId: s.storeId, redirects: { successUrl: "https://peran.example/ok" } }),
  },
  { rpc: "InviteMember", permission: "store_admin", action: "member.invited", call: async (s) => () => s.accounts.inviteMember({ storeId: s.storeId, email: "baru@example.co.id", role: "viewer" }) },
  {
    rpc: "RemoveMember",
    permission: "store_admin",
    action: "member.removed",
    call: async (s) => {
      const target = await s.member("support");
      return () => s.accounts.removeMember({ storeId: s.storeId, memberId: target.memberId });
    },
  },
  {
    rpc: "SetMemberRole",
    permission: "store_admin",
    action: "member.role_changed",
    call: async (s) => {
      const target = await s.member("viewer");
      return () => s.accounts.setMemberRole({ storeId: s.storeId, memberId: target.memberId, role: "developer" });
    },
  },
  {
    rpc: "RevokeInvitation",
    permission: "store_admin",
    action: "invitation.revoked",
    call: async (s) => {
      await s.asOperator(() => s.accounts.inviteMember({ storeId: s.storeId, email: "tertunda@example.co.id", role: "viewer" }));
      const [pending] = (await s.asOperator(() => s.accounts.listInvitations({ storeId: s.storeId }))).invitations;
      return () => s.accounts.revokeInvitation({ storeId: s.storeId, invitationId: pending!.id });
    },
  },
  {
    rpc: "SetItemPrice",
    permission: "catalog",
    action: "product.price_changed",
    call: async (s) => {
      const item = await s.product();
      return () => s.items.setItemPrice({ storeId: s.storeId, itemId: item.id, price: 25_000n });
    },
  },
  {
    rpc: "SetItemStatus",
    permission: "catalog",
    action: "product.status_changed",
    call: async (s) => {
      const item = await s.product();
      return () => s.items.setItemStatus({ storeId: s.storeId, itemId: item.id, status: ItemStatus.ARCHIVED });
    },
  },
  {
    rpc: "UpdateItem",
    permission: "catalog",
    action: "product.updated",
    call: async (s) => {
      const item = await s.product();
      return () => s.items.updateItem({ storeId: s.storeId, itemId: item.id, title: "Kopi Toraja", price: 27_000n, stock: { quantity: 5n } });
    },
  },
];

async function rejects(t: ExecutionContext, call: Promise<unknown>, code: Code, message?: RegExp) {
  const error = ConnectError.from(await t.throwsAsync(call));
  t.is(error.code, code, `expected ${Code[code]}, got ${Code[error.code]}: ${error.rawMessage}`);
  if (message) t.regex(error.rawMessage, message);
}

for (const change of CHANGES) {
  for (const role of ROLES) {
    const may = roleMay(role, change.permission);
    test(`${change.rpc} as ${role}: ${may ? "done, with one audit entry naming the member" : "PERMISSION_DENIED, nothing written"}`, async (t) => {
      const s = await setup(t);
      await s.member("owner", "pemilik@example.co.id"); // the store's owner, so a team change is never about the last one
      const call = await change.call(s);
      const actor = await s.member(role);
      const before = { state: await s.state(), audit: await s.audit() };
      s.as.actor = actor;
      if (!may) {
        await rejects(t, call(), Code.PermissionDenied, new RegExp(`^the ${role} role may not`));
        t.deepEqual(await s.state(), before.state, "nothing changed");
        t.deepEqual(await s.audit(), before.audit, "no audit entry");
        return;
      }
      await call();
      const added = (await s.audit()).slice(0, -before.audit.length || undefined);
      t.deepEqual(
        added.map((e) => [e.actor, e.action]),
        [[actor.email, change.action]],
      );
    });
  }
}

test("a changing RPC with no actor is PERMISSION_DENIED; reads need none", async (t) => {
  const s = await setup(t);
  s.as.actor = undefined;
  await rejects(t, s.stores.createApiKey({ storeId: s.storeId, name: "x" }), Code.PermissionDenied, /does not say who acts/);
  await rejects(t, s.accounts.inviteMember({ storeId: s.storeId, email: "x@example.co.id" }), Code.PermissionDenied);
  t.is((await s.stores.getStore({ id: s.storeId })).store!.id, s.storeId);
  t.deepEqual((await s.accounts.listMembers({ storeId: s.storeId })).members, []);
  t.is((await s.stores.listApiKeys({ storeId: s.storeId })).apiKeys.length, 0);
});

test("roles: the invitation's role (owner when unset) is the member's once accepted, in ListMembers and ResolveSession; a bad role is INVALID_ARGUMENT naming role", async (t) => {
  const s = await setup(t);
  const plain = await s.accounts.inviteMember({ storeId: s.storeId, email: "a@example.co.id" });
  t.is(plain.member!.role, "owner");
  const dev = await s.accounts.inviteMember({ storeId: s.storeId, email: "b@example.co.id", role: "owner" });
  t.is(dev.member!.role, "owner");
  const again = await s.accounts.inviteMember({ storeId: s.storeId, email: "b@example.co.id", role: "developer" });
  t.is(again.member!.role, "developer", "a new invitation replaces the pending one, with its role");
  t.deepEqual(
    (await s.accounts.listInvitations({ storeId: s.storeId })).invitations.map((i) => [i.email, i.role]),
    [
      ["b@example.co.id", "developer"],
      ["a@example.co.id", "owner"],
    ],
  );
  await s.accounts.acceptInvitation({ token: plain.invitationToken, password: "kata sandi rahasia" });
  const accepted = await s.accounts.acceptInvitation({ token: again.invitationToken, password: "kata sandi rahasia" });
  t.deepEqual((await s.accounts.resolveSession({ token: accepted.session!.token })).stores.map((st) => [st.id, st.role]), [[s.storeId, "developer"]]);
  t.deepEqual(
    (await s.accounts.listMembers({ storeId: s.storeId })).members.map((m) => [m.email, m.role]),
    [
      ["a@example.co.id", "owner"],
      ["b@example.co.id", "developer"],
    ],
  );
  const kept = await s.accounts.inviteMember({ storeId: s.storeId, email: "b@example.co.id", role: "owner" });
  t.is(kept.member!.role, "developer", "a member already in the store keeps their role");
  await s.accounts.acceptInvitation({ token: kept.invitationToken, password: "kata sandi rahasia" });
  t.is((await s.accounts.listMembers({ storeId: s.storeId })).members.find((m) => m.email === "b@example.co.id")!.role, "developer");
  await rejects(t, s.accounts.inviteMember({ storeId: s.storeId, email: "c@example.co.id", role: "admin" }), Code.InvalidArgument, /^role must be one of owner, developer, support, viewer$/);
  await rejects(t, s.accounts.setMemberRole({ storeId: s.storeId, memberId: dev.member!.id, role: "" }), Code.InvalidArgument, /^role must be/);
});

test("the last owner: neither demoted nor removed (FAILED_PRECONDITION, nothing written); with two owners one may go", async (t) => {
  const s = await setup(t);
  const first = await s.member("owner");
  const second = await s.member("owner");
  const before = await s.audit();
  await s.accounts.setMemberRole({ storeId: s.storeId, memberId: first.memberId, role: "developer" });
  const afterDemotion = await s.audit();
  t.is(afterDemotion.length, before.length + 1);
  await rejects(t, s.accounts.setMemberRole({ storeId: s.storeId, memberId: second.memberId, role: "viewer" }), Code.FailedPrecondition, /at least one owner/);
  await rejects(t, s.accounts.removeMember({ storeId: s.storeId, memberId: second.memberId }), Code.FailedPrecondition, /at least one owner/);
  t.deepEqual(await s.audit(), afterDemotion, "no audit entry for a refused change");
  t.deepEqual(
    (await s.accounts.listMembers({ storeId: s.storeId })).members.find((m) => m.id === second.memberId)!.role,
    "owner",
  );
  // Setting the role a member already has changes nothing and records nothing.
  await s.accounts.setMemberRole({ storeId: s.storeId, memberId: second.memberId, role: "owner" });
  t.deepEqual(await s.audit(), afterDemotion);
  // An owner may leave once another is there.
  await s.accounts.setMemberRole({ storeId: s.storeId, memberId: first.memberId, role: "owner" });
  await s.accounts.removeMember({ storeId: s.storeId, memberId: second.memberId });
  t.deepEqual((await s.accounts.listMembers({ storeId: s.storeId })).members.map((m) => m.role), ["owner"]);
});
