// The posts made from an endpoint's page: edit, secrets, test event, enable/disable,
// rate, custom headers and "Resend what failed". Each goes through the webhook service,
// which checks the member's role and audits the change (docs/webhooks.md); a refused
// value shows the page again with the service's reason.
import { Code, ConnectError } from "@connectrpc/connect";
import { fromJakartaLocalInput } from "../../../../common/jakarta-time.js";
import type { Endpoint } from "../../../../gen/webhook/v1/webhook_pb.js";
import { flashFits } from "../../flash.js";
import { field } from "../../forms.js";
import { problemText, seeOtherWith, type DashboardContext } from "../../kit.js";
import { DELIVERY_DONE, deliveryPath, endpointPath, type WebhookClient } from "../deliveries.js";
import { ENDPOINT_DONE, JUST_ENABLED, REVEALED_HEADERS, showEndpoint, type ShownHeaders, type ShownSecret } from "./detail.js";
import { formProblem, subscriptionOf, valuesFrom } from "./forms.js";

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

/** POST …/:endpointId: the edit form (URL, description and events). */
export async function editEndpoint(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  const values = valuesFrom(ctx.state.scope.form);
  try {
    await webhook.updateEndpoint({ storeId, endpointId: endpoint.id, url: values.url, description: values.description, events: subscriptionOf(values) });
    seeOtherWith(ctx, endpointPath(storeId, endpoint.id), { message: ENDPOINT_DONE.updated });
  } catch (error) {
    const problem = formProblem(error);
    if (!problem) throw error;
    await showEndpoint(webhook, ctx, endpoint, { values, error: problem }, 400);
  }
}

export async function revealSecret(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  // The service records the reveal in the same transaction that reads the secret.
  const { secret } = await webhook.revealSecret({ storeId, endpointId: endpoint.id });
  // Shown once by the endpoint's page: a reload neither reveals (and records) it again nor shows it.
  seeOtherWith(ctx, endpointPath(storeId, endpoint.id), { shown: { kind: "endpoint_secret", how: "revealed", secret } satisfies ShownSecret });
}

export async function rotateSecret(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  const rotated = await webhook.rotateSecret({ storeId, endpointId: endpoint.id });
  // A reload shows the page, not a second rotation.
  seeOtherWith(ctx, endpointPath(storeId, endpoint.id), {
    shown: { kind: "endpoint_secret", how: "rotated", secret: rotated.secret, previousExpiresAt: rotated.previousSecretExpiresAt } satisfies ShownSecret,
  });
}

export async function sendTestEvent(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  try {
    const { delivery } = await webhook.sendTestEvent({ storeId, endpointId: endpoint.id });
    // Wait a little for the first attempt, so the page can show the answer at once;
    // past that the delivery's page refreshes itself until it is there.
    const attempted = await firstAttempt(webhook, storeId, delivery!.id, TEST_EVENT_WAIT_MS);
    seeOtherWith(ctx, deliveryPath(storeId, delivery!), { message: DELIVERY_DONE[attempted ? "test_sent" : "test_queued"] });
  } catch (error) {
    // A disabled endpoint is sent nothing, not even a test.
    if (!(error instanceof ConnectError && error.code === Code.FailedPrecondition)) throw error;
    await showEndpoint(webhook, ctx, endpoint, { error: "This endpoint is disabled, so nothing is sent to it: enable it, then send a test event." }, 409);
  }
}

async function setEnabled(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint, enabled: boolean) {
  const storeId = ctx.state.scope.store.id;
  await webhook.updateEndpoint({ storeId, endpointId: endpoint.id, enabled });
  seeOtherWith(ctx, endpointPath(storeId, endpoint.id), enabled ? { message: ENDPOINT_DONE.enabled, shown: { kind: JUST_ENABLED } } : { message: ENDPOINT_DONE.disabled });
}

export const enableEndpoint = (ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) => setEnabled(ctx, webhook, endpoint, true);
export const disableEndpoint = (ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) => setEnabled(ctx, webhook, endpoint, false);

