// Webhooks (CONTRACT §6, §10): a store's endpoints (add, edit, enable/disable, delete
// after confirming), their secrets (revealed or rotated on request, each audited and
// shown only in that response), test events, and each endpoint's deliveries (whose own
// pages are in deliveries.tsx).
import type { RouterInstance as Router } from "@koa/router";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ComponentChildren } from "preact";
import { isUuid } from "../../../../common/ids.js";
import { fromJakartaLocalInput, jakartaLocalInput } from "../../../../common/jakarta-time.js";
import { ORDER_EVENT_TYPES } from "../../../../common/order-status.js";
import type { Delivery, Endpoint, EndpointHealth } from "../../../../gen/webhook/v1/webhook_pb.js";
import { Time } from "../../../html/components.js";
import { field, type Form } from "../../forms.js";
import { forbiddenPage, may, problemText, seeOther, sendPage, type DashboardContext, type Kit } from "../../kit.js";
import { Csrf, Empty, Shell, storePath } from "../../views/layout.js";
import { DataTable } from "../../views/data-table.js";
import { DeliveriesTable, DELIVERY_STATUSES, deliveryPath, endpointPath, webhookClientOr, webhookRoute, type WebhookClient } from "../deliveries.js";

const DELIVERY_LIMIT = 100;

/** How long "Send test event" waits for the first attempt before showing the delivery. */
const TEST_EVENT_WAIT_MS = 5_000;

