// Settings (docs/dashboard.md#settings): the bank account shown for transfers, the order redirect
// defaults (orders created afterwards use them), and what buyers are told by mail and in
// which language (docs/payments.md#buyer-mail).
import type { RouterInstance as Router } from "@koa/router";
import type { Store } from "../../../gen/catalog/v1/catalog_pb.js";
import { field, type Form } from "../forms.js";
import { flashMessage, problemText, seeOtherWith, sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Csrf, Shell, storePath } from "../views/layout.js";

const FIELDS = [
  ["bank_name", "Bank name"],
  ["bank_code", "Bank code"],
  ["account_number", "Account number"],
  ["account_holder", "Account holder"],
  ["success_url", "Success URL"],
  ["return_url", "Return URL"],
  ["error_url", "Error URL"],
] as const;

type Values = Record<(typeof FIELDS)[number][0], string> & { email_buyers: boolean; buyer_language: string };

const BUYER_LANGUAGES = [
  ["id", "Bahasa Indonesia"],
  ["en", "English"],
] as const;

function valuesOf(store: Store): Values {
  return {
    bank_name: store.bankAccount?.bankName ?? "",
    bank_code: store.bankAccount?.bankCode ?? "",
    account_number: store.bankAccount?.accountNumber ?? "",
    account_holder: store.bankAccount?.accountHolder ?? "",
    success_url: store.redirects?.successUrl ?? "",
    return_url: store.redirects?.returnUrl ?? "",
    error_url: store.redirects?.errorUrl ?? "",
    email_buyers: store.emailBuyers,
    buyer_language: store.buyerLanguage,
  };
}

function valuesFrom(form: Form): Values {
  const texts = Object.fromEntries(FIELDS.map(([name]) => [name, field(form, name).trim()])) as Omit<Values, "email_buyers" | "buyer_language">;
  // An unticked box is not sent at all.
  return { ...texts, email_buyers: field(form, "email_buyers") === "1", buyer_language: field(form, "buyer_language") };
}

function SettingsPage(props: { ctx: DashboardContext; values: Values; flash?: string; error?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  return (
    <Shell title="Settings" member={member} store={store} section="settings" csrf={csrf} flash={props.flash} error={props.error}>
      <form class="stack card" method="post" action={storePath(store.id, "settings")}>
        <Csrf token={csrf} />
        <p class="muted small">
          The bank account buyers transfer to (all four fields, or none to stop offering bank transfer), and where buyers go after paying. New orders use
          these; orders already made keep theirs.
        </p>
        {FIELDS.map(([name, label]) => (
          <label>
            {label}
            <input type={name.endsWith("_url") ? "url" : "text"} name={name} value={props.values[name]} />
          </label>
        ))}
        <fieldset>
          <legend>Buyers</legend>
          <label>
            <input type="checkbox" name="email_buyers" value="1" checked={props.values.email_buyers} aria-describedby="email-buyers-note" />
            Email buyers
          </label>
          <p class="muted small" id="email-buyers-note" style="margin:4px 0 10px">
            What to pay and by when, a reminder before the order lapses, a receipt, and a notice for each refund. Test orders never mail anyone.
          </p>
        </fieldset>
        <div class="field">
          <label for="buyer-language">Buyer language</label>
          <select id="buyer-language" name="buyer_language">
            {BUYER_LANGUAGES.map(([value, label]) => (
              <option value={value} selected={props.values.buyer_language === value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Save settings</button>
      </form>
    </Shell>
  );
}

export function settingsPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  const path = "/dashboard/stores/:storeId/settings";

  router.get(path, storeScope, handle(settingsPage));
  router.post(path, storeScope, handle(saveSettings));

  async function settingsPage(ctx: DashboardContext) {
    sendPage(ctx, <SettingsPage ctx={ctx} values={valuesOf(ctx.state.scope.store)} flash={flashMessage(ctx)} />);
  }

  async function saveSettings(ctx: DashboardContext) {
    const storeId = ctx.state.scope.store.id;
    const values = valuesFrom(ctx.state.scope.form);
    const bank = [values.bank_name, values.bank_code, values.account_number, values.account_holder];
    try {
      // The catalog checks the member's role and audits the change with it.
      await clients.store.updateStoreSettings({
        storeId,
        bankAccount: bank.some((value) => value !== "")
          ? { bankName: values.bank_name, bankCode: values.bank_code, accountNumber: values.account_number, accountHolder: values.account_holder }
          : undefined,
        redirects: { successUrl: values.success_url, returnUrl: values.return_url, errorUrl: values.error_url },
        emailBuyers: values.email_buyers,
        buyerLanguage: values.buyer_language,
      });
      seeOtherWith(ctx, storePath(storeId, "settings"), { message: "Settings saved. New orders use them." });
    } catch (error) {
      const problem = problemText(error);
      if (!problem) throw error;
      sendPage(ctx, <SettingsPage ctx={ctx} values={values} error={problem} />, 400);
    }
  }
}
