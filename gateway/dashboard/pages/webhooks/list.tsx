// The store's endpoints (Webhooks in the navigation): each with its state, last
// attempt and success over 24 h, and the form that adds one, whose secret this list
// shows once after the redirect (docs/webhooks.md, docs/dashboard.md). The "Test data" switch
// (?mode=test) shows the test endpoints, and the form then adds a test endpoint.
import type { Endpoint, EndpointHealth } from "../../../../gen/webhook/v1/webhook_pb.js";
import { Breakable, Time } from "../../../html/components.js";
import { flashFits } from "../../flash.js";
import { dashboardMode, flashMessage, may, seeOtherWith, sendPage, shownOnce, type DashboardContext } from "../../kit.js";
import { Empty, Shell, storePath } from "../../views/layout.js";
import { TestData, withMode } from "../../views/test-data.js";
import { DataTable } from "../../views/data-table.js";
import { endpointPath, type WebhookClient } from "../deliveries.js";
import { BLANK, EndpointForm, formProblem, SecretCard, subscriptionOf, valuesFrom, type EndpointValues } from "./forms.js";
import { eventsText, HealthBadge, SuccessRate } from "./health.js";

export const ENDPOINT_DELETED = "The endpoint is deleted. Nothing more is sent to it.";

/** A new endpoint as the list shows it once, after the redirect (its secret in the encrypted flash only). */
interface CreatedEndpoint {
  kind: "endpoint_created";
  endpointId: string;
  url: string;
  livemode: boolean;
  events: string;
  secret: string;
}

const listEndpoints = async (webhook: WebhookClient, ctx: DashboardContext) =>
  (await webhook.listEndpoints({ storeId: ctx.state.scope.store.id, testMode: dashboardMode(ctx).testMode })).endpoints;

function EndpointsPage(props: {
  ctx: DashboardContext;
  endpoints: Endpoint[];
  health?: EndpointHealth[];
  values?: EndpointValues;
  error?: string;
  flash?: string;
  created?: CreatedEndpoint;
}) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { endpoints } = props;
  const { testMode } = dashboardMode(props.ctx);
  const healthOf = (id: string) => props.health?.find((row) => row.endpointId === id);
  return (
    <Shell title="Webhooks" member={member} store={store} section="webhooks" csrf={csrf} flash={props.flash} error={props.error}>
      <TestData path={storePath(store.id, "webhooks")} query={props.ctx.query} testMode={testMode} />
      {props.created && <Created storeId={store.id} created={props.created} />}
      <p class="muted">
        Your systems are told about orders by an HTTPS POST to each endpoint, signed with the endpoint's secret (Standard Webhooks). Up to 10 endpoints.
        {testMode ? " Test endpoints receive only the events of test orders, live endpoints only those of live orders." : ""} The{" "}
        <a href={withMode(storePath(store.id, "events"), testMode)}>Events</a> page lists what was sent.
      </p>
      {endpoints.length === 0 ? (
        <Empty title={testMode ? "No test endpoint yet" : "No endpoint yet"}>
          <p>
            Add an endpoint below to receive {testMode ? "test " : ""}order events (order created, paid, failed, expired, cancelled, refunded; refunds succeeded or
            failed) on your server.
          </p>
        </Empty>
      ) : (
        <DataTable head={["URL", "Description", "State", "Last attempt", "Success (24 h)", "Events"]}>
          {endpoints.map((endpoint) => (
            <tr>
              <td class="mono">
                <a href={endpointPath(store.id, endpoint.id)}>
                  <Breakable text={endpoint.url} />
                </a>
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
          heading={testMode ? "Add test endpoint" : "Add endpoint"}
          action={withMode(storePath(store.id, "webhooks"), testMode)}
          csrf={csrf}
          values={props.values ?? BLANK}
          note={endpoints.length >= 10 ? "This store already has 10 endpoints, the most it can have: delete one before adding another." : undefined}
        />
      )}
    </Shell>
  );
}

/** The endpoint just added, with its signing secret: once, on the list after the redirect. */
function Created(props: { storeId: string; created: CreatedEndpoint }) {
  const { created } = props;
  return (
    <>
      <p>
        {created.livemode ? "Events" : "Test events"} are now sent to {created.url ? <Breakable class="mono" text={created.url} /> : "the new endpoint"} ({created.events}).
      </p>
      <SecretCard heading="Signing secret" secret={created.secret}>
        <p class="small muted">
          Your server verifies each request's <code>webhook-signature</code> with it, e.g. with the <code>standardwebhooks</code> library.
        </p>
        <p style="margin-bottom:0">
          <a class="button" href={endpointPath(props.storeId, created.endpointId)}>
            Go to the endpoint
          </a>
        </p>
      </SecretCard>
    </>
  );
}

/** GET …/webhooks: the list, with the flash of a change that led back to it. */
export async function endpointList(ctx: DashboardContext, webhook: WebhookClient) {
  const { testMode } = dashboardMode(ctx);
  const [endpoints, { endpoints: health }] = await Promise.all([listEndpoints(webhook, ctx), webhook.getWebhookHealth({ storeId: ctx.state.scope.store.id, testMode })]);
  sendPage(
    ctx,
    <EndpointsPage ctx={ctx} endpoints={endpoints} health={health} flash={flashMessage(ctx)} created={shownOnce<CreatedEndpoint>(ctx, "endpoint_created")} />,
  );
}

/** POST …/webhooks: adds an endpoint, then back to the list, which shows its secret once; a refused field shows the list again with what was typed. */
export async function addEndpoint(ctx: DashboardContext, webhook: WebhookClient) {
  const storeId = ctx.state.scope.store.id;
  const values = valuesFrom(ctx.state.scope.form);
  try {
    // The webhook service checks the member's role and audits the change with it.
    // The form posts to ?mode=test from the test endpoints' list: a test endpoint.
    const { testMode } = dashboardMode(ctx);
    const created = await webhook.createEndpoint({ storeId, url: values.url, description: values.description, events: subscriptionOf(values), testMode });
    // The secret rides to the list in the encrypted flash only, never in a URL; a reload adds nothing.
    const { endpoint, secret } = created;
    const location = withMode(storePath(storeId, "webhooks"), testMode);
    const shown = { kind: "endpoint_created", endpointId: endpoint!.id, url: endpoint!.url, livemode: endpoint!.livemode, events: eventsText(endpoint!), secret } satisfies CreatedEndpoint;
    // A URL of many non-ASCII characters grows up to ninefold once percent-encoded, past
    // what the flash's cookie holds: the card then names no URL (the list below does), and the secret still arrives.
    seeOtherWith(ctx, location, { shown: flashFits(location, storeId, { shown }) ? shown : { ...shown, url: "" } });
  } catch (error) {
    const problem = formProblem(error);
    if (!problem) throw error;
    sendPage(ctx, <EndpointsPage ctx={ctx} endpoints={await listEndpoints(webhook, ctx)} values={values} error={problem} />, 400);
  }
}
