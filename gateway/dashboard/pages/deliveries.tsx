// Webhook deliveries (docs/webhooks.md#recording-attempts, docs/dashboard.md#webhooks): every delivery with its request beside the
// receiver's answers ("Resend"), the table other pages list them in, and the links and
// badges they share. All through the webhook service; when the gateway runs without
// one, the pages say so.
import type { RouterInstance as Router } from "@koa/router";
import { Code, ConnectError } from "@connectrpc/connect";
import { isUuid } from "../../../common/ids.js";
import { MASKED_HEADER_VALUE } from "../../../common/webhook-headers.js";
import type { Attempt, Delivery, Endpoint } from "../../../gen/webhook/v1/webhook_pb.js";
import type { ServiceClients } from "../../clients.js";
import { Breakable, Reference, Time } from "../../html/components.js";
import { flashMessage, may, notFoundPage, seeOther, seeOtherWith, sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Csrf, Empty, Shell, storePath, type Section } from "../views/layout.js";
import { DataTable } from "../views/data-table.js";
import { withMode } from "../views/test-data.js";

export type WebhookClient = NonNullable<ServiceClients["webhook"]>;

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "refused"] as const;

export const endpointPath = (storeId: string, endpointId: string, rest = "") => storePath(storeId, `webhooks/${endpointId}${rest ? `/${rest}` : ""}`);
export const deliveryPath = (storeId: string, delivery: Pick<Delivery, "id" | "endpointId">) =>
  endpointPath(storeId, delivery.endpointId, `deliveries/${delivery.id}`);
export const orderPath = (storeId: string, orderId: string) => storePath(storeId, `orders/${orderId}`);

/**
 * The order of an event or delivery, named as a person knows it (SO-…) and linking to
 * its page; its id only when the body named no reference; a dash without an order.
 */
export function OrderLink(props: { storeId: string; orderId: string; reference: string; testMode?: boolean }) {
  if (!props.orderId) return <span class="muted">—</span>;
  const href = withMode(orderPath(props.storeId, props.orderId), props.testMode ?? false);
  return <a href={href}>{props.reference ? <Reference value={props.reference} /> : <span class="mono small">{props.orderId}</span>}</a>;
}

/** The confirmations shown once by a delivery's page after a test event or a resend. */
export const DELIVERY_DONE = {
  test_sent: "The test event is sent: the receiver's answer is beside the request below.",
  test_queued: "The test event is queued and is sent within a few seconds: this page shows the attempt by itself.",
  resent: "The delivery is queued again and is sent within a few seconds: this page shows the new attempt by itself.",
} as const;

const ATTEMPT_RESULTS: Record<string, string> = {
  succeeded: "Succeeded",
  http_error: "HTTP error",
  timeout: "Timed out",
  network_error: "Network error",
  refused: "Refused (destination not allowed)",
  endpoint_disabled: "Not sent: endpoint disabled",
};

/** A delivery's status as every page names it (badge and filter). */
export const DELIVERY_STATUS_LABELS: Record<(typeof DELIVERY_STATUSES)[number], string> = {
  pending: "Pending",
  succeeded: "Succeeded",
  failed: "Failed",
  refused: "Refused",
};

export const deliveryStatusLabel = (status: string) => (DELIVERY_STATUS_LABELS as Record<string, string>)[status] ?? status;

/** A delivery's status as a badge. */
export function DeliveryBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{deliveryStatusLabel(status)}</span>;
}

/**
 * The webhook service's client, or undefined after sending a page that says the
 * gateway runs without one (200 on a GET, so the navigation still works; 503 on a POST).
 */
export function webhookClientOr(ctx: DashboardContext, kit: Kit, section: Section, title: string): WebhookClient | undefined {
  if (kit.clients.webhook) return kit.clients.webhook;
  const { member, store, csrf } = ctx.state.scope;
  sendPage(
    ctx,
    <Shell title={title} member={member} store={store} section={section} csrf={csrf}>
      <Empty title="Webhooks are not available here">
        <p>This dashboard runs without the webhook service, so endpoints, events and deliveries cannot be shown or changed. Nothing was changed.</p>
        <p>Ask the operator to start the webhook service and set WEBHOOK_ADDR for the gateway.</p>
      </Empty>
    </Shell>,
    ctx.method === "GET" ? 200 : 503,
  );
  return undefined;
}

