// The catalog's own changes of stores and items (docs/cli.md, docs/team.md#audit-log): CreateStore and
// SetStorePlan are the platform's (the operator or the system; never a member or an API
// key), CreateProduct and CreateBundle need the catalog permission (owners, developers, a
// key with catalog:write); each writes exactly one audit
// entry naming the actor in the change's transaction, none when refused, and neither
// the change nor the entry when that transaction fails. The real routes and domain in
// memory over a database of the test's own, each call made as whoever `as.actor` names.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { auditActorName, OPERATOR, SYSTEM, type Actor } from "../../common/actor.js";
import { ROLES, roleMay } from "../../common/roles.js";
import { SCOPES, scopesAllow } from "../../common/scopes.js";
import { ItemStatus, Plan } from "../../gen/catalog/v1/catalog_pb.js";
import { checkPaging } from "../helpers/audit-pages.js";
import { catalogRouterSetup } from "../helpers/catalog-router.js";
import { failure } from "../helpers/rpc-failure.js";

async function setup(t: ExecutionContext) {
  const { as, sql, stores, items, accounts, storeId, asOperator, member } = await catalogRouterSetup(t, "Toko Audit");
  const productId = (await items.createProduct({ storeId, title: "Kopi", price: 10_000n })).item!.id;
  /** Every store's audit entries (the stores this test knows of), oldest first. */
  const known = new Set([storeId]);
  const audit = () =>
    asOperator(async () => {
      const all = [];
      for (const id of known) all.push(...(await accounts.listAudit({ storeId: id, limit: 500 })).entries);
      // By position (the microsecond, then the sequence), as the log itself orders them.
      return all
        .sort((a, b) => Number(a.position!.micros - b.position!.micros) || Number(a.position!.seq - b.position!.seq))
        .map((e) => [e.storeId, e.actor, e.action, e.target]);
    });
  const state = () =>
    asOperator(async () => ({
      counts: (await sql<{ stores: number; items: number }[]>`
        select (select count(*)::int from stores) as stores, (select count(*)::int from items) as items`)[0],
      plan: (await stores.getStore({ id: storeId })).store!.plan,
      items: (await items.listPublishedItems({ storeId, limit: 50 })).items.map((i) => i.id),
    }));
  return { as, sql, stores, items, accounts, storeId, productId, member, asOperator, audit, state, known };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Each of the four changes: who may, what it writes, and a call making a fresh change that answers the entry it should write. */
const CHANGES: {
  rpc: string;
  who: "platform" | "catalog";
  call: (s: Setup) => () => Promise<{ storeId: string; action: string; target: string }>;
}[] = [
  {
    rpc: "CreateStore",
    who: "platform",
    call: (s) => async () => {
      const { store } = await s.stores.createStore({ name: "Toko Baru", plan: Plan.STARTER });
      s.known.add(store!.id);
      return { storeId: store!.id, action: "store.created", target: `store:${store!.id}` };
    },
  },
  {
    rpc: "SetStorePlan",
    who: "platform",
    call: (s) => async () => {
      await s.stores.setStorePlan({ storeId: s.storeId, plan: Plan.SCALE });
      return { storeId: s.storeId, action: "store.plan_changed", target: `store:${s.storeId}` };
    },
  },
  {
    rpc: "CreateProduct",
    who: "catalog",
    call: (s) => async () => {
      const { item } = await s.items.createProduct({ storeId: s.storeId, title: "Teh", price: 5_000n });
      return { storeId: s.storeId, action: "product.created", target: `product:${item!.id}` };
    },
  },
  {
    rpc: "CreateBundle",
    who: "catalog",
    call: (s) => async () => {
      const { item } = await s.items.createBundle({ storeId: s.storeId, title: "Paket", price: 9_000n, productIds: [s.productId] });
      return { storeId: s.storeId, action: "bundle.created", target: `bundle:${item!.id}` };
    },
  },
];

async function rejects(t: ExecutionContext, call: Promise<unknown>, code: Code, message?: RegExp) {
  const error = ConnectError.from(await t.throwsAsync(call));
  t.is(error.code, code, `expected ${Code[code]}, got ${Code[error.code]}: ${error.rawMessage}`);
  if (message) t.regex(error.rawMessage, message);
}

const ACTORS: { name: string; actor: (s: Setup) => Promise<Actor> }[] = [
  { name: "the operator", actor: async () => OPERATOR },
  { name: "the system", actor: async () => SYSTEM },
  { name: "an API key", actor: async () => ({ kind: "api_key", keyId: randomUUID(), scopes: [...SCOPES] }) },
  ...ROLES.map((role) => ({ name: `a ${role}`, actor: (s: Setup) => s.member(role) })),
];

function allowed(who: "platform" | "catalog", actor: Actor): boolean {
  if (actor.kind === "operator" || actor.kind === "system") return true;
  if (who !== "catalog") return false;
  return actor.kind === "member" ? roleMay(actor.role, "catalog") : actor.kind === "api_key" && scopesAllow(actor.scopes, "catalog");
}

for (const change of CHANGES) {
  for (const { name, actor: makeActor } of ACTORS) {
    test(`${change.rpc} as ${name}: done with exactly one audit entry naming the actor, or PERMISSION_DENIED with nothing written`, async (t) => {
      const s = await setup(t);
      const actor = await makeActor(s);
      const before = { state: await s.state(), audit: await s.audit() };
      s.as.actor = actor;
      if (!allowed(change.who, actor)) {
        const who = actor.kind === "member" ? `the ${actor.role} role` : "an API key";
        await rejects(t, change.call(s)(), Code.PermissionDenied, new RegExp(`^${who} may not`));
        t.deepEqual(await s.state(), before.state, "nothing changed");
        t.deepEqual(await s.audit(), before.audit, "no audit entry");
        return;
      }
      const expected = await change.call(s)();
      t.notDeepEqual(await s.state(), before.state, "the change is made");
      const after = await s.audit();
      t.deepEqual(after.slice(0, before.audit.length), before.audit);
      t.deepEqual(after.slice(before.audit.length), [[expected.storeId, auditActorName(actor), expected.action, expected.target]]);
    });
  }

  test(`${change.rpc}: when the audit entry cannot be written, the transaction fails and neither the change nor an entry is left`, async (t) => {
    const s = await setup(t);
    const before = { state: await s.state(), audit: await s.audit() };
    // The database refuses every new entry, as a failing write would.
    await s.sql.unsafe(`create function refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'the audit log is away'; end $$`);
    await s.sql.unsafe(`create trigger refuse_audit before insert on audit_log for each statement execute function refuse_audit()`);
    try {
      await rejects(t, change.call(s)(), Code.Internal);
    } finally {
      await s.sql.unsafe(`drop trigger refuse_audit on audit_log`);
    }
    t.deepEqual(await s.state(), before.state, "nothing changed");
    t.deepEqual(await s.audit(), before.audit, "no audit entry");
  });
}

test("the store and item changes with no actor are PERMISSION_DENIED; reads need none", async (t) => {
  const s = await setup(t);
  s.as.actor = undefined;
  await rejects(t, s.stores.createStore({ name: "x" }), Code.PermissionDenied, /does not say who acts/);
  await rejects(t, s.stores.setStorePlan({ storeId: s.storeId, plan: Plan.SCALE }), Code.PermissionDenied, /does not say who acts/);
  await rejects(t, s.items.createProduct({ storeId: s.storeId, title: "x", price: 1n }), Code.PermissionDenied, /does not say who acts/);
  await rejects(t, s.items.createBundle({ storeId: s.storeId, title: "x", price: 1n, productIds: [s.productId] }), Code.PermissionDenied, /does not say who acts/);
  t.is((await s.stores.getStore({ id: s.storeId })).store!.plan, Plan.GROWTH);
  t.deepEqual((await s.items.listPublishedItems({ storeId: s.storeId, limit: 10 })).items.map((i) => i.id), [s.productId]);
  t.is((await s.items.getItems({ storeId: s.storeId, ids: [s.productId] })).items.length, 1);
  t.is((await s.items.getOrderCatalog({ storeId: s.storeId, ids: [s.productId] })).items.length, 1);
});

test("SetStorePlan for an unknown store: NOT_FOUND and no entry", async (t) => {
  const s = await setup(t);
  const before = await s.audit();
  await rejects(t, s.stores.setStorePlan({ storeId: randomUUID(), plan: Plan.SCALE }), Code.NotFound);
  t.deepEqual(await s.audit(), before);
});

// Reading the log (the readable-audit-trail issue): labels, changes, filters, paging.

test("ListAudit: each entry names what its target was called then; settings, plan, price, status and role changes say before → after", async (t) => {
  const s = await setup(t);
  const { storeId, productId } = s;
  await s.stores.setStorePlan({ storeId, plan: Plan.SCALE });
  const bank = { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" };
  await s.stores.updateStoreSettings({ storeId, bankAccount: bank, redirects: { successUrl: "https://toko.example/terima-kasih" } });
  await s.stores.updateStoreSettings({ storeId, bankAccount: { ...bank, accountNumber: "0987654321" }, redirects: { successUrl: "https://toko.example/terima-kasih" } });
  await s.items.setItemPrice({ storeId, itemId: productId, price: 12_500n });
  await s.items.setItemStatus({ storeId, itemId: productId, status: ItemStatus.ARCHIVED });
  const { item: bundle } = await s.items.createBundle({ storeId, title: "Paket Hemat", price: 9_000n, productIds: [productId] });
  await s.items.setItemPrice({ storeId, itemId: bundle!.id, price: 8_000n });
  const named = (await s.stores.createApiKey({ storeId, name: "kasir" })).apiKey!;
  const unnamed = (await s.stores.createApiKey({ storeId, name: "" })).apiKey!;
  await s.stores.revokeApiKey({ storeId, keyId: named.id });
  const owner = await s.member("owner");
  const dev = await s.member("developer");
  s.as.actor = owner;
  await s.accounts.setMemberRole({ storeId, memberId: dev.memberId, role: "support" });

  const { entries } = await s.asOperator(() => s.accounts.listAudit({ storeId }));
  t.deepEqual(
    entries.reverse().map((e) => [e.actor, e.action, e.target, e.targetLabel, e.changes.map((c) => `${c.field}: ${c.before} → ${c.after}`)]),
    [
      ["operator", "store.created", `store:${storeId}`, "Toko Audit", []],
      ["operator", "product.created", `product:${productId}`, "Kopi", []],
      ["operator", "store.plan_changed", `store:${storeId}`, "Toko Audit", ["plan: growth → scale"]],
      [
        "operator",
        "store.settings_changed",
        `store:${storeId}`,
        "Toko Audit",
        ["bank_name:  → BCA", "bank_code:  → 014", "account_number:  → 1234567890", "account_holder:  → Budi", "success_url:  → https://toko.example/terima-kasih"],
      ],
      ["operator", "store.settings_changed", `store:${storeId}`, "Toko Audit", ["account_number: 1234567890 → 0987654321"]],
      ["operator", "product.price_changed", `product:${productId}`, "Kopi", ["price: 10000 → 12500"]],
      ["operator", "product.status_changed", `product:${productId}`, "Kopi", ["status: published → archived"]],
      ["operator", "bundle.created", `bundle:${bundle!.id}`, "Paket Hemat", []],
      ["operator", "bundle.price_changed", `bundle:${bundle!.id}`, "Paket Hemat", ["price: 9000 → 8000"]],
      ["operator", "key.created", `key:${named.id}`, "kasir", ["mode:  → Live"]],
      ["operator", "key.created", `key:${unnamed.id}`, unnamed.prefix, ["mode:  → Live"]],
      ["operator", "key.revoked", `key:${named.id}`, "kasir", []],
      ["operator", "member.invited", `member:${owner.email}`, "", []],
      // Accepting the invitation signs them in.
      [owner.email, "member.signed_in", `member:${owner.email}`, "", []],
      ["operator", "member.invited", `member:${dev.email}`, "", []],
      [dev.email, "member.signed_in", `member:${dev.email}`, "", []],
      [owner.email, "member.role_changed", `member:${dev.email}`, "", ["role: developer → support"]],
    ],
  );
  t.regex(unnamed.prefix, /^sk_live_/, "a key without a name is called by its prefix");
});

test("ListAudit: filtered by actor and by action, paged by position with nothing twice or missed; an unknown action is INVALID_ARGUMENT naming action", async (t) => {
  const s = await setup(t);
  const { storeId, productId } = s;
  const owner = await s.member("owner");
  s.as.actor = owner;
  for (const price of [11_000n, 12_000n, 13_000n]) await s.items.setItemPrice({ storeId, itemId: productId, price });
  s.as.actor = OPERATOR;
  await s.stores.createApiKey({ storeId, name: "kasir" });
  // Three entries of one transaction, all at its start time: only the sequence orders them.
  await s.sql.begin(async (tx) => {
    for (const label of ["a", "b", "c"]) {
      await tx`insert into audit_log (store_id, created_at, actor, action, target, target_label)
        values (${storeId}, now(), 'system', 'key.created', ${`key:${label}`}, ${label})`;
    }
  });
  const list = (request: object) => s.accounts.listAudit({ storeId, ...request });

  const byOwner = (await list({ actor: owner.email })).entries;
  t.deepEqual(byOwner.map((e) => [e.action, e.changes[0]?.after]), [
    ["product.price_changed", "13000"],
    ["product.price_changed", "12000"],
    ["product.price_changed", "11000"],
    ["member.signed_in", undefined],
  ]);
  t.deepEqual((await list({ actor: ` ${owner.email} ` })).entries.map((e) => e.id), byOwner.map((e) => e.id), "the actor is trimmed");
  t.deepEqual((await list({ action: "key.created" })).entries.map((e) => e.targetLabel), ["c", "b", "a", "kasir"]);
  t.deepEqual((await list({ actor: "system", action: "key.created" })).entries.map((e) => e.targetLabel), ["c", "b", "a"]);
  t.deepEqual((await list({ actor: "nobody@example.co.id" })).entries, []);

  const whole = await checkPaging(t, list, { ties: true });
  t.is(whole.length, 11);
  await checkPaging(t, list, { filters: { action: "key.created" }, ties: true });
  await checkPaging(t, list, { filters: { actor: owner.email } });

  t.deepEqual(await failure(list({ action: "store.deleted" })), { code: Code.InvalidArgument, field: "action", message: "action: is not an action the audit log records" });
  t.like(await failure(list({ before: { micros: -1n, seq: 0n } })), { code: Code.InvalidArgument, field: "before" });
  t.like(await failure(list({ actor: "x".repeat(321) })), { code: Code.InvalidArgument, field: "actor" });
});
