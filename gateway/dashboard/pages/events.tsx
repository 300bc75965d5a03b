// Events (docs/webhooks.md#event-log, docs/dashboard.md#events): the store's event log of the last 30 days, newest first,
// each with its order and where it was delivered; filtered by type and order, paged
// by "Older". The "Test data" switch (?mode=test) shows the test events instead.
import type { RouterInstance as Router } from "@koa/router";
import { isPaymentReference, isUuid } from "../../../common/ids.js";
import { ORDER_EVENT_TYPES } from "../../../common/order-status.js";
import type { Endpoint, Event } from "../../../gen/webhook/v1/webhook_pb.js";
import { Time } from "../../html/components.js";
import { dashboardMode, sendPage, type DashboardContext, type Kit } from "../kit.js";
import { Empty, Shell, storePath } from "../views/layout.js";
import { ModeField, TestData, withMode } from "../views/test-data.js";
import { DataTable } from "../views/data-table.js";
import { DeliveryBadge, deliveryPath, OrderLink, webhookClientOr } from "./deliveries.js";
import { parseRfc3339 } from "../../../common/rfc3339.js";

// Fifty, as every other list: a hundred events with their deliveries doubled what each view drew.
const PAGE_SIZE = 50;

interface Filters {
  type: string;
  order: string;
  /** The last event shown (its time and id): the next page goes on right after it. */
  before: string;
  beforeId: string;
  /** The switch's `?mode=test`: test events. */
  testMode: boolean;
}

const query = (value: unknown) => (typeof value === "string" ? value.trim() : "");