/** Whether the delivery has an attempt within `ms`, asking every 200 ms. */
async function firstAttempt(webhook: WebhookClient, storeId: string, deliveryId: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { delivery } = await webhook.getDelivery({ storeId, deliveryId });
    if (delivery && (delivery.attempts.length > 0 || delivery.status !== "pending")) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const LIST_DONE: Record<string, string> = { deleted: "The endpoint is deleted. Nothing more is sent to it." };
const ENDPOINT_DONE: Record<string, string> = {
  updated: "The endpoint is saved.",
  enabled: "The endpoint is enabled: new events are delivered to it again.",
  disabled: "The endpoint is disabled: no events are delivered to it until you enable it again.",
  rate: "The rate is saved.",
  header_set: "The header is saved: every request from now on carries it.",
  header_removed: "The header is removed.",
  resent: "Every event since then that had not reached the endpoint is being sent again, oldest first, with its own webhook-id.",
};

function EndpointStatus({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.enabled) return <span class="badge badge-enabled">Enabled</span>;
  return (
    <>
      <span class="badge badge-disabled">Disabled</span>
      {endpoint.disabledReason && <span class="small muted"> {endpoint.disabledReason}</span>}
    </>
  );
}

/** What an endpoint is doing now, as the list and the overview say it. */
export type EndpointState = "healthy" | "failing" | "disabled by the system" | "disabled";

export function endpointState(endpoint: Endpoint): EndpointState {
  if (!endpoint.enabled) return endpoint.disabledReason === "" || endpoint.disabledReason === "disabled by the store" ? "disabled" : "disabled by the system";
  return endpoint.failingSince ? "failing" : "healthy";
}

/** The state with what it rests on: since when it fails, or why it is off. */
function HealthBadge({ endpoint }: { endpoint: Endpoint }) {
  const state = endpointState(endpoint);
  if (state === "healthy") return <span class="badge badge-enabled">Healthy</span>;
  if (state === "failing")
    return (
      <>
        <span class="badge badge-failed">Failing</span>{" "}
        <span class="small muted">
          since <Time iso={endpoint.failingSince} />
        </span>
      </>
    );
  return <EndpointStatus endpoint={endpoint} />;
}

/** "12 of 14 (86 %)" over 24 h; "no attempt" when none. */
function SuccessRate({ health }: { health: EndpointHealth | undefined }) {
  if (!health || health.attempts24h === 0) return <span class="muted">no attempt</span>;
  const percent = Math.floor((health.succeeded24h * 100) / health.attempts24h);
  return (
    <span class="num">
      {health.succeeded24h} of {health.attempts24h} ({percent} %)
    </span>
  );
}

const eventsText = (endpoint: Endpoint) => (endpoint.eventTypes.length === 0 ? "All events" : endpoint.eventTypes.join(", "));

// ---- The endpoint form (add and edit) ---------------------------------------------

interface EndpointValues {
  url: string;
  description: string;
  /** "All events" ticked. */
  all: boolean;
  types: string[];
}

const BLANK: EndpointValues = { url: "", description: "", all: false, types: [] };

function valuesOfEndpoint(endpoint: Endpoint): EndpointValues {
  return { url: endpoint.url, description: endpoint.description, all: endpoint.eventTypes.length === 0, types: endpoint.eventTypes };
}

function valuesFrom(form: Form): EndpointValues {
  return { url: field(form, "url").trim(), description: field(form, "description"), all: field(form, "all_events") !== "", types: form.events ?? [] };
}

/** "All events" ticked, or no type ticked: every event type. */
function subscriptionOf(values: EndpointValues) {
  return values.all || values.types.length === 0 ? { all: true, types: [] } : { all: false, types: values.types };
}

/** The service's field names as the form labels them. */
function formProblem(error: unknown): string | undefined {
  const problem = problemText(error);
  if (!problem) return undefined;
  return problem
    .replace(/^url /, "Endpoint URL ")
    .replace(/^description /, "Description ")
    .replace(/^events\.(types|all) /, "Events ");
}

function EndpointForm(props: { id: string; heading: string; action: string; csrf: string; values: EndpointValues; note?: string }) {
  const { values } = props;
  return (
    <section aria-labelledby={props.id}>
      <h2 id={props.id}>{props.heading}</h2>
      <form class="stack card" method="post" action={props.action} aria-labelledby={props.id}>
        <Csrf token={props.csrf} />
        {props.note && <p class="muted small">{props.note}</p>}
        <label>
          Endpoint URL
          <input type="text" inputMode="url" name="url" value={values.url} autoComplete="off" spellcheck={false} placeholder="https://example.com/webhooks" />
        </label>
        <label>
          Description
          <input type="text" name="description" value={values.description} maxLength={500} placeholder="e.g. ERP production" />
        </label>
        <fieldset>
          <legend>Events</legend>
          <p class="muted small" style="margin:0 0 6px">
            Tick “All events”, or the types this endpoint should receive. With none ticked it receives every event.
          </p>
          <label>
            <input type="checkbox" name="all_events" value="1" checked={values.all} />
            All events
          </label>
          {ORDER_EVENT_TYPES.map((type) => (
            <label>
              <input type="checkbox" name="events" value={type} checked={!values.all && values.types.includes(type)} />
              <span class="mono">{type}</span>
            </label>
          ))}
        </fieldset>
        <div>
          <button type="submit">Save endpoint</button>
        </div>
      </form>
    </section>
  );
}

/** A secret shown in this response only: never in a URL, never on a later page. */
function SecretCard(props: { heading: string; secret: string; children?: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby="secret-heading">
      <h2 id="secret-heading" style="margin-top:0">
        {props.heading}
      </h2>
      <p class="warning" role="alert">
        Copy this secret now and keep it out of source code and logs. It is shown only on this page: reload or leave it and it is gone (you can reveal it
        again later; that is recorded in the audit log).
      </p>
      <code class="secret" aria-label="Signing secret">
        {props.secret}
      </code>
      {props.children}
    </section>
  );
}

// ---- Pages ---------------------------------------------------------------------------

function EndpointsPage(props: {
  ctx: DashboardContext;
  endpoints: Endpoint[];
  health?: EndpointHealth[];
  values?: EndpointValues;
  error?: string;
  flash?: string;
}) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { endpoints } = props;
  const healthOf = (id: string) => props.health?.find((row) => row.endpointId === id);
  return (
    <Shell title="Webhooks" member={member} store={store} section="webhooks" csrf={csrf} flash={props.flash} error={props.error}>
      <p class="muted">
        Your systems are told about orders by an HTTPS POST to each endpoint, signed with the endpoint's secret (Standard Webhooks). Up to 10 endpoints.
        The <a href={storePath(store.id, "events")}>Events</a> page lists what was sent.
      </p>
      {endpoints.length === 0 ? (
        <Empty title="No endpoint yet">
          <p>Add an endpoint below to receive order events (order created, paid, failed, expired, cancelled, refunded; refunds succeeded or failed) on your server.</p>
        </Empty>
      ) : (
        <DataTable head={["URL", "Description", "State", "Last attempt", "Success (24 h)", "Events"]}>
          {endpoints.map((endpoint) => (
            <tr>
              <td class="mono">
                <a href={endpointPath(store.id, endpoint.id)}>{endpoint.url}</a>
              </td>
              <td>{endpoint.description || <span class="muted">—</span>}</td>
              <td>
                <HealthBadge endpoint={endpoint} />
              </td>
              <td class="small">
                {healthOf(endpoint.id)?.lastAttemptAt ? (
                  <>
                    <Time iso={healthOf(endpoint.id)!.lastAttemptAt} />{" "}
                    <span class="muted">
                      {healthOf(endpoint.id)!.lastStatusCode ? `HTTP ${healthOf(endpoint.id)!.lastStatusCode}` : healthOf(endpoint.id)!.lastResult}
                    </span>
                  </>
                ) : (
                  <span class="muted">none in 24 h</span>
                )}
              </td>
              <td class="small">
                <SuccessRate health={healthOf(endpoint.id)} />
              </td>
              <td class="small">{eventsText(endpoint)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {may(props.ctx, "developer_settings") && (
        <EndpointForm
          id="add-endpoint"
          heading="Add endpoint"
          action={storePath(store.id, "webhooks")}
          csrf={csrf}
          values={props.values ?? BLANK}
          note={endpoints.length >= 10 ? "This store already has 10 endpoints, the most it can have: delete one before adding another." : undefined}
        />
      )}
    </Shell>
  );
}

function CreatedPage(props: { ctx: DashboardContext; endpoint: Endpoint; secret: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { endpoint } = props;
  return (
    <Shell title="Endpoint added" member={member} store={store} section="webhooks" csrf={csrf}>
      <p>
        Events are now sent to <span class="mono">{endpoint.url}</span> ({eventsText(endpoint)}).
      </p>
      <SecretCard heading="Signing secret" secret={props.secret}>
        <p class="small muted">
          Your server verifies each request's <code>webhook-signature</code> with it, e.g. with the <code>standardwebhooks</code> library.
        </p>
      </SecretCard>
      <p>
        <a class="button" href={endpointPath(store.id, endpoint.id)}>
          Go to the endpoint
        </a>
      </p>
    </Shell>
  );
}

/** A refused "Max deliveries per second": the text typed and the service's reason, for the field. */
interface RateInput {
  typed: string;
  problem: string;
}

type ShownSecret = { kind: "revealed"; secret: string } | { kind: "rotated"; secret: string; previousExpiresAt: string };

function EndpointPage(props: {
  ctx: DashboardContext;
  endpoint: Endpoint;
  deliveries: Delivery[];
  status: string;
  shown?: ShownSecret;
  values?: EndpointValues;
  flash?: string;
  error?: string;
  /** Just enabled: offer "Resend failed since" even if it was never disabled for failing. */
  offerResend?: boolean;
  /** The custom headers with their values, in the response to "Reveal headers" only. */
  revealedHeaders?: { name: string; value: string }[];
  /** What was typed into "Add header", shown again with its problem. */
  headerInput?: { name: string; value: string };
  /** What was typed into "Max deliveries per second", shown again with its problem. */
  rateInput?: RateInput;
}) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { endpoint, deliveries, shown } = props;
  const here = endpointPath(store.id, endpoint.id);
  // Secrets and every change are the developer_settings permission's (CONTRACT §13): other roles see the endpoint and its deliveries only.
  const manages = may(props.ctx, "developer_settings");
  return (
    <Shell title="Webhook endpoint" member={member} store={store} section="webhooks" csrf={csrf} flash={props.flash} error={props.error}>
      <p class="small">
        <a href={storePath(store.id, "webhooks")}>← All endpoints</a>
      </p>
      {shown?.kind === "revealed" && <SecretCard heading="Signing secret" secret={shown.secret} />}
      {shown?.kind === "rotated" && (
        <SecretCard heading="New signing secret" secret={shown.secret}>
          <p class="small">
            The old secret keeps signing too for 24 h, until <Time iso={shown.previousExpiresAt} />: until then every request carries both signatures, so
            switch your server to the new secret before that.
          </p>
        </SecretCard>
      )}
      <section class="card" aria-labelledby="endpoint-details">
        <h2 id="endpoint-details" style="margin-top:0">
          Details
        </h2>
        <dl class="details">
          <dt>URL</dt>
          <dd>
            <span class="mono">{endpoint.url}</span>
            {/* The webhook service gives this role the origin only: a path or query often holds the receiver's token. */}
            {!manages && <span class="small muted"> (its path is shown only to roles that manage webhooks)</span>}
          </dd>
          <dt>Description</dt>
          <dd>{endpoint.description || <span class="muted">—</span>}</dd>
          <dt>Events</dt>
          <dd>{eventsText(endpoint)}</dd>
          <dt>Status</dt>
          <dd>
            <EndpointStatus endpoint={endpoint} />
          </dd>
          <dt>Created</dt>
          <dd>
            <Time iso={endpoint.createdAt} />
          </dd>
          <dt>Endpoint id</dt>
          <dd class="mono small">{endpoint.id}</dd>
        </dl>
        {manages && (
          <>
            <div class="actions">
              <form method="post" action={`${here}/reveal-secret`}>
                <Csrf token={csrf} />
                <button type="submit" class="secondary">
                  Reveal secret
                </button>
              </form>
              <form method="post" action={`${here}/rotate-secret`}>
                <Csrf token={csrf} />
                <button type="submit" class="secondary">
                  Rotate secret
                </button>
              </form>
              <form method="post" action={`${here}/test`}>
                <Csrf token={csrf} />
                <button type="submit" class="secondary">
                  Send test event
                </button>
              </form>
              <form method="post" action={`${here}/${endpoint.enabled ? "disable" : "enable"}`}>
                <Csrf token={csrf} />
                <button type="submit" class="secondary">
                  {endpoint.enabled ? "Disable endpoint" : "Enable endpoint"}
                </button>
              </form>
              <form method="get" action={`${here}/delete`}>
                <button type="submit" class="danger">
                  Delete endpoint
                </button>
              </form>
            </div>
            <p class="small muted" style="margin:0">
              Revealing the secret is recorded in the audit log. Rotating makes a new secret; the old one keeps signing for 24 h.
            </p>
          </>
        )}
      </section>

      <section class="card" aria-labelledby="headers-heading">
        <h2 id="headers-heading" style="margin-top:0">
          Custom headers
        </h2>
        <p class="small muted">
          Sent with every request to this endpoint, test events included: a token your receiver checks, for example. Values are kept encrypted and shown
          only on request, which the audit log records.
        </p>
        {endpoint.headerNames.length === 0 ? (
          <p class="muted">No custom headers.</p>
        ) : (
          <ul class="people" aria-label="Custom headers">
            {endpoint.headerNames.map((name) => {
              const revealed = props.revealedHeaders?.find((header) => header.name === name);
              return (
                <li class="person">
                  <div class="who-is">
                    <span class="mono">{name}</span>: <span class="mono">{revealed ? revealed.value : "••••••••"}</span>
                  </div>
                  {manages && (
                    <form method="post" action={`${here}/headers/remove`}>
                      <Csrf token={csrf} />
                      <input type="hidden" name="name" value={name} />
                      <button type="submit" class="danger" aria-label={`Remove header ${name}`}>
                        Remove header
                      </button>
                    </form>
                  )}
                </li>
              );
            })}
          </ul>
        )}
        {manages && (
          <>
            {endpoint.headerNames.length > 0 && !props.revealedHeaders && (
              <form method="post" action={`${here}/headers/reveal`} style="margin-bottom:12px">
                <Csrf token={csrf} />
                <button type="submit" class="secondary">
                  Reveal headers
                </button>
              </form>
            )}
            <form class="inline" method="post" action={`${here}/headers`}>
              <Csrf token={csrf} />
              <div class="field">
                <label for="header-name">Header name</label>
                <input id="header-name" type="text" name="header_name" required maxLength={100} placeholder="Authorization" value={props.headerInput?.name ?? ""} />
              </div>
              <div class="field">
                <label for="header-value">Header value</label>
                <input id="header-value" type="text" name="header_value" required maxLength={1000} autocomplete="off" value={props.headerInput?.value ?? ""} />
              </div>
              <button type="submit">Add header</button>
            </form>
          </>
        )}
      </section>

      <section class="card" aria-labelledby="rate-heading">
        <h2 id="rate-heading" style="margin-top:0">
          Rate
        </h2>
        {manages ? (
          <form class="inline" method="post" action={`${here}/rate`}>
            <Csrf token={csrf} />
            <div class="field">
              <label for="max-per-second">Max deliveries per second</label>
              <input
                id="max-per-second"
                type="number"
                name="max_per_second"
                min={1}
                max={1000}
                step={1}
                value={props.rateInput ? props.rateInput.typed : endpoint.maxPerSecond || ""}
                placeholder="no limit"
                aria-invalid={props.rateInput ? "true" : undefined}
                aria-describedby={props.rateInput ? "max-per-second-error" : undefined}
              />
              {props.rateInput && (
                <p id="max-per-second-error" class="error small" role="alert" style="margin:4px 0 0">
                  Not saved: {props.rateInput.problem}.
                </p>
              )}
            </div>
            <button type="submit" class="secondary">
              Save rate
            </button>
          </form>
        ) : (
          <p>{endpoint.maxPerSecond ? `At most ${endpoint.maxPerSecond} deliveries a second.` : "No limit."}</p>
        )}
        <p class="small muted" style="margin-bottom:0">
          Deliveries beyond it wait their turn (a burst of at most that many), across every server; none are dropped. Empty for no limit.
        </p>
      </section>

      {manages && endpoint.enabled && (endpoint.failedFrom || props.offerResend) && (
        <section class="card" aria-labelledby="resend-heading">
          <h2 id="resend-heading" style="margin-top:0">
            Resend what failed
          </h2>
          <p class="small muted">
            Every event since this time (WIB) that did not reach the endpoint — its deliveries failed, or it happened while the endpoint was disabled —
            is sent again with its own webhook-id, oldest first.
          </p>
          <form class="inline" method="post" action={`${here}/resend`}>
            <Csrf token={csrf} />
            <div class="field">
              <label for="resend-since">Resend failed since</label>
              <input
                id="resend-since"
                type="datetime-local"
                name="since"
                required
                value={jakartaLocalInput(new Date(endpoint.failedFrom || Date.now() - 86_400_000))}
              />
            </div>
            <button type="submit">Resend</button>
          </form>
        </section>
      )}

      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries</h2>
        <form class="inline" method="get" action={here} style="margin-bottom:12px">
          <div style="display:grid;gap:4px">
            <label for="filter-status">Status</label>
            <select id="filter-status" name="status">
              <option value="" selected={props.status === ""}>
                any
              </option>
              {DELIVERY_STATUSES.map((status) => (
                <option value={status} selected={props.status === status}>
                  {status}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="secondary">
            Filter
          </button>
        </form>
        {deliveries.length === 0 ? (
          <Empty title={props.status ? `No ${props.status} delivery` : "No delivery yet"}>
            <p>
              {props.status
                ? "Choose another status, or any, to see the others."
                : "Each order event this endpoint receives is listed here. Send a test event to try it now."}
            </p>
          </Empty>
        ) : (
          <DeliveriesTable storeId={store.id} deliveries={deliveries} />
        )}
        {deliveries.length >= DELIVERY_LIMIT && <p class="small muted">The newest {DELIVERY_LIMIT} are shown.</p>}
      </section>

      {manages && <EndpointForm id="edit-endpoint" heading="Edit endpoint" action={here} csrf={csrf} values={props.values ?? valuesOfEndpoint(endpoint)} />}
    </Shell>
  );
}

function DeletePage(props: { ctx: DashboardContext; endpoint: Endpoint }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { endpoint } = props;
  return (
    <Shell title="Delete this endpoint?" member={member} store={store} section="webhooks" csrf={csrf}>
      <div class="card">
        <p>
          Endpoint <span class="mono">{endpoint.url}</span> will receive nothing more: deliveries still waiting are not sent, and its secret is forgotten.
          Its past deliveries stay listed on the Events page. This cannot be undone.
        </p>
        <div class="actions">
          <form method="post" action={endpointPath(store.id, endpoint.id, "delete")}>
            <Csrf token={csrf} />
            <button type="submit" class="danger">
              Delete endpoint
            </button>
          </form>
          <a class="button secondary" href={endpointPath(store.id, endpoint.id)}>
            Keep it
          </a>
        </div>
      </div>
    </Shell>
  );
}

// ---- Routes --------------------------------------------------------------------------

function statusFilter(value: unknown): string {
  return typeof value === "string" && (DELIVERY_STATUSES as readonly string[]).includes(value) ? value : "";
}

export function webhookPages(router: Router, kit: Kit) {
  const { handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/webhooks";
  const client = (ctx: DashboardContext) => webhookClientOr(ctx, kit, "webhooks", "Webhooks");

  const listEndpoints = async (webhook: WebhookClient, ctx: DashboardContext) =>
    (await webhook.listEndpoints({ storeId: ctx.state.scope.store.id })).endpoints;

  /** The endpoint of the URL (NOT_FOUND, so a 404 page, when it is not this store's); undefined for a malformed id. */
  const loadEndpoint = async (webhook: WebhookClient, ctx: DashboardContext) => {
    const endpointId = ctx.params.endpointId ?? "";
    if (!isUuid(endpointId)) return undefined;
    return (await webhook.getEndpoint({ storeId: ctx.state.scope.store.id, endpointId: endpointId.toLowerCase() })).endpoint;
  };

  const deliveriesOf = async (webhook: WebhookClient, ctx: DashboardContext, endpointId: string, status: string) =>
    (await webhook.listDeliveries({ storeId: ctx.state.scope.store.id, endpointId, status, limit: DELIVERY_LIMIT, withoutAttempts: true })).deliveries;

  /** A route of one endpoint of this store (webhookRoute). */
  const endpointRoute = (
    method: "get" | "post",
    path: string,
    work: (ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) => Promise<void>,
  ) => webhookRoute(router, kit, method, `${base}/:endpointId${path}`, loadEndpoint, work);

  /** The endpoint page after a POST that stays on it (a secret shown, or a problem). */
  const showEndpoint = async (
    webhook: WebhookClient,
    ctx: DashboardContext,
    endpoint: Endpoint,
    extra: Pick<Parameters<typeof EndpointPage>[0], "shown" | "values" | "error" | "revealedHeaders" | "headerInput" | "rateInput">,
    status = 200,
  ) => {
    const deliveries = await deliveriesOf(webhook, ctx, endpoint.id, "");
    sendPage(ctx, <EndpointPage ctx={ctx} endpoint={endpoint} deliveries={deliveries} status="" {...extra} />, status);
  };

  router.get(
    base,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const webhook = client(ctx);
      if (!webhook) return;
      const [endpoints, { endpoints: health }] = await Promise.all([listEndpoints(webhook, ctx), webhook.getWebhookHealth({ storeId: ctx.state.scope.store.id })]);
      sendPage(ctx, <EndpointsPage ctx={ctx} endpoints={endpoints} health={health} flash={LIST_DONE[String(ctx.query.done)]} />);
    }),
  );

  router.post(
    base,
    storeScope,
    handle(async (ctx: DashboardContext) => {
      const webhook = client(ctx);
      if (!webhook) return;
      const storeId = ctx.state.scope.store.id;
      const values = valuesFrom(ctx.state.scope.form);
      try {
        // The webhook service checks the member's role and audits the change with it.
        const created = await webhook.createEndpoint({ storeId, url: values.url, description: values.description, events: subscriptionOf(values) });
        // The secret is in this response only, never in a URL or a later page.
        sendPage(ctx, <CreatedPage ctx={ctx} endpoint={created.endpoint!} secret={created.secret} />, 201);
      } catch (error) {
        const problem = formProblem(error);
        if (!problem) throw error;
        sendPage(ctx, <EndpointsPage ctx={ctx} endpoints={await listEndpoints(webhook, ctx)} values={values} error={problem} />, 400);
      }
    }),
  );

  endpointRoute("get", "", async (ctx, webhook, endpoint) => {
    const status = statusFilter(ctx.query.status);
    const deliveries = await deliveriesOf(webhook, ctx, endpoint.id, status);
    const done = String(ctx.query.done);
    sendPage(ctx, <EndpointPage ctx={ctx} endpoint={endpoint} deliveries={deliveries} status={status} flash={ENDPOINT_DONE[done]} offerResend={done === "enabled"} />);
  });

  // The edit form: URL, description and events.
  endpointRoute("post", "", async (ctx, webhook, endpoint) => {
    const storeId = ctx.state.scope.store.id;
    const values = valuesFrom(ctx.state.scope.form);
    try {
      await webhook.updateEndpoint({ storeId, endpointId: endpoint.id, url: values.url, description: values.description, events: subscriptionOf(values) });
      seeOther(ctx, `${endpointPath(storeId, endpoint.id)}?done=updated`);
    } catch (error) {
      const problem = formProblem(error);
      if (!problem) throw error;
      await showEndpoint(webhook, ctx, endpoint, { values, error: problem }, 400);
    }
  });

  endpointRoute("post", "/reveal-secret", async (ctx, webhook, endpoint) => {
    const { store } = ctx.state.scope;
    // The service records the reveal in the same transaction that reads the secret.
    const { secret } = await webhook.revealSecret({ storeId: store.id, endpointId: endpoint.id });
    await showEndpoint(webhook, ctx, endpoint, { shown: { kind: "revealed", secret } });
  });

  endpointRoute("post", "/rotate-secret", async (ctx, webhook, endpoint) => {
    const storeId = ctx.state.scope.store.id;
    const rotated = await webhook.rotateSecret({ storeId, endpointId: endpoint.id });
    await showEndpoint(webhook, ctx, rotated.endpoint ?? endpoint, {
      shown: { kind: "rotated", secret: rotated.secret, previousExpiresAt: rotated.previousSecretExpiresAt },
    });
  });

  endpointRoute("post", "/test", async (ctx, webhook, endpoint) => {
    const storeId = ctx.state.scope.store.id;
    try {
      const { delivery } = await webhook.sendTestEvent({ storeId, endpointId: endpoint.id });
      // Wait a little for the first attempt, so the page can show the answer at once;
      // past that the delivery's page refreshes itself until it is there.
      const attempted = await firstAttempt(webhook, storeId, delivery!.id, TEST_EVENT_WAIT_MS);
      seeOther(ctx, `${deliveryPath(storeId, delivery!)}?done=${attempted ? "test_sent" : "test_queued"}`);
    } catch (error) {
      // A disabled endpoint is sent nothing, not even a test.
      if (!(error instanceof ConnectError && error.code === Code.FailedPrecondition)) throw error;
      await showEndpoint(webhook, ctx, endpoint, { error: "This endpoint is disabled, so nothing is sent to it: enable it, then send a test event." }, 409);
    }
  });

  for (const [path, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    endpointRoute("post", `/${path}`, async (ctx, webhook, endpoint) => {
      const storeId = ctx.state.scope.store.id;
      await webhook.updateEndpoint({ storeId, endpointId: endpoint.id, enabled });
      seeOther(ctx, `${endpointPath(storeId, endpoint.id)}?done=${enabled ? "enabled" : "disabled"}`);
    });
  }

  endpointRoute("post", "/rate", async (ctx, webhook, endpoint) => {
    const storeId = ctx.state.scope.store.id;
    const typed = field(ctx.state.scope.form, "max_per_second").trim();
    try {
      // The webhook service checks the role and the value as typed (empty: no limit).
      await webhook.updateEndpoint({ storeId, endpointId: endpoint.id, maxPerSecond: typed });
      seeOther(ctx, `${endpointPath(storeId, endpoint.id)}?done=rate`);
    } catch (error) {
      const problem = problemText(error);
      if (!problem?.startsWith("max_per_second ")) throw error;
      await showEndpoint(webhook, ctx, endpoint, { rateInput: { typed, problem: problem.replace(/^max_per_second/, "Max deliveries per second") } }, 400);
    }
  });

  endpointRoute("post", "/headers", async (ctx, webhook, endpoint) => {
    const storeId = ctx.state.scope.store.id;
    const header = { name: field(ctx.state.scope.form, "header_name").trim(), value: field(ctx.state.scope.form, "header_value") };
    try {
      // The webhook service checks the role and the header, seals the value and audits it.
      await webhook.setEndpointHeader({ storeId, endpointId: endpoint.id, header });
      seeOther(ctx, `${endpointPath(storeId, endpoint.id)}?done=header_set`);
    } catch (error) {
      const problem = problemText(error);
      if (!problem) throw error;
      await showEndpoint(webhook, ctx, endpoint, { error: `Not saved: ${problem.replace(/^header_name /, "Header name ").replace(/^header_value /, "Header value ")}.`, headerInput: header }, 400);
    }
  });

  endpointRoute("post", "/headers/remove", async (ctx, webhook, endpoint) => {
    const storeId = ctx.state.scope.store.id;
    try {
      await webhook.removeEndpointHeader({ storeId, endpointId: endpoint.id, name: field(ctx.state.scope.form, "name") });
    } catch (error) {
      // Removed meanwhile (another tab): the page shows what is left.
      if (!(error instanceof ConnectError && error.code === Code.NotFound)) throw error;
    }
    seeOther(ctx, `${endpointPath(storeId, endpoint.id)}?done=header_removed`);
  });

  endpointRoute("post", "/headers/reveal", async (ctx, webhook, endpoint) => {
    const storeId = ctx.state.scope.store.id;
    // Shown in this response only; the service records the reveal with it.
    const { headers } = await webhook.revealEndpointHeaders({ storeId, endpointId: endpoint.id });
    await showEndpoint(webhook, ctx, endpoint, { revealedHeaders: headers.map(({ name, value }) => ({ name, value })) });
  });

  endpointRoute("post", "/resend", async (ctx, webhook, endpoint) => {
    const storeId = ctx.state.scope.store.id;
    const since = fromJakartaLocalInput(field(ctx.state.scope.form, "since").trim());
    if (!since) return showEndpoint(webhook, ctx, endpoint, { error: "Not sent: choose a date and time for “Resend failed since”." }, 400);
    try {
      // The webhook service checks the role, queues the resends and audits them.
      await webhook.updateEndpoint({ storeId, endpointId: endpoint.id, enabled: true, resendFailedSince: since.toISOString() });
      seeOther(ctx, `${endpointPath(storeId, endpoint.id)}?done=resent`);
    } catch (error) {
      const problem = problemText(error);
      if (!problem) throw error;
      await showEndpoint(webhook, ctx, endpoint, { error: `Not sent: ${problem}` }, 400);
    }
  });

  endpointRoute("get", "/delete", async (ctx, _webhook, endpoint) => {
    // A confirmation of what the role may not do is refused like the post it leads to.
    if (!may(ctx, "developer_settings")) return forbiddenPage(ctx, "developer_settings");
    sendPage(ctx, <DeletePage ctx={ctx} endpoint={endpoint} />);
  });

  endpointRoute("post", "/delete", async (ctx, webhook, endpoint) => {
    const storeId = ctx.state.scope.store.id;
    await webhook.deleteEndpoint({ storeId, endpointId: endpoint.id });
    seeOther(ctx, `${storePath(storeId, "webhooks")}?done=deleted`);
  });
}
