// An endpoint's page: its details and state, secret, custom headers, rate, "Resend what
// failed", its deliveries (whose own pages are in ../deliveries.tsx) and the edit form.
// The posts made from it are in actions.ts (docs/webhooks.md, docs/dashboard.md).
import { jakartaLocalInput } from "../../../../common/jakarta-time.js";
import { MASKED_HEADER_VALUE } from "../../../../common/webhook-headers.js";
import type { Delivery, Endpoint } from "../../../../gen/webhook/v1/webhook_pb.js";
import { Breakable, Time } from "../../../html/components.js";
import { flashMessage, may, sendPage, shownOnce, type DashboardContext } from "../../kit.js";
import { Csrf, Empty, Shell, storePath } from "../../views/layout.js";
import { DeliveriesTable, DELIVERY_STATUSES, deliveryStatusLabel, endpointPath, type WebhookClient } from "../deliveries.js";
import { EndpointForm, SecretCard, valuesOfEndpoint, type EndpointValues } from "./forms.js";
import { EndpointStatus, eventsText } from "./health.js";

const DELIVERY_LIMIT = 100;

/** The confirmations of the changes made on an endpoint's page (actions.ts), shown once by the page after them. */
export const ENDPOINT_DONE = {
  updated: "The endpoint is saved.",
  enabled: "The endpoint is enabled: new events are delivered to it again.",
  disabled: "The endpoint is disabled: no events are delivered to it until you enable it again.",
  rate: "The rate is saved.",
  header_set: "The header is saved: every request from now on carries it.",
  header_removed: "The header is removed.",
  resent: "Every event since then that had not reached the endpoint is being sent again, oldest first, with its own webhook-id.",
} as const;

/** A refused "Max deliveries per second": the text typed and the service's reason, for the field. */
interface RateInput {
  typed: string;
  problem: string;
}

/** A secret revealed or rotated, shown once by the page after the post (in the encrypted flash only). */
export type ShownSecret = { kind: "endpoint_secret"; secret: string } & ({ how: "revealed" } | { how: "rotated"; previousExpiresAt: string });

/** The flash of "Enable endpoint": offer "Resend failed since" even if it was never disabled for failing. */
export const JUST_ENABLED = "endpoint_enabled";
/** The custom header values a reveal shows once, after its redirect (in the encrypted flash only). */
export const REVEALED_HEADERS = "endpoint_headers";
export type ShownHeaders = { kind: typeof REVEALED_HEADERS; headers: { name: string; value: string }[] };

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
  // Secrets and every change are the developer_settings permission's (docs/team.md): other roles see the endpoint and its deliveries only.
  const manages = may(props.ctx, "developer_settings");
  return (
    <Shell title="Webhook endpoint" member={member} store={store} section="webhooks" csrf={csrf} flash={props.flash} error={props.error}>
      <p class="small">
        <a href={storePath(store.id, "webhooks")}>← All endpoints</a>
      </p>
      {shown?.how === "revealed" && <SecretCard heading="Signing secret" secret={shown.secret} />}
      {shown?.how === "rotated" && (
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
            <Breakable class="mono" text={endpoint.url} />
            {/* The webhook service gives this role the origin only: a path or query often holds the receiver's token. */}
            {!manages && <span class="small muted"> (its path is shown only to roles that manage webhooks)</span>}
          </dd>
          <dt>Description</dt>
          <dd>{endpoint.description || <span class="muted">—</span>}</dd>
          <dt>Mode</dt>
          <dd>{endpoint.livemode ? "Live: receives the events of live orders" : "Test: receives only the events of test orders"}</dd>
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
                    <span class="mono">{name}</span>: <span class="mono">{revealed ? revealed.value : MASKED_HEADER_VALUE}</span>
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
                  {deliveryStatusLabel(status)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="secondary">
            Filter
          </button>
        </form>
        {deliveries.length === 0 ? (
          <Empty title={props.status ? `No ${deliveryStatusLabel(props.status).toLowerCase()} delivery` : "No delivery yet"}>
            <p>
              {props.status
                ? "Choose another status, or any, to see the others."
                : endpoint.enabled
                  ? "Each order event this endpoint receives is listed here. Send a test event to try it now."
                  : "It is disabled, so no order event is sent to it: each one it receives once enabled is listed here."}
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

function statusFilter(value: unknown): string {
  return typeof value === "string" && (DELIVERY_STATUSES as readonly string[]).includes(value) ? value : "";
}

const deliveriesOf = async (webhook: WebhookClient, ctx: DashboardContext, endpointId: string, status: string) =>
  (await webhook.listDeliveries({ storeId: ctx.state.scope.store.id, endpointId, status, limit: DELIVERY_LIMIT, withoutAttempts: true })).deliveries;

/** GET …/webhooks/:endpointId: the page, its deliveries filtered by status, with the flash of a change. */
export async function endpointDetail(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const status = statusFilter(ctx.query.status);
  const deliveries = await deliveriesOf(webhook, ctx, endpoint.id, status);
  sendPage(
    ctx,
    <EndpointPage
      ctx={ctx}
      endpoint={endpoint}
      deliveries={deliveries}
      status={status}
      flash={flashMessage(ctx)}
      shown={shownOnce<ShownSecret>(ctx, "endpoint_secret")}
      offerResend={shownOnce(ctx, JUST_ENABLED) !== undefined}
      revealedHeaders={shownOnce<ShownHeaders>(ctx, REVEALED_HEADERS)?.headers}
    />,
  );
}

/** The endpoint page after a POST that stays on it (a refused value, or the revealed header values). */
export async function showEndpoint(
  webhook: WebhookClient,
  ctx: DashboardContext,
  endpoint: Endpoint,
  extra: Pick<Parameters<typeof EndpointPage>[0], "values" | "error" | "revealedHeaders" | "headerInput" | "rateInput">,
  status = 200,
) {
  const deliveries = await deliveriesOf(webhook, ctx, endpoint.id, "");
  sendPage(ctx, <EndpointPage ctx={ctx} endpoint={endpoint} deliveries={deliveries} status="" {...extra} />, status);
}
