// The webhook service's gRPC handlers (endpoint management and delivery records):
// argument checks, one domain call, the response. The rules are in endpoints.ts and
// deliveries.ts (domain.ts wires them); SQL is in store.ts, which this file never touches.
import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { WebhookService } from "../../gen/webhook/v1/webhook_pb.js";
import { isUuid } from "../../common/ids.js";
import { deliveryMessage, endpointMessage } from "./convert.js";
import type { Deliveries } from "./deliveries.js";
import type { Endpoints } from "./endpoints.js";

export interface WebhookRouteDeps {
  endpoints: Pick<Endpoints, "set" | "rotate">;
  deliveries: Pick<Deliveries, "list" | "redeliver">;
}

/** The id, lower-cased; INVALID_ARGUMENT naming `field` when it is not a UUID. */
function requireUuid(value: string, field: string): string {
  if (!isUuid(value)) throw new ConnectError(`${field} must be a UUID`, Code.InvalidArgument);
  return value.toLowerCase();
}

export function createWebhookRoutes({ endpoints, deliveries }: WebhookRouteDeps) {
  return (router: ConnectRouter) =>
    router.service(WebhookService, {
      async setEndpoint(request) {
        const { endpoint, secret } = await endpoints.set(requireUuid(request.storeId, "store_id"), request.url);
        return { endpoint: endpointMessage(endpoint), secret };
      },

      async rotateSecret(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const rotated = await endpoints.rotate(storeId);
        if (!rotated) throw new ConnectError(`store ${storeId} has no webhook endpoint`, Code.NotFound);
        return {
          endpoint: endpointMessage(rotated.endpoint),
          secret: rotated.secret,
          previousSecretExpiresAt: rotated.previousExpiresAt.toISOString(),
        };
      },

      async listDeliveries(request) {
        const storeId = requireUuid(request.storeId, "store_id");
        const orderId = request.orderId ? requireUuid(request.orderId, "order_id") : undefined;
        const rows = await deliveries.list(storeId, orderId, request.limit);
        return { deliveries: rows.map(({ delivery, attempts }) => deliveryMessage(delivery, attempts)) };
      },

      async redeliver(request) {
        const row = await deliveries.redeliver(requireUuid(request.storeId, "store_id"), requireUuid(request.deliveryId, "delivery_id"));
        if (!row) throw new ConnectError(`delivery ${request.deliveryId} not found`, Code.NotFound);
        return { delivery: deliveryMessage(row, []) };
      },
    });
}
