// GET /v1/events (docs/api.md#listing-events, docs/webhooks.md#events-api): the store's
// kept events of the key's mode, newest first, so a client that missed webhooks catches
// up. Each item's `data` is the `data` of the body the webhook carried: the webhook
// service keeps that body byte for byte, and a body made by JSON.stringify parses and
// serializes back to the same bytes.
import type { RouterInstance as Router } from "@koa/router";
import { Code, ConnectError } from "@connectrpc/connect";
import type { EventItemJson, EventPage } from "../../common/api-shapes.js";
import { ORDER_EVENT_TYPES } from "../../common/order-status.js";
import type { ServiceClients } from "../clients.js";
import type { KeyedGuards } from "../guards.js";
import { ok, type GatewayContext } from "../context.js";
import { EVENT_PAGE_LIMIT, queryReader } from "../query.js";

export function eventRoutes(router: Router, guards: KeyedGuards, clients: ServiceClients) {
  router.get("/v1/events", ...guards.for("GET /v1/events"), listEvents);

  async function listEvents(ctx: GatewayContext) {
    const query = queryReader(ctx.query);
    const limit = query.int("limit", EVENT_PAGE_LIMIT);
    const type = query.oneOf("type", ORDER_EVENT_TYPES);
    const orderId = query.uuid("order_id");
    const startingAfter = query.uuid("starting_after");
    query.check();
    // A gateway started without the webhook service has no event log to read.
    if (!clients.webhook) throw new ConnectError("the webhook service is not configured", Code.Unavailable);
    const principal = ctx.state.principal!;
    const page = await clients.webhook.listEvents({
      storeId: principal.storeId,
      testMode: !principal.livemode,
      type: type ?? "",
      orderId: orderId ?? "",
      startingAfter: startingAfter ?? "",
      limit,
    });
    const items = page.events.map(
      (event): EventItemJson => ({
        id: event.id,
        type: event.type as EventItemJson["type"],
        created_at: event.createdAt,
        data: (JSON.parse(event.body) as { data: EventItemJson["data"] }).data,
      }),
    );
    ok(ctx, { items, has_more: page.hasMore } satisfies EventPage);
  }
}
