// The webhook service's gRPC handlers (endpoints, secrets, the event log, deliveries):
// argument checks, one domain call, the response. The rules are in endpoints.ts,
// events.ts and deliveries.ts (domain.ts wires them); SQL is in db/, which this file
// never touches. Every call is scoped to its store_id: another store's endpoint or
// delivery is NOT_FOUND, exactly like one that does not exist.
import { actorFromHeaders } from "../../common/actor.js";
import { auditQuery, type AuditQuery, type AuditRow } from "../../platform/audit-log.js";
import { requirePermission } from "../../platform/rpc-actor.js";
import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { auditMessage, deliveryMessage, endpointMessage, eventMessage } from "./messages.js";
import type { Deliveries } from "./deliveries.js";
import { requireRate } from "./endpoint-rate.js";
import type { EndpointUpdate, Endpoints } from "./endpoints.js";
import type { Events } from "./events.js";
import { fieldError, optionalDeliveryStatus, optionalEventType, optionalUuid, parseRfc3339, requireStoreId, requireUuid } from "./validation.js";

export interface WebhookRouteDeps {
  endpoints: Pick<Endpoints, "set" | "create" | "list" | "get" | "update" | "remove" | "reveal" | "rotate" | "setHeader" | "removeHeader" | "revealHeaders">;
  events: Pick<Events, "list" | "replay">;
  deliveries: Pick<Deliveries, "list" | "get" | "redeliver" | "sendTest" | "health">;
  audit: { list(storeId: string, query: AuditQuery): Promise<AuditRow[]> };
}

/** The value, or NOT_FOUND with `message` when there is none. */
function found<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new ConnectError(message, Code.NotFound);
  return value;
}

const endpointNotFound = (id: string) => `endpoint ${id} not found`;

/** A request's mode (docs/webhooks.md#test-mode) as the rows keep it: `test_mode` true is livemode false. */
const livemodeOf = (request: { testMode: boolean }) => !request.testMode;
/** An optional `test_mode`: undefined (either mode) when the caller did not give one. */
const givenLivemode = (request: { testMode?: boolean }) => (request.testMode === undefined ? undefined : !request.testMode);

