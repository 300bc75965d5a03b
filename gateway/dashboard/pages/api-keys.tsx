// API keys (docs/dashboard.md#api-keys, docs/keys.md#scopes): list with scopes, mode, maker and last use, create with
// the scopes the member's role may grant and a mode, live or test (docs/keys.md#test-mode;
// shown once), revoke (confirmed). The catalog decides what a role may grant; this page only offers it.
import type { RouterInstance as Router } from "@koa/router";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { auditActorText } from "../../../common/audit-text.js";
import { isUuid } from "../../../common/ids.js";
import { KEY_MODE_NAMES, type KeyMode } from "../../../common/key-mode.js";
import { grantableScopes, SCOPE_TEXT, SCOPES, type Scope } from "../../../common/scopes.js";
import type { ApiKey } from "../../../gen/catalog/v1/catalog_pb.js";
import { Breakable, Time } from "../../html/components.js";
import { field, type Form } from "../forms.js";
import { flashMessage, notFoundPage, problemText, ROLE_NAMES, seeOther, seeOtherWith, sendPage, shownOnce, type DashboardContext, type Kit } from "../kit.js";
import { Csrf, Empty, Shell, storePath } from "../views/layout.js";
import { DataTable } from "../views/data-table.js";

const iso = (value: ApiKey["createdAt"]) => (value ? timestampDate(value).toISOString() : "");

const REVOKED = "The key is revoked. Requests with it are refused from now on.";

/** A new key as the page shows it once, after the redirect (its secret in the encrypted flash only). */
interface CreatedKey {
  kind: "api_key";
  name: string;
  secret: string;
  livemode: boolean;
  scopes: string[];
}

/** What the "Create key" form holds: as posted, or its defaults. */
interface KeyValues {
  name: string;
  scopes: readonly string[];
  mode: KeyMode;
}

/** Every scope the member's role may grant, ticked: a key as able as its maker unless they say less. */
const defaults = (ctx: DashboardContext): KeyValues => ({ name: "", scopes: grantableScopes(ctx.state.scope.role), mode: "live" });

// Anything but "test" is live: a forged or missing choice never makes a key of test mode by accident, nor the reverse.
const valuesFrom = (form: Form): KeyValues => ({ name: field(form, "name"), scopes: form.scopes ?? [], mode: field(form, "mode") === "test" ? "test" : "live" });

/** A key's mode as the list shows it: test keys stand out, live is the ordinary case. */
function ModeBadge({ livemode }: { livemode: boolean }) {
  return livemode ? <span>{KEY_MODE_NAMES.live}</span> : <span class="badge badge-test">{KEY_MODE_NAMES.test}</span>;
}

function ModeChoice(props: { mode: KeyMode }) {
  return (
    <fieldset aria-describedby="mode-note">
      <legend>Mode</legend>
      <p id="mode-note" class="muted small" style="margin:0 0 6px">
        A live key works on the store's real orders. A test key (sk_test_…) sees and makes only test orders, events and bank transfers, paid through the sandbox:
        no real money moves.
      </p>
      {(["live", "test"] as const).map((mode) => (
        <label>
          <input type="radio" name="mode" value={mode} checked={props.mode === mode} />
          {KEY_MODE_NAMES[mode]}
        </label>
      ))}
    </fieldset>
  );
}

/** The service's field names as the form labels them. */
function formProblem(error: unknown): string | undefined {
  return problemText(error)
    ?.replace(/^name: /, "Key name: ")
    .replace(/^scopes: /, "Scopes: ");
}

/** A key's scopes, each kept whole on its line: a narrow cell wraps between them. */
function Scopes({ scopes }: { scopes: readonly string[] }) {
  if (scopes.length === 0) return <span class="muted">None</span>;
  return (
    <>
      {scopes.map((scope, i) => (
        <>
          {i > 0 && " "}
          <span class="mono nowrap">{scope}</span>
        </>
      ))}
    </>
  );
}

