// "Email buyers" and "Buyer language" (docs/payments.md#buyer-mail): on and Indonesian for every
// store until its owner says otherwise; a settings change that does not name them leaves
// them as they are; a language other than id or en is refused naming the field, and
// nothing changes. The real routes and domain in memory over a database of the test's own.
import test from "ava";
import { Code } from "@connectrpc/connect";
import { catalogRouterSetup } from "../helpers/catalog-router.js";
import { failure } from "../helpers/rpc-failure.js";

test("a store mails its buyers in Indonesian until its owner changes it, audited; other settings changes leave it", async (t) => {
  const { stores, accounts, storeId, asOperator } = await catalogRouterSetup(t, "Toko Pembeli");
  t.like((await stores.getStore({ id: storeId })).store, { emailBuyers: true, buyerLanguage: "id" });

  await stores.updateStoreSettings({ storeId, redirects: {}, emailBuyers: false, buyerLanguage: "en" });
  t.like((await stores.getStore({ id: storeId })).store, { emailBuyers: false, buyerLanguage: "en" });

  // A client that does not know of them (an older dashboard, the CLI) changes only what it names.
  await stores.updateStoreSettings({ storeId, redirects: { successUrl: "https://pembeli.example/ok" } });
  t.like((await stores.getStore({ id: storeId })).store, { emailBuyers: false, buyerLanguage: "en" });

  const { entries } = await asOperator(() => accounts.listAudit({ storeId }));
  const changed = entries.filter((e) => e.action === "store.settings_changed").map((e) => e.changes.map((c) => `${c.field}: ${c.before} → ${c.after}`));
  t.deepEqual(changed.reverse(), [["email_buyers: on → off", "buyer_language: id → en"], ["success_url:  → https://pembeli.example/ok"]]);
});

test("a buyer language other than id or en is refused naming buyer_language, and nothing changes", async (t) => {
  const { stores, storeId } = await catalogRouterSetup(t, "Toko Bahasa");
  for (const language of ["fr", "ID", "", "id-ID"]) {
    const error = await failure(stores.updateStoreSettings({ storeId, redirects: {}, emailBuyers: false, buyerLanguage: language }));
    t.is(error.code, Code.InvalidArgument, language);
    t.is(error.field, "buyer_language");
  }
  t.like((await stores.getStore({ id: storeId })).store, { emailBuyers: true, buyerLanguage: "id" });
});