export function createWebhookRoutes({ endpoints, events, deliveries, audit }: WebhookRouteDeps) {
  return (router: ConnectRouter) =>
    router.service(WebhookService, {
      async setEndpoint(request, context) {
        const storeId = requireStoreId(request);
        const actor = requirePermission(context, "developer_settings");
        const { endpoint, secret } = await endpoints.set(storeId, request.url, actor, livemodeOf(request));
        return { endpoint: endpointMessage(endpoint, actor), secret };
      },

      async createEndpoint(request, context) {
        const storeId = requireStoreId(request);
        const input = { url: request.url, description: request.description, events: request.events && { all: request.events.all, types: request.events.types }, livemode: livemodeOf(request) };
        const actor = requirePermission(context, "developer_settings");
        const { endpoint, secret } = await endpoints.create(storeId, input, actor);
        return { endpoint: endpointMessage(endpoint, actor), secret };
      },

      // Reads are every role's; what each sees of an endpoint's URL is messages.ts's endpointUrlFor.
      async listEndpoints(request, context) {
        const rows = await endpoints.list(requireStoreId(request), livemodeOf(request));
        const reader = actorFromHeaders(context.requestHeader);
        return { endpoints: rows.map((row) => endpointMessage(row, reader)) };
      },

      async getEndpoint(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = requireUuid(request.endpointId, "endpoint_id");
        const endpoint = found(await endpoints.get(storeId, endpointId, givenLivemode(request)), endpointNotFound(endpointId));
        return { endpoint: endpointMessage(endpoint, actorFromHeaders(context.requestHeader)) };
      },

      async updateEndpoint(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = requireUuid(request.endpointId, "endpoint_id");
        const update: EndpointUpdate = {};
        if (request.url !== undefined) update.url = request.url;
        if (request.description !== undefined) update.description = request.description;
        if (request.events !== undefined) update.events = { all: request.events.all, types: request.events.types };
        if (request.enabled !== undefined) update.enabled = request.enabled;
        if (request.maxPerSecond !== undefined) update.maxPerSecond = requireRate(request.maxPerSecond);
        if (request.resendFailedSince !== undefined) update.resendFailedSince = parseRfc3339(request.resendFailedSince, "resend_failed_since");
        const actor = requirePermission(context, "developer_settings");
        const endpoint = found(await endpoints.update(storeId, endpointId, update, actor, givenLivemode(request)), endpointNotFound(endpointId));
        return { endpoint: endpointMessage(endpoint, actor) };
      },

      async deleteEndpoint(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = requireUuid(request.endpointId, "endpoint_id");
        const actor = requirePermission(context, "developer_settings");
        return { endpoint: endpointMessage(found(await endpoints.remove(storeId, endpointId, actor), endpointNotFound(endpointId)), actor) };
      },

      async revealSecret(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = requireUuid(request.endpointId, "endpoint_id");
        return { secret: found(await endpoints.reveal(storeId, endpointId, requirePermission(context, "developer_settings")), endpointNotFound(endpointId)) };
      },

      async getWebhookHealth(request) {
        const { failedAttempts, endpoints } = await deliveries.health(requireStoreId(request), livemodeOf(request));
        return {
          failedAttempts24h: failedAttempts,
          endpoints: endpoints.map((row) => ({
            endpointId: row.endpoint_id,
            attempts24h: row.attempts,
            succeeded24h: row.succeeded,
            lastAttemptAt: row.last_at.toISOString(),
            lastResult: row.last_result,
            lastStatusCode: row.last_status_code ?? 0,
          })),
        };
      },

      async setEndpointHeader(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = requireUuid(request.endpointId, "endpoint_id");
        const header = { name: request.header?.name ?? "", value: request.header?.value ?? "" };
        const actor = requirePermission(context, "developer_settings");
        const endpoint = found(await endpoints.setHeader(storeId, endpointId, header, actor), endpointNotFound(endpointId));
        return { endpoint: endpointMessage(endpoint, actor) };
      },

      async removeEndpointHeader(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = requireUuid(request.endpointId, "endpoint_id");
        const actor = requirePermission(context, "developer_settings");
        const endpoint = found(await endpoints.removeHeader(storeId, endpointId, request.name, actor), endpointNotFound(endpointId));
        return { endpoint: endpointMessage(endpoint, actor) };
      },

      async revealEndpointHeaders(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = requireUuid(request.endpointId, "endpoint_id");
        return { headers: found(await endpoints.revealHeaders(storeId, endpointId, requirePermission(context, "developer_settings")), endpointNotFound(endpointId)) };
      },

      async rotateSecret(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = optionalUuid(request.endpointId, "endpoint_id");
        const actor = requirePermission(context, "developer_settings");
        const rotated = found(
          await endpoints.rotate(storeId, endpointId, actor),
          endpointId ? endpointNotFound(endpointId) : `store ${storeId} has no webhook endpoint`,
        );
        return {
          endpoint: endpointMessage(rotated.endpoint, actor),
          secret: rotated.secret,
          previousSecretExpiresAt: rotated.previousExpiresAt.toISOString(),
        };
      },

      async sendTestEvent(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = requireUuid(request.endpointId, "endpoint_id");
        const delivery = found(
          await deliveries.sendTest(storeId, endpointId, requirePermission(context, "developer_settings"), givenLivemode(request)),
          endpointNotFound(endpointId),
        );
        return { delivery: deliveryMessage(delivery, []) };
      },

      async listEvents(request) {
        const storeId = requireStoreId(request);
        const filter = {
          orderId: optionalUuid(request.orderId, "order_id"),
          type: optionalEventType(request.type, "type"),
          before: request.before === "" ? undefined : parseRfc3339(request.before, "before"),
          beforeId: optionalUuid(request.beforeId, "before_id"),
          withoutBodies: request.withoutBodies,
          livemode: livemodeOf(request),
          startingAfter: optionalUuid(request.startingAfter, "starting_after"),
        };
        if (filter.beforeId && !filter.before) throw fieldError("before_id", "must come with before");
        if (filter.startingAfter && filter.before) throw fieldError("starting_after", "must not come with before");
        const page = found(await events.list(storeId, filter, request.limit), `event ${request.startingAfter} not found`);
        return { events: page.events.map(({ event, deliveries }) => eventMessage(event, deliveries)), hasMore: page.hasMore };
      },

      async replayEvents(request, context) {
        const storeId = requireStoreId(request);
        const endpointId = requireUuid(request.endpointId, "endpoint_id");
        const since = parseRfc3339(request.since, "since");
        const queued = await events.replay(storeId, endpointId, since, requirePermission(context, "developer_settings"), givenLivemode(request));
        return { queued: found(queued, endpointNotFound(endpointId)) };
      },

      async listDeliveries(request) {
        const storeId = requireStoreId(request);
        const filter = {
          orderId: optionalUuid(request.orderId, "order_id"),
          endpointId: optionalUuid(request.endpointId, "endpoint_id"),
          status: optionalDeliveryStatus(request.status),
          eventId: optionalUuid(request.eventId, "event_id"),
          livemode: givenLivemode(request),
        };
        const rows = await deliveries.list(storeId, filter, request.limit, !request.withoutAttempts);
        return { deliveries: rows.map(({ delivery, attempts }) => deliveryMessage(delivery, attempts)) };
      },

      async getDelivery(request) {
        const storeId = requireStoreId(request);
        const deliveryId = requireUuid(request.deliveryId, "delivery_id");
        const { delivery, attempts } = found(await deliveries.get(storeId, deliveryId), `delivery ${deliveryId} not found`);
        return { delivery: deliveryMessage(delivery, attempts, { body: true }) };
      },

      async redeliver(request, context) {
        const storeId = requireStoreId(request);
        const deliveryId = requireUuid(request.deliveryId, "delivery_id");
        const row = await deliveries.redeliver(storeId, deliveryId, requirePermission(context, "developer_settings"));
        if (!row) throw new ConnectError(`delivery ${request.deliveryId} not found`, Code.NotFound);
        return { delivery: deliveryMessage(row, []) };
      },

      async listAudit(request, context) {
        const storeId = requireStoreId(request);
        const reader = actorFromHeaders(context.requestHeader);
        return { entries: (await audit.list(storeId, auditQuery(request))).map((row) => auditMessage(row, reader)) };
      },
    });
}