function ScopeChoices(props: { ctx: DashboardContext; ticked: readonly string[] }) {
  const { role } = props.ctx.state.scope;
  const offered = grantableScopes(role);
  const withheld = SCOPES.filter((scope) => !offered.includes(scope));
  const id = (scope: Scope) => `scope-${scope.replace(/\W/g, "-")}`;
  return (
    <fieldset aria-describedby="scopes-note">
      <legend>Scopes</legend>
      <p id="scopes-note" class="muted small" style="margin:0 0 6px">
        What the key may do. A call outside its scopes is refused with 403.
        {withheld.length > 0 && ` Your role (${ROLE_NAMES[role]}) cannot grant ${withheld.join(" or ")}: ask an owner for a key that needs it.`}
      </p>
      {offered.map((scope) => (
        <div style="display:flex;flex-wrap:wrap;align-items:baseline;gap:0 10px">
          <label>
            <input type="checkbox" name="scopes" value={scope} checked={props.ticked.includes(scope)} aria-describedby={id(scope)} />
            <span class="mono">{scope}</span>
          </label>
          <span id={id(scope)} class="muted small">
            {SCOPE_TEXT[scope]}
          </span>
        </div>
      ))}
    </fieldset>
  );
}

function KeysPage(props: { ctx: DashboardContext; keys: ApiKey[]; values?: KeyValues; created?: CreatedKey; error?: string; flash?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const values = props.values ?? defaults(props.ctx);
  return (
    <Shell title="API keys" member={member} store={store} section="api-keys" csrf={csrf} flash={props.flash} error={props.error}>
      {props.created && (
        <section class="card" aria-labelledby="new-key">
          <h2 id="new-key">New key {props.created.name ? `“${props.created.name}”` : ""}</h2>
          <p class="warning" role="alert">
            Copy this key now and keep it secret. It will not be shown again: we keep only a hash of it.
          </p>
          <code class="secret" aria-label="New API key">
            {props.created.secret}
          </code>
          <p class="small" style="margin-bottom:0">
            Mode: <ModeBadge livemode={props.created.livemode} />. Scopes: <Scopes scopes={props.created.scopes} />
          </p>
        </section>
      )}
      {props.keys.length === 0 ? (
        <Empty title="No API keys yet">
          <p>Create a key below, then send it as <code>Authorization: Bearer …</code> from your systems.</p>
        </Empty>
      ) : (
        <DataTable head={["Name", "Prefix", "Mode", "Scopes", "Created by", "Created", "Last used", "Status", { name: "Action", hidden: true }]}>
          {props.keys.map((key) => (
            <tr>
              <td>{key.name || <span class="muted">(no name)</span>}</td>
              <td class="mono nowrap">{key.prefix}…</td>
              <td>
                <ModeBadge livemode={key.livemode} />
              </td>
              <td>
                <Scopes scopes={key.scopes} />
              </td>
              <td>{key.createdBy ? <Breakable text={auditActorText(key.createdBy)} /> : <span class="muted">—</span>}</td>
              <td>
                <Time iso={iso(key.createdAt)} />
              </td>
              <td>{key.lastUsedAt ? <Time iso={iso(key.lastUsedAt)} /> : <span class="muted">Never</span>}</td>
              <td>{key.revokedAt ? <span class="badge badge-revoked">Revoked</span> : <span class="badge badge-active">Active</span>}</td>
              <td>
                {!key.revokedAt && (
                  <a class="button danger" href={storePath(store.id, `api-keys/${key.id}/revoke`)} aria-label={`Revoke ${key.name || key.prefix}`}>
                    Revoke
                  </a>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <h2 id="create-key">Create a key</h2>
      <form class="stack card" method="post" action={storePath(store.id, "api-keys")} aria-labelledby="create-key">
        <Csrf token={csrf} />
        <label>
          Key name
          <input type="text" name="name" maxLength={100} value={values.name} placeholder="e.g. ERP production" />
        </label>
        <ModeChoice mode={values.mode} />
        <ScopeChoices ctx={props.ctx} ticked={values.scopes} />
        <div>
          <button type="submit">Create key</button>
        </div>
      </form>
    </Shell>
  );
}

function RevokePage(props: { ctx: DashboardContext; apiKey: ApiKey }) {
  const { member, store, csrf } = props.ctx.state.scope;
  return (
    <Shell title="Revoke this key?" member={member} store={store} section="api-keys" csrf={csrf}>
      <div class="card">
        <p>
          Key <strong>{props.apiKey.name || "(no name)"}</strong> <span class="mono">{props.apiKey.prefix}…</span> will stop working at once (within 2
          seconds on every server). This cannot be undone.
        </p>
        <div class="actions">
          <form method="post" action={storePath(store.id, `api-keys/${props.apiKey.id}/revoke`)}>
            <Csrf token={csrf} />
            <button type="submit" class="danger">
              Revoke key
            </button>
          </form>
          <a class="button secondary" href={storePath(store.id, "api-keys")}>
            Keep it
          </a>
        </div>
      </div>
    </Shell>
  );
}

export function apiKeyPages(router: Router, kit: Kit) {
  const { clients, handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/api-keys";
  const list = async (ctx: DashboardContext) => (await clients.store.listApiKeys({ storeId: ctx.state.scope.store.id })).apiKeys;

  const findKey = async (ctx: DashboardContext) => {
    const keyId = ctx.params.keyId ?? "";
    if (!isUuid(keyId)) return undefined;
    return (await list(ctx)).find((key) => key.id === keyId.toLowerCase());
  };

  router.get(base, storeScope, handle(apiKeysPage));
  router.post(base, storeScope, handle(createApiKey));
  router.get(`${base}/:keyId/revoke`, storeScope, handle(confirmRevokeKey));
  router.post(`${base}/:keyId/revoke`, storeScope, handle(revokeKey));

  async function apiKeysPage(ctx: DashboardContext) {
    sendPage(ctx, <KeysPage ctx={ctx} keys={await list(ctx)} flash={flashMessage(ctx)} created={shownOnce<CreatedKey>(ctx, "api_key")} />);
  }

  async function createApiKey(ctx: DashboardContext) {
    const storeId = ctx.state.scope.store.id;
    const values = valuesFrom(ctx.state.scope.form);
    // The service reads no scopes as "all the maker may grant": a form with none
    // ticked is a slip, not that.
    if (values.scopes.length === 0) {
      return sendPage(ctx, <KeysPage ctx={ctx} keys={await list(ctx)} values={values} error="Scopes: tick at least one scope for the key." />, 400);
    }
    try {
      // The catalog grants only what the member's role may (a forged post for more is
      // PERMISSION_DENIED, the kit's 403) and audits the key with its maker.
      const created = await clients.store.createApiKey({ storeId, name: values.name, scopes: [...values.scopes], testMode: values.mode === "test" });
      // Shown once by the page the browser is sent to, never in a URL; a reload does not make another key.
      const { name, livemode, scopes } = created.apiKey!;
      seeOtherWith(ctx, storePath(storeId, "api-keys"), { shown: { kind: "api_key", name, secret: created.secret, livemode, scopes } satisfies CreatedKey });
    } catch (error) {
      const problem = formProblem(error);
      if (!problem) throw error;
      sendPage(ctx, <KeysPage ctx={ctx} keys={await list(ctx)} values={values} error={problem} />, 400);
    }
  }

  async function confirmRevokeKey(ctx: DashboardContext) {
    const apiKey = await findKey(ctx);
    if (!apiKey) return notFoundPage(ctx);
    if (apiKey.revokedAt) return seeOther(ctx, storePath(ctx.state.scope.store.id, "api-keys"));
    sendPage(ctx, <RevokePage ctx={ctx} apiKey={apiKey} />);
  }

  async function revokeKey(ctx: DashboardContext) {
    const apiKey = await findKey(ctx);
    if (!apiKey) return notFoundPage(ctx);
    const storeId = ctx.state.scope.store.id;
    if (apiKey.revokedAt) return seeOtherWith(ctx, storePath(storeId, "api-keys"), { message: REVOKED });
    // The catalog checks the member's role and audits the revocation with it.
    await clients.store.revokeApiKey({ storeId, keyId: apiKey.id });
    seeOtherWith(ctx, storePath(storeId, "api-keys"), { message: REVOKED });
  }
}
