// A key's mode through the catalog's Connect routes in memory, on real SQL
// (docs/keys.md#test-mode): CreateApiKey with test_mode makes an sk_test_ key, the list
// and authentication answer its mode, a caller that does not say gets a live key as
// before, and the audit log names the mode of each key made.
import test from "ava";
import { hashApiKey } from "../../services/catalog/api-keys.js";
import { catalogRouterSetup } from "../helpers/catalog-router.js";

test("CreateApiKey with test_mode makes an sk_test_ key that lists and authenticates as test; without it a live key as before", async (t) => {
  const s = await catalogRouterSetup(t, "Toko Mode");
  const test_ = await s.stores.createApiKey({ storeId: s.storeId, name: "CI suite", testMode: true });
  t.regex(test_.secret, /^sk_test_[0-9A-Za-z]{40}$/);
  t.is(test_.apiKey!.prefix, test_.secret.slice(0, 12));
  t.false(test_.apiKey!.livemode);
  const live = await s.stores.createApiKey({ storeId: s.storeId, name: "ERP" });
  t.regex(live.secret, /^sk_live_[0-9A-Za-z]{40}$/);
  t.true(live.apiKey!.livemode);

  const listed = (await s.stores.listApiKeys({ storeId: s.storeId })).apiKeys;
  t.deepEqual(
    listed.map((key) => [key.name, key.livemode]),
    [
      ["ERP", true],
      ["CI suite", false],
    ],
  );

  const asTest = await s.stores.authenticateApiKey({ secret: test_.secret });
  t.like(asTest, { keyId: test_.apiKey!.id, storeId: s.storeId, livemode: false });
  t.like(await s.stores.authenticateApiKey({ secret: live.secret }), { keyId: live.apiKey!.id, livemode: true });

  // The mode is the stored row's, not read back from the prefix.
  const [row] = await s.sql<{ livemode: boolean }[]>`select livemode from api_keys where id = ${test_.apiKey!.id}`;
  t.false(row!.livemode);

  const revoked = await s.stores.revokeApiKey({ storeId: s.storeId, keyId: test_.apiKey!.id });
  t.false(revoked.apiKey!.livemode, "RevokeApiKey answers the mode too");
});

test("a key whose row states no mode, as every key made before test mode did, is live", async (t) => {
  const s = await catalogRouterSetup(t, "Toko Lama");
  const secret = `sk_live_${"A".repeat(40)}`;
  await s.sql`insert into api_keys (store_id, prefix, key_hash, scopes) values (${s.storeId}, ${secret.slice(0, 12)}, ${hashApiKey(secret)}, ${["orders:read"]})`;
  t.true((await s.stores.authenticateApiKey({ secret })).livemode);
  t.true((await s.stores.listApiKeys({ storeId: s.storeId })).apiKeys[0]!.livemode);
});

test("the audit log names the mode of each key made", async (t) => {
  const s = await catalogRouterSetup(t, "Toko Jejak");
  await s.stores.createApiKey({ storeId: s.storeId, name: "CI suite", testMode: true });
  await s.stores.createApiKey({ storeId: s.storeId, name: "ERP" });
  const { entries } = await s.accounts.listAudit({ storeId: s.storeId, action: "key.created" });
  t.deepEqual(
    entries.map((entry) => [entry.targetLabel, entry.changes.map((change) => `${change.field}: ${change.before} → ${change.after}`)]),
    [
      ["ERP", ["mode:  → Live"]],
      ["CI suite", ["mode:  → Test"]],
    ],
  );
});
