// The catalog's part of the audit log on real PostgreSQL (docs/team.md#audit-log, the readable
// audit trail): the routes in memory over services/catalog/db/ on a database
// of the test's own, migrated as the release before and then upgraded. Entries name
// what their target was called; settings, plan, price, status and role changes say
// before → after, read from the row locked in the change's transaction; filters by
// actor and action; pages by position, ties within one microsecond included.
import test, { type ExecutionContext } from "ava";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Code, createClient, createRouterTransport } from "@connectrpc/connect";
import { OPERATOR, type Actor } from "../../common/actor.js";
import { AccountService } from "../../gen/catalog/v1/account_pb.js";
import { CatalogService, ItemStatus, Plan, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { createCatalogDomain } from "../../services/catalog/domain.js";
import { createCatalogRoutes } from "../../services/catalog/routes.js";
import { CATALOG_SCHEMA } from "../../services/catalog/service.js";
import { createLogger } from "../../platform/logger.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { checkPaging } from "../helpers/audit-pages.js";
import { schemaBefore } from "../helpers/migrations.js";
import { TEST_SCRYPT } from "../helpers/scrypt.js";
import { failure } from "../helpers/rpc-failure.js";

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../services/catalog/migrations");
const ADDED = "005_audit_label_changes.sql";

/** The schema as the release before left it, with one store and one entry of then; upgraded; the routes over it. */
async function setup(t: ExecutionContext) {
  const { sql, upgrade } = await schemaBefore(t, CATALOG_SCHEMA, MIGRATIONS, ADDED);
  const [old] = await sql<{ id: string }[]>`insert into stores (name, plan) values ('Toko Lama', 'growth') returning id`;
  await sql`insert into audit_log (store_id, actor, action, target) values (${old!.id}, 'operator', 'store.created', ${`store:${old!.id}`})`;
  t.true((await upgrade()).includes(ADDED), "the upgrade applies it");
  const as: { actor: Actor } = { actor: OPERATOR };
  const domain = createCatalogDomain({ sql, scryptParams: TEST_SCRYPT, logger: createLogger("test", "silent") });
  const transport = createRouterTransport(createCatalogRoutes(domain), { transport: { interceptors: [actorInterceptor(() => as.actor)] } });
  return { sql, as, oldStoreId: old!.id, stores: createClient(StoreService, transport), items: createClient(CatalogService, transport), accounts: createClient(AccountService, transport) };
}

const changesOf = (entry: { changes: { field: string; before: string; after: string }[] }) => entry.changes.map((c) => `${c.field}: ${c.before} → ${c.after}`);

test("an entry of the release before reads with no label and no changes; new entries name their target and say before → after", async (t) => {
  const s = await setup(t);
  const [legacy] = (await s.accounts.listAudit({ storeId: s.oldStoreId })).entries;
  t.like(legacy, { action: "store.created", target: `store:${s.oldStoreId}`, targetLabel: "", changes: [] });
  t.truthy(legacy!.position);

  const storeId = (await s.stores.createStore({ name: "Toko Baru" })).store!.id;
  const productId = (await s.items.createProduct({ storeId, title: "Kopi Gayo", price: 15_000n })).item!.id;
  await s.stores.setStorePlan({ storeId, plan: Plan.STARTER });
  await s.stores.updateStoreSettings({
    storeId,
    bankAccount: { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" },
    redirects: { successUrl: "https://toko.example/terima-kasih", errorUrl: "https://toko.example/gagal" },
  });
  await s.stores.updateStoreSettings({ storeId, redirects: { successUrl: "https://toko.example/terima-kasih" } });
  await s.items.setItemPrice({ storeId, itemId: productId, price: 17_500n });
  await s.items.setItemStatus({ storeId, itemId: productId, status: ItemStatus.DRAFT });
  const { apiKey } = await s.stores.createApiKey({ storeId, name: "" });
  await s.stores.revokeApiKey({ storeId, keyId: apiKey!.id });
  const { member, invitationToken } = await s.accounts.inviteMember({ storeId, email: "siti@example.co.id", role: "viewer" });
  await s.accounts.acceptInvitation({ token: invitationToken, password: "kata sandi rahasia" });
  await s.accounts.setMemberRole({ storeId, memberId: member!.id, role: "support" });

  const { entries } = await s.accounts.listAudit({ storeId });
  t.deepEqual(
    entries.reverse().map((e) => [e.action, e.targetLabel, changesOf(e)]),
    [
      ["store.created", "Toko Baru", []],
      ["product.created", "Kopi Gayo", []],
      ["store.plan_changed", "Toko Baru", ["plan: growth → starter"]],
      [
        "store.settings_changed",
        "Toko Baru",
        ["bank_name:  → BCA", "bank_code:  → 014", "account_number:  → 1234567890", "account_holder:  → Budi", "success_url:  → https://toko.example/terima-kasih", "error_url:  → https://toko.example/gagal"],
      ],
      ["store.settings_changed", "Toko Baru", ["bank_name: BCA → ", "bank_code: 014 → ", "account_number: 1234567890 → ", "account_holder: Budi → ", "error_url: https://toko.example/gagal → "]],
      ["product.price_changed", "Kopi Gayo", ["price: 15000 → 17500"]],
      ["product.status_changed", "Kopi Gayo", ["status: published → draft"]],
      ["key.created", apiKey!.prefix, ["mode:  → Live"]],
      ["key.revoked", apiKey!.prefix, []],
      ["member.invited", "", []],
      ["member.signed_in", "", []],
      ["member.role_changed", "", ["role: viewer → support"]],
    ],
  );
  // What the API answered is what was stored: the item after the change.
  t.like((await s.items.getItems({ storeId, ids: [productId] })).items[0], { price: 17_500n, status: ItemStatus.DRAFT });
});

test("filters by actor and action; pages by position give every entry once, ties within one microsecond included; an unknown action is INVALID_ARGUMENT", async (t) => {
  const s = await setup(t);
  const storeId = (await s.stores.createStore({ name: "Toko Audit" })).store!.id;
  const productId = (await s.items.createProduct({ storeId, title: "Teh", price: 5_000n })).item!.id;
  const { member } = await s.accounts.inviteMember({ storeId, email: "pemilik@example.co.id", role: "owner" });
  s.as.actor = { kind: "member", memberId: member!.id, role: "owner", email: "pemilik@example.co.id" };
  for (const price of [6_000n, 7_000n]) await s.items.setItemPrice({ storeId, itemId: productId, price });
  s.as.actor = OPERATOR;
  // Three entries of one transaction, all at its start time: only seq tells them apart.
  await s.sql.begin(async (tx) => {
    for (const n of [1, 2, 3]) {
      await tx`insert into audit_log (store_id, created_at, actor, action, target, target_label)
        values (${storeId}, now(), 'system', 'key.created', ${`key:${n}`}, ${`k${n}`})`;
    }
  });
  const list = (request: object) => s.accounts.listAudit({ storeId, ...request });

  t.deepEqual((await list({ actor: "pemilik@example.co.id" })).entries.map((e) => changesOf(e)), [["price: 6000 → 7000"], ["price: 5000 → 6000"]]);
  t.deepEqual((await list({ action: "key.created" })).entries.map((e) => e.targetLabel), ["k3", "k2", "k1"]);
  t.deepEqual((await list({ actor: "operator", action: "key.created" })).entries, []);

  const whole = await checkPaging(t, list, { ties: true });
  t.deepEqual(whole.map((e) => e.action), ["key.created", "key.created", "key.created", "product.price_changed", "product.price_changed", "member.invited", "product.created", "store.created"]);
  await checkPaging(t, list, { filters: { action: "key.created" }, ties: true });
  t.deepEqual((await list({ storeId: s.oldStoreId })).entries.map((e) => e.action), ["store.created"], "one store's entries only");

  t.deepEqual(await failure(list({ action: "store.deleted" })), { code: Code.InvalidArgument, field: "action", message: "action: is not an action the audit log records" });
});