function eventsHref(storeId: string, filters: Filters): string {
  return withMode(storePath(storeId, "events"), filters.testMode, { type: filters.type, order: filters.order, before: filters.before, before_id: filters.beforeId });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function EventsPage(props: { ctx: DashboardContext; events: Event[]; endpoints: Endpoint[]; filters: Filters; error?: string }) {
  const { member, store, csrf } = props.ctx.state.scope;
  const { events, filters } = props;
  const endpointUrl = new Map(props.endpoints.map((endpoint) => [endpoint.id, endpoint.url]));
  const filtered = Boolean(filters.type || filters.order);
  const older = events.length >= PAGE_SIZE ? eventsHref(store.id, { ...filters, before: events[events.length - 1]!.createdAt, beforeId: events[events.length - 1]!.id }) : undefined;
  return (
    <Shell title="Events" member={member} store={store} section="events" csrf={csrf} error={props.error}>
      <TestData path={storePath(store.id, "events")} query={props.ctx.query} testMode={filters.testMode} />
      <p class="muted">
        Every order event of the last 30 days, newest first, whether or not an endpoint received it, with its deliveries to your{" "}
        <a href={withMode(storePath(store.id, "webhooks"), filters.testMode)}>{filters.testMode ? "test webhook endpoints" : "webhook endpoints"}</a>.
      </p>
      <form class="inline card" method="get" action={storePath(store.id, "events")}>
        <ModeField testMode={filters.testMode} />
        <div style="display:grid;gap:4px">
          <label for="filter-type">Type</label>
          <select id="filter-type" name="type">
            <option value="" selected={filters.type === ""}>
              any type
            </option>
            {ORDER_EVENT_TYPES.map((type) => (
              <option value={type} selected={filters.type === type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <label>
          Order
          <input type="text" name="order" value={filters.order} placeholder="order id or SO-…" autoComplete="off" spellcheck={false} />
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
        {(filtered || filters.before) && (
          <a class="button secondary" href={withMode(storePath(store.id, "events"), filters.testMode)}>
            Newest, unfiltered
          </a>
        )}
      </form>
      {props.error ? null : events.length === 0 ? (
        filtered || filters.before ? (
          <Empty title="No matching event">
            <p>No event of the last 30 days matches these filters. Choose any type or clear the order to see the others.</p>
          </Empty>
        ) : (
          <Empty title="No events yet">
            <p>
              Events appear here when orders are created or change status (paid, failed, expired, cancelled, refunded) and when a refund succeeds or fails.{" "}
              {props.endpoints.length === 0 ? (
                <>
                  Add an endpoint on the <a href={withMode(storePath(store.id, "webhooks"), filters.testMode)}>Webhooks</a> page to receive them.
                </>
              ) : (
                <>
                  Your <a href={withMode(storePath(store.id, "webhooks"), filters.testMode)}>endpoints</a> receive the events they take as they happen.
                </>
              )}
            </p>
          </Empty>
        )
      ) : (
        <DataTable head={["Time", "Type", "Order", "Deliveries"]}>
          {events.map((event) => (
            <tr>
              <td>
                <Time iso={event.createdAt} />
              </td>
              <td>
                <code style="white-space:nowrap">{event.type}</code>
              </td>
              <td>
                <OrderLink storeId={store.id} orderId={event.orderId} reference={event.orderReference} testMode={filters.testMode} />
              </td>
              <td>
                {event.deliveries.length === 0 ? (
                  <span class="muted small">None: no endpoint received it</span>
                ) : (
                  <ul style="list-style:none;margin:0;padding:0;display:grid;gap:4px">
                    {event.deliveries.map((delivery) => {
                      const url = endpointUrl.get(delivery.endpointId);
                      return (
                        <li>
                          <a href={deliveryPath(store.id, delivery)} title={url ?? "deleted endpoint"}>
                            <DeliveryBadge status={delivery.status} />
                          </a>{" "}
                          <span class="small muted mono">{url ? hostOf(url) : "(deleted endpoint)"}</span>
                          {delivery.kind !== "event" && <span class="small muted"> ({delivery.kind})</span>}
                        </li>
                      );
                    })}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {older && (
        <p>
          <a class="button secondary" href={older}>
            Older
          </a>
        </p>
      )}
    </Shell>
  );
}

export function eventPages(router: Router, kit: Kit) {
  const { handle, storeScope } = kit;
  router.get("/dashboard/stores/:storeId/events", storeScope, handle(eventsPage));

  async function eventsPage(ctx: DashboardContext) {
    const webhook = webhookClientOr(ctx, kit, "events", "Events");
    if (!webhook) return;
    const storeId = ctx.state.scope.store.id;
    const { testMode } = dashboardMode(ctx);
    const filters: Filters = {
      type: query(ctx.query.type),
      order: query(ctx.query.order),
      before: query(ctx.query.before),
      beforeId: query(ctx.query.before_id).toLowerCase(),
      testMode,
    };
    const problems: string[] = [];
    if (filters.type && !(ORDER_EVENT_TYPES as readonly string[]).includes(filters.type)) problems.push(`Type must be one of ${ORDER_EVENT_TYPES.join(", ")}.`);
    // An order is asked for by its id or by its payment reference (SO-…), as on the Orders page.
    let orderId = filters.order.toLowerCase();
    if (filters.order && !isUuid(filters.order)) {
      const reference = filters.order.trim().toUpperCase();
      const found = isPaymentReference(reference) ? (await kit.clients.order.listOrders({ storeId, search: reference, limit: 1, testMode })).orders[0] : undefined;
      if (found && found.paymentReference === reference) orderId = found.id;
      else problems.push("Order must be an order id or a payment reference (SO-…) of this store.");
    }
    if ((filters.before && !parseRfc3339(filters.before)) || (filters.beforeId && (!filters.before || !isUuid(filters.beforeId)))) {
      problems.push("The page link is not valid: start again from the newest events.");
    }
    if (problems.length > 0) {
      sendPage(ctx, <EventsPage ctx={ctx} events={[]} endpoints={[]} filters={filters} error={problems.join(" ")} />, 400);
      return;
    }
    const [{ events }, { endpoints }] = await Promise.all([
      webhook.listEvents({ storeId, type: filters.type, orderId, before: filters.before, beforeId: filters.beforeId, limit: PAGE_SIZE, withoutBodies: true, testMode }),
      webhook.listEndpoints({ storeId, testMode }),
    ]);
    sendPage(ctx, <EventsPage ctx={ctx} events={events} endpoints={endpoints} filters={filters} />);
  }
}