/** Deliveries, each linking to its page (on an endpoint's page and an order's). */
export function DeliveriesTable(props: { storeId: string; deliveries: Delivery[] }) {
  return (
    <DataTable head={["Event", "Order", "Status", "Attempts", "Time"]}>
      {props.deliveries.map((delivery) => (
        <tr>
          <td>
            <a href={deliveryPath(props.storeId, delivery)}>
              <code style="white-space:nowrap">{delivery.eventType}</code>
            </a>
            {delivery.kind !== "event" && <span class="small muted"> ({delivery.kind})</span>}
          </td>
          <td>
            <OrderLink storeId={props.storeId} orderId={delivery.orderId} reference={delivery.orderReference} />
          </td>
          <td>
            <DeliveryBadge status={delivery.status} />
          </td>
          <td class="num">{delivery.attemptsMade}</td>
          <td>
            <Time iso={delivery.createdAt} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Results whose attempt sent no request, so it has no headers to show. */
const NOTHING_SENT = new Set(["refused", "endpoint_disabled"]);

/** The headers an attempt was sent with, a custom header's value masked as on the endpoint's page. */
function AttemptHeaders({ attempt }: { attempt: Attempt }) {
  if (attempt.requestHeaders.length > 0) {
    return (
      <pre aria-label={`Request headers of attempt ${attempt.number}`}>
        {attempt.requestHeaders.map((header) => `${header.name}: ${header.masked ? MASKED_HEADER_VALUE : header.value}`).join("\n")}
      </pre>
    );
  }
  return (
    <span class="muted">
      {NOTHING_SENT.has(attempt.result) ? "None: no request was sent." : "Not recorded: this attempt was made before each attempt's headers were kept."}
    </span>
  );
}

/** The body as JSON with indentation, or as it is when it is not JSON. */
function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function DeliveryPage(props: { ctx: DashboardContext; delivery: Delivery; endpoint?: Endpoint; flash?: string; error?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { delivery, endpoint } = props;
  const pretty = prettyBody(delivery.body);
  return (
    <Shell title="Delivery" member={member} store={store} section="webhooks" csrf={csrf} flash={props.flash} error={props.error}>
      <p class="small">
        {endpoint ? <a href={endpointPath(store.id, endpoint.id)}>← Endpoint</a> : <span class="muted">The endpoint of this delivery was deleted.</span>}{" "}
        · <a href={storePath(store.id, "events")}>Events</a>
      </p>
      <section class="card" aria-labelledby="delivery-summary">
        <h2 id="delivery-summary" style="margin-top:0">
          <span class="mono">{delivery.eventType}</span> <DeliveryBadge status={delivery.status} />
        </h2>
        <dl class="details">
          <dt>Endpoint</dt>
          <dd class="mono">{endpoint ? <Breakable text={endpoint.url} /> : <span class="muted">(deleted)</span>}</dd>
          <dt>Order</dt>
          <dd>
            <OrderLink storeId={store.id} orderId={delivery.orderId} reference={delivery.orderReference} />
            {delivery.orderId && delivery.orderReference && <div class="muted small mono">{delivery.orderId}</div>}
          </dd>
          <dt>Kind</dt>
          <dd>{delivery.kind === "test" ? "Test event" : delivery.kind === "replay" ? "Replay" : "Event"}</dd>
          <dt>Attempts</dt>
          <dd class="num">{delivery.attemptsMade}</dd>
          {delivery.status === "pending" && delivery.nextAttemptAt && (
            <>
              <dt>Next attempt</dt>
              <dd>
                <Time iso={delivery.nextAttemptAt} />
              </dd>
            </>
          )}
          {delivery.lastError && (
            <>
              <dt>Last error</dt>
              <dd class="mono small">{delivery.lastError}</dd>
            </>
          )}
          <dt>Created</dt>
          <dd>
            <Time iso={delivery.createdAt} />
          </dd>
          <dt>Delivery id</dt>
          <dd class="mono small">{delivery.id}</dd>
        </dl>
        {endpoint && may(props.ctx, "developer_settings") && (
          <form method="post" action={`${deliveryPath(store.id, delivery)}/resend`} class="actions">
            <Csrf token={csrf} />
            <button type="submit">Resend</button>
          </form>
        )}
      </section>
      <div class="side-by-side">
        <section class="card" aria-labelledby="request-heading">
          <h2 id="request-heading" style="margin-top:0">
            Request
          </h2>
          <p class="small muted">
            <span class="mono">POST {endpoint?.url ?? ""}</span>
          </p>
          <h3 class="small">Headers</h3>
          <p class="small muted">
            Each attempt's own, exactly as sent, are listed with the attempt. <code>webhook-id</code> is the event id, the same on every attempt: dedupe on
            it. <code>webhook-timestamp</code> and <code>webhook-signature</code> are made for each attempt: its time, and <code>v1,</code> + base64
            HMAC-SHA256 of <code>{"{webhook-id}.{webhook-timestamp}.{body}"}</code> with the endpoint's secret (two, space-separated, while a rotated
            secret still signs). A custom header's value shows as <code>{MASKED_HEADER_VALUE}</code>, as on the endpoint's page: it is never kept with an attempt.
          </p>
          <h3 class="small">Body</h3>
          <pre aria-label="Request body">{pretty}</pre>
          {pretty !== delivery.body && (
            <details>
              <summary class="small">Exact body as sent (what is signed)</summary>
              <pre>{delivery.body}</pre>
            </details>
          )}
        </section>
        <section class="card" aria-labelledby="attempts-heading">
          <h2 id="attempts-heading" style="margin-top:0">
            Attempts
          </h2>
          {delivery.attempts.length === 0 ? (
            <p class="muted">
              {delivery.status === "pending" ? "Not attempted yet: it is sent within a few seconds, and this page shows the attempt by itself." : "No attempt was made."}
            </p>
          ) : (
            <ol style="list-style:none;padding:0;margin:0;display:grid;gap:12px">
              {[...delivery.attempts].reverse().map((attempt) => (
                <li style="border-top:1px solid #eef0f4;padding-top:10px">
                  <h3 class="small" style="margin:0 0 6px">
                    Attempt {attempt.number}
                  </h3>
                  <dl class="details">
                    <dt>Time</dt>
                    <dd>
                      <Time iso={attempt.startedAt} />
                    </dd>
                    <dt>Status code</dt>
                    <dd class="num">{attempt.statusCode === 0 ? <span class="muted">no response</span> : attempt.statusCode}</dd>
                    <dt>Latency</dt>
                    <dd class="num">{attempt.latencyMs} ms</dd>
                    <dt>Result</dt>
                    <dd>{ATTEMPT_RESULTS[attempt.result] ?? attempt.result}</dd>
                    {attempt.error && (
                      <>
                        <dt>Error</dt>
                        <dd class="mono small">{attempt.error}</dd>
                      </>
                    )}
                    <dt>Request headers</dt>
                    <dd>
                      <AttemptHeaders attempt={attempt} />
                    </dd>
                    <dt>Response</dt>
                    <dd>{attempt.responseExcerpt ? <pre>{attempt.responseExcerpt}</pre> : <span class="muted">(empty)</span>}</dd>
                  </dl>
                </li>
              ))}
            </ol>
          )}
          {delivery.attempts.length > 0 && <p class="small muted">Newest first. The response is the receiver's answer, cut at 1 KiB.</p>}
        </section>
      </div>
    </Shell>
  );
}

/**
 * A route about one thing of the webhook service (an endpoint, a delivery): without the
 * service the page says so; `load` finds the thing in this store, and when it does not
 * (another store's, a malformed id) the page is 404; else `work` has it.
 */
export function webhookRoute<T>(
  router: Router,
  kit: Kit,
  method: "get" | "post",
  path: string,
  load: (webhook: WebhookClient, ctx: DashboardContext) => Promise<T | undefined>,
  work: (ctx: DashboardContext, webhook: WebhookClient, found: T) => Promise<void>,
) {
  router[method](
    path,
    kit.storeScope,
    kit.handle(async (ctx: DashboardContext) => {
      const webhook = webhookClientOr(ctx, kit, "webhooks", "Webhooks");
      if (!webhook) return;
      const found = await load(webhook, ctx);
      if (!found) return notFoundPage(ctx);
      await work(ctx, webhook, found);
    }),
  );
}

/** A delivery of this store and its endpoint, undefined once the endpoint is deleted. */
type FoundDelivery = { delivery: Delivery; endpoint: Endpoint | undefined };

export const isNotFound = (error: unknown) => error instanceof ConnectError && error.code === Code.NotFound;

export function deliveryPages(router: Router, kit: Kit) {
  const { handle, storeScope } = kit;
  const base = "/dashboard/stores/:storeId/webhooks";
  const client = (ctx: DashboardContext) => webhookClientOr(ctx, kit, "webhooks", "Webhooks");

  /** The delivery of the URL (NOT_FOUND when it is not this store's, or not of that endpoint) and its endpoint (undefined once deleted). */
  const loadDelivery = async (webhook: WebhookClient, ctx: DashboardContext): Promise<FoundDelivery | undefined> => {
    const { endpointId = "", deliveryId = "" } = ctx.params;
    if (!isUuid(endpointId) || !isUuid(deliveryId)) return undefined;
    const storeId = ctx.state.scope.store.id;
    const { delivery } = await webhook.getDelivery({ storeId, deliveryId: deliveryId.toLowerCase() });
    if (!delivery || delivery.endpointId !== endpointId.toLowerCase()) return undefined;
    let endpoint: Endpoint | undefined;
    try {
      endpoint = (await webhook.getEndpoint({ storeId, endpointId: delivery.endpointId })).endpoint;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return { delivery, endpoint };
  };

  const deliveryAt = `${base}/:endpointId/deliveries/:deliveryId`;

  webhookRoute(router, kit, "get", deliveryAt, loadDelivery, deliveryDetail);
  webhookRoute(router, kit, "post", `${deliveryAt}/resend`, loadDelivery, resendDelivery);
  // A delivery by its id alone (links from other pages): to its page under its endpoint.
  router.get("/dashboard/stores/:storeId/deliveries/:deliveryId", storeScope, handle(redirectToDelivery));

  async function deliveryDetail(ctx: DashboardContext, _webhook: WebhookClient, found: FoundDelivery) {
    // Not attempted yet, or queued again and due now: the page reloads itself every 2 s,
    // without script, until the attempt shows beside the request.
    const { delivery } = found;
    if (delivery.status === "pending" && (delivery.attempts.length === 0 || Date.parse(delivery.nextAttemptAt) <= Date.now() + 5_000)) ctx.set("Refresh", "2");
    sendPage(ctx, <DeliveryPage ctx={ctx} {...found} flash={flashMessage(ctx)} />);
  }

  async function resendDelivery(ctx: DashboardContext, webhook: WebhookClient, found: FoundDelivery) {
    const storeId = ctx.state.scope.store.id;
    const { delivery } = found;
    try {
      await webhook.redeliver({ storeId, deliveryId: delivery.id });
    } catch (error) {
      // The service finds no delivery to queue while an attempt is under way, or once its endpoint is deleted.
      if (!isNotFound(error)) throw error;
      const problem = found.endpoint
        ? "It is being sent right now: wait for this attempt to finish, then resend it if needed."
        : "Its endpoint was deleted, so it cannot be sent again.";
      return sendPage(ctx, <DeliveryPage ctx={ctx} {...found} error={`This delivery was not resent. ${problem}`} />, 409);
    }
    seeOtherWith(ctx, deliveryPath(storeId, delivery), { message: DELIVERY_DONE.resent });
  }

  async function redirectToDelivery(ctx: DashboardContext) {
    const webhook = client(ctx);
    if (!webhook) return;
    const deliveryId = ctx.params.deliveryId ?? "";
    if (!isUuid(deliveryId)) return notFoundPage(ctx);
    const storeId = ctx.state.scope.store.id;
    const { delivery } = await webhook.getDelivery({ storeId, deliveryId: deliveryId.toLowerCase() });
    if (!delivery) return notFoundPage(ctx);
    seeOther(ctx, deliveryPath(storeId, delivery));
  }
}
