// The catalog's own changes of stores and items (CONTRACT §8, §13): CreateStore and
// SetStorePlan are the platform's (the operator or the system; never a member or an API
// key), CreateProduct and CreateBundle need store_admin; each writes exactly one audit
// entry naming the actor in the change's transaction, none when refused, and neither
// the change nor the entry when that transaction fails. In memory: the real routes and
// domain over the fake stores, each call made as whoever `as.actor` names.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { auditActorName, OPERATOR, SYSTEM, type Actor } from "../../common/actor.js";
import { ROLES, type Role } from "../../common/roles.js";
import { Plan } from "../../gen/catalog/v1/catalog_pb.js";
import { catalogRouterSetup } from "../helpers/catalog-router.js";

async function setup() {
  const { as, catalog, accountsFake, stores, items, accounts, storeId, asOperator, member } = await catalogRouterSetup("Toko Audit");
  const productId = (await items.createProduct({ storeId, title: "Kopi", price: 10_000n })).item!.id;
  /** Every store's audit entries (the stores this test knows of), oldest first. */
  const known = new Set([storeId]);
  const audit = () =>
    asOperator(async () => {
      const all = [];
      for (const id of known) all.push(...(await accounts.listAudit({ storeId: id, limit: 500 })).entries);
      return all.sort((a, b) => Number(a.at!.seconds - b.at!.seconds) || a.at!.nanos - b.at!.nanos).map((e) => [e.storeId, e.actor, e.action, e.target]);
    });
  const state = () =>
    asOperator(async () => ({
      counts: catalog.counts(),
      plan: (await stores.getStore({ id: storeId })).store!.plan,
      items: (await items.listPublishedItems({ storeId, limit: 50 })).items.map((i) => i.id),
    }));
  return { as, stores, items, accounts, storeId, productId, member, asOperator, audit, state, known, accountsFake };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Each of the four changes: who may, what it writes, and a call making a fresh change that answers the entry it should write. */
const CHANGES: {
  rpc: string;
  who: "platform" | "store_admin";
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
    who: "store_admin",
    call: (s) => async () => {
      const { item } = await s.items.createProduct({ storeId: s.storeId, title: "Teh", price: 5_000n });
      return { storeId: s.storeId, action: "product.created", target: `product:${item!.id}` };
    },
  },
  {
    rpc: "CreateBundle",
    who: "store_admin",
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
  { name: "an API key", actor: async () => ({ kind: "api_key", keyId: randomUUID() }) },
  ...ROLES.map((role) => ({ name: `a ${role}`, actor: (s: Setup) => s.member(role) })),
];

function allowed(who: "platform" | "store_admin", actor: Actor): boolean {
  if (actor.kind === "operator" || actor.kind === "system") return true;
  return who === "store_admin" && actor.kind === "member" && actor.role === "owner";
}

for (const change of CHANGES) {
  for (const { name, actor: makeActor } of ACTORS) {
    test(`${change.rpc} as ${name}: done with exactly one audit entry naming the actor, or PERMISSION_DENIED with nothing written`, async (t) => {
      const s = await setup();
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
    const s = await setup();
    const before = { state: await s.state(), audit: await s.audit() };
    const insert = s.accountsFake.store.insertAuditEntries;
    s.accountsFake.store.insertAuditEntries = async () => {
      throw new Error("the audit log is away");
    };
    try {
      await rejects(t, change.call(s)(), Code.Internal);
    } finally {
      s.accountsFake.store.insertAuditEntries = insert;
    }
    t.deepEqual(await s.state(), before.state, "nothing changed");
    t.deepEqual(await s.audit(), before.audit, "no audit entry");
  });
}

test("the store and item changes with no actor are PERMISSION_DENIED; reads need none", async (t) => {
  const s = await setup();
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
  const s = await setup();
  const before = await s.audit();
  await rejects(t, s.stores.setStorePlan({ storeId: randomUUID(), plan: Plan.SCALE }), Code.NotFound);
  t.deepEqual(await s.audit(), before);
});
