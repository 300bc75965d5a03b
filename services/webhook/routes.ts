import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { WebhookService, type DeliverySchema } from "../../gen/webhook/v1/webhook_pb.js";
import { isUuid } from "../../common/ids.js";
import type { Sql } from "../lib/db.js";
import type { Logger } from "../lib/logger.js";
import type { SecretBox } from "./secret-box.js";
import { generateSecret } from "./signing.js";
import * as store from "./store.js";

function requireUuid(value: string, field: string): string {
  if (!isUuid(value)) throw new ConnectError(`${field} must be a UUID`, Code.InvalidArgument);
  return value.toLowerCase();
}

function endpointMessage(row: store.EndpointRow) {
  return { id: row.id, storeId: row.store_id, url: row.url, enabled: row.enabled, createdAt: row.created_at.toISOString() };
}

function deliveryMessage(delivery: store.DeliveryRow, attempts: store.AttemptRow[]): MessageInitShape<typeof DeliverySchema> {
  return {
    id: delivery.id,
    endpointId: delivery.endpoint_id,
    eventId: delivery.event_id,
    eventType: delivery.event_type,
    orderId: delivery.order_id ?? "",
    status: delivery.status,
    attemptsMade: delivery.attempts,
    nextAttemptAt: delivery.status === "pending" ? delivery.next_attempt_at.toISOString() : "",
    createdAt: delivery.created_at.toISOString(),
    attempts: attempts.map((a) => ({
      number: a.number,
      startedAt: a.started_at.toISOString(),
      statusCode: a.status_code ?? 0,
      latencyMs: a.latency_ms,
      result: a.result,
      error: a.error ?? "",
      responseExcerpt: a.response_excerpt ?? "",
    })),
  };
}

/** The webhook service's gRPC handlers (endpoint management and delivery records). */
export function createWebhookRoutes(deps: {
  sql: Sql;
  logger: Logger;
  box: SecretBox;
  allowHttp: boolean;
  rotationOverlapMs: number;
  onRequeued: () => void;
}) {
  const { sql, logger, box } = deps;
  return (router: ConnectRouter) =>
    router.service(WebhookService, {
      async setEndpoint(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        let url: URL;
        try {
          url = new URL(request.url);
        } catch {
          throw new ConnectError("url must be an absolute URL", Code.InvalidArgument);
        }
        if (url.protocol !== "https:" && !(url.protocol === "http:" && deps.allowHttp)) {
          throw new ConnectError("url must be https:// (http:// only with WEBHOOK_ALLOW_HTTP)", Code.InvalidArgument);
        }
        if (url.username || url.password) throw new ConnectError("url must not carry credentials", Code.InvalidArgument);
        if (request.url.length > 2048) throw new ConnectError("url must be at most 2048 characters", Code.InvalidArgument);
        const secret = generateSecret();
        const endpoint = await store.setEndpoint(sql, storeId, url.toString(), box.seal(secret));
        logger.info({ storeId, endpointId: endpoint.id, host: url.host }, "webhook endpoint set");
        return { endpoint: endpointMessage(endpoint), secret };
      },

      async rotateSecret(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const secret = generateSecret();
        const rotated = await store.rotateSecret(sql, storeId, box.seal(secret), deps.rotationOverlapMs);
        if (!rotated) throw new ConnectError(`store ${storeId} has no webhook endpoint`, Code.NotFound);
        logger.info({ storeId, endpointId: rotated.endpoint.id }, "webhook secret rotated");
        return {
          endpoint: endpointMessage(rotated.endpoint),
          secret,
          previousSecretExpiresAt: rotated.previousExpiresAt.toISOString(),
        };
      },

      async listDeliveries(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const orderId = request.orderId ? requireUuid(request.orderId, "order_id") : undefined;
        const limit = request.limit > 0 ? Math.min(request.limit, 500) : 100;
        const rows = await store.listDeliveries(sql, storeId, orderId, limit);
        return { deliveries: rows.map(({ delivery, attempts }) => deliveryMessage(delivery, attempts)) };
      },

      async redeliver(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const row = await store.requeue(sql, storeId, requireUuid(request.deliveryId, "delivery_id"));
        if (!row) throw new ConnectError(`delivery ${request.deliveryId} not found`, Code.NotFound);
        deps.onRequeued();
        return { delivery: deliveryMessage(row, []) };
      },
    });
}