/** "Max deliveries per second"; a refused value is shown again in the field with its reason. */
export async function saveRate(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  const typed = field(ctx.state.scope.form, "max_per_second").trim();
  try {
    // The webhook service checks the role and the value as typed (empty: no limit).
    await webhook.updateEndpoint({ storeId, endpointId: endpoint.id, maxPerSecond: typed });
    seeOtherWith(ctx, endpointPath(storeId, endpoint.id), { message: ENDPOINT_DONE.rate });
  } catch (error) {
    const problem = problemText(error);
    if (!problem?.startsWith("max_per_second ")) throw error;
    await showEndpoint(webhook, ctx, endpoint, { rateInput: { typed, problem: problem.replace(/^max_per_second/, "Max deliveries per second") } }, 400);
  }
}

/** "Add header": a refused name or value is shown again with what was typed. */
export async function setHeader(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  const header = { name: field(ctx.state.scope.form, "header_name").trim(), value: field(ctx.state.scope.form, "header_value") };
  try {
    // The webhook service checks the role and the header, seals the value and audits it.
    await webhook.setEndpointHeader({ storeId, endpointId: endpoint.id, header });
    seeOtherWith(ctx, endpointPath(storeId, endpoint.id), { message: ENDPOINT_DONE.header_set });
  } catch (error) {
    const problem = problemText(error);
    if (!problem) throw error;
    await showEndpoint(webhook, ctx, endpoint, { error: `Not saved: ${problem.replace(/^header_name /, "Header name ").replace(/^header_value /, "Header value ")}.`, headerInput: header }, 400);
  }
}

export async function removeHeader(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  try {
    await webhook.removeEndpointHeader({ storeId, endpointId: endpoint.id, name: field(ctx.state.scope.form, "name") });
  } catch (error) {
    // Removed meanwhile (another tab): the page shows what is left.
    if (!(error instanceof ConnectError && error.code === Code.NotFound)) throw error;
  }
  seeOtherWith(ctx, endpointPath(storeId, endpoint.id), { message: ENDPOINT_DONE.header_removed });
}

export async function revealHeaders(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  // The service records the reveal with it. Shown once by the endpoint's page after the
  // redirect, so a reload neither reveals (and records) them again nor shows them; only
  // values too long for the flash's cookie are shown in this answer itself.
  const { headers } = await webhook.revealEndpointHeaders({ storeId, endpointId: endpoint.id });
  const revealed = { kind: REVEALED_HEADERS, headers: headers.map(({ name, value }) => ({ name, value })) } satisfies ShownHeaders;
  const location = endpointPath(storeId, endpoint.id);
  if (flashFits(location, storeId, { shown: revealed })) return seeOtherWith(ctx, location, { shown: revealed });
  await showEndpoint(webhook, ctx, endpoint, { revealedHeaders: revealed.headers });
}

/** "Resend failed since": enables the endpoint and queues again what did not reach it since then. */
export async function resendFailed(ctx: DashboardContext, webhook: WebhookClient, endpoint: Endpoint) {
  const storeId = ctx.state.scope.store.id;
  const since = fromJakartaLocalInput(field(ctx.state.scope.form, "since").trim());
  if (!since) return showEndpoint(webhook, ctx, endpoint, { error: "Not sent: choose a date and time for “Resend failed since”." }, 400);
  try {
    // The webhook service checks the role, queues the resends and audits them.
    await webhook.updateEndpoint({ storeId, endpointId: endpoint.id, enabled: true, resendFailedSince: since.toISOString() });
    seeOtherWith(ctx, endpointPath(storeId, endpoint.id), { message: ENDPOINT_DONE.resent });
  } catch (error) {
    const problem = problemText(error);
    if (!problem) throw error;
    await showEndpoint(webhook, ctx, endpoint, { error: `Not sent: ${problem}` }, 400);
  }
}
