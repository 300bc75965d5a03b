// API keys (CONTRACT §10): list with last use, create (shown once), revoke (confirmed).
import type { RouterInstance as Router } from "@koa/router";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { isUuid } from "../../../common/ids.js";
import type { ApiKey } from "../../../gen/catalog/v1/catalog_pb.js";
import { Time } from "../../views/components.js";
import { field } from "../forms.js";
import { notFoundPage, problemText, seeOther, sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Csrf, Empty, Shell, storePath } from "../views/layout.js";
import { DataTable } from "../views/data-table.js";

const iso = (value: ApiKey["createdAt"]) => (value ? timestampDate(value).toISOString() : "");

const DONE: Record<string, string> = { revoked: "The key is revoked. Requests with it are refused from now on." };

function KeysPage(props: { ctx: DashboardContext; keys: ApiKey[]; created?: { name: string; secret: string }; error?: string; flash?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
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
        </section>
      )}
      {props.keys.length === 0 ? (
        <Empty title="No API keys yet">
          <p>Create a key below, then send it as <code>Authorization: Bearer …</code> from your systems.</p>
        </Empty>
      ) : (
        <DataTable head={["Name", "Prefix", "Created", "Last used", "Status", { name: "Action", hidden: true }]}>
          {props.keys.map((key) => (
            <tr>
              <td>{key.name || <span class="muted">(no name)</span>}</td>
              <td class="mono nowrap">{key.prefix}…</td>
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
      <h2>Create a key</h2>
      <form class="inline card" method="post" action={storePath(store.id, "api-keys")}>
        <Csrf token={csrf} />
        <label>
          Key name
          <input type="text" name="name" maxLength={100} placeholder="e.g. ERP production" />
        </label>
        <button type="submit">Create key</button>
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

  router.get(
    base,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      sendPage(ctx, <KeysPage ctx={ctx} keys={await list(ctx)} flash={DONE[String(ctx.query.done)]} />);
    }),
  );

  router.post(
    base,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const storeId = ctx.state.scope.store.id;
      const name = field(ctx.state.scope.form, "name");
      try {
        const created = await clients.store.createApiKey({ storeId, name });
        // Shown in this response only, never in a URL or a later page.
        sendPage(ctx, <KeysPage ctx={ctx} keys={await list(ctx)} created={{ name: created.apiKey!.name, secret: created.secret }} />, 201);
      } catch (error) {
        const problem = problemText(error);
        if (!problem) throw error;
        sendPage(ctx, <KeysPage ctx={ctx} keys={await list(ctx)} error={problem} />, 400);
      }
    }),
  );

  const findKey = async (ctx: DashboardContext) => {
    const keyId = ctx.params.keyId ?? "";
    if (!isUuid(keyId)) return undefined;
    return (await list(ctx)).find((key) => key.id === keyId.toLowerCase());
  };

  router.get(
    `${base}/:keyId/revoke`,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const apiKey = await findKey(ctx);
      if (!apiKey) return notFoundPage(ctx);
      if (apiKey.revokedAt) return seeOther(ctx, storePath(ctx.state.scope.store.id, "api-keys"));
      sendPage(ctx, <RevokePage ctx={ctx} apiKey={apiKey} />);
    }),
  );

  router.post(
    `${base}/:keyId/revoke`,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const apiKey = await findKey(ctx);
      if (!apiKey) return notFoundPage(ctx);
      const storeId = ctx.state.scope.store.id;
      if (apiKey.revokedAt) return seeOther(ctx, `${storePath(storeId, "api-keys")}?done=revoked`);
      // The catalog checks the member's role and audits the revocation with it.
      await clients.store.revokeApiKey({ storeId, keyId: apiKey.id });
      seeOther(ctx, `${storePath(storeId, "api-keys")}?done=revoked`);
    }),
  );
}
