// Delivery records (docs/webhooks.md#recording-attempts, docs/cli.md): listing a store's deliveries with their attempts,
// one delivery with its body, sending one again (a new attempt with the same
// webhook-id), and test deliveries.
import type { TestEventPayload } from "../../common/api-shapes.js";
import { auditTarget } from "../../common/audit.js";
import { TEST_EVENT_TYPE } from "../../common/order-status.js";
import type { Actor } from "../../common/actor.js";
import { auditEntry, insertAudit } from "../../platform/audit-log.js";
import { transaction, type Sql } from "../../platform/db.js";
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "../../platform/logger.js";
import {
  endpointHealth,
  getDelivery,
  insertDelivery,
  listDeliveries,
  requeue,
  type AttemptRow,
  type DeliveryFilter,
  type DeliveryRow,
  type EndpointHealthRow,
} from "./db/deliveries.js";
import { lockEndpoint } from "./db/endpoints.js";
import { ofMode } from "./endpoints.js";
import { HEALTH_WINDOW_MS } from "./health-window.js";

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 500;

/** The page size a listing asks for: unset or not positive → the default, at most the maximum. */
export function listLimit(requested: number): number {
  return requested > 0 ? Math.min(requested, MAX_LIST_LIMIT) : DEFAULT_LIST_LIMIT;
}

/** The body of a test delivery, in the key order docs/webhooks.md#test-events documents; `livemode` is the endpoint's. */
export function testEventBody(storeId: string, endpointId: string, livemode: boolean, now = new Date()): string {
  return JSON.stringify({ type: TEST_EVENT_TYPE, timestamp: now.toISOString(), data: { store_id: storeId, endpoint_id: endpointId, livemode } } satisfies TestEventPayload);
}

export function createDeliveries({ sql, logger, onRequeued }: { sql: Sql; logger: Logger; onRequeued: () => void }) {
  return {
    /** The store's newest deliveries matching the filter, each with its attempts unless `withAttempts` is false. */
    async list(storeId: string, filter: DeliveryFilter, limit: number, withAttempts = true): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }[]> {
      return listDeliveries(sql, storeId, filter, listLimit(limit), withAttempts);
    },

    /** Each endpoint's of the mode (live unless false): attempts and successes in the last 24 h, its latest attempt; their failed attempts in that time. */
    async health(storeId: string, livemode = true, now = new Date()): Promise<{ failedAttempts: number; endpoints: EndpointHealthRow[] }> {
      const endpoints = await endpointHealth(sql, storeId, new Date(now.getTime() - HEALTH_WINDOW_MS), livemode);
      return { failedAttempts: endpoints.reduce((sum, row) => sum + row.attempts - row.succeeded, 0), endpoints };
    },

    /** One delivery with its attempts; undefined when the store has no such delivery. */
    async get(storeId: string, deliveryId: string): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] } | undefined> {
      return getDelivery(sql, storeId, deliveryId);
    },

    /** Queues the delivery again now; undefined when the store has no such delivery (of a live endpoint) or it is being sent. */
    async redeliver(storeId: string, deliveryId: string, actor: Actor): Promise<DeliveryRow | undefined> {
      const row = await transaction(sql, async (tx) => {
        const requeued = await requeue(tx, storeId, deliveryId);
        if (requeued) await insertAudit(tx, [auditEntry(storeId, actor, "delivery.resent", auditTarget("delivery", deliveryId), { label: requeued.event_type })]);
        return requeued;
      });
      if (row) onRequeued();
      return row;
    },

    /**
     * Queues a signed `webhook.test` event with a fresh id to the endpoint. Undefined when
     * the store has no such endpoint (of the mode, when one is given); FAILED_PRECONDITION
     * when it is disabled.
     */
    async sendTest(storeId: string, endpointId: string, actor: Actor, livemode?: boolean): Promise<DeliveryRow | undefined> {
      const delivery = await transaction(sql, async (tx) => {
        const endpoint = await lockEndpoint(tx, storeId, endpointId);
        if (!endpoint || !ofMode(endpoint, livemode)) return undefined;
        if (!endpoint.enabled) throw new ConnectError(`endpoint ${endpointId} is disabled: enable it to send a test event`, Code.FailedPrecondition);
        await insertAudit(tx, [auditEntry(storeId, actor, "endpoint.test_sent", auditTarget("endpoint", endpointId), { label: endpoint.url })]);
        return insertDelivery(tx, {
          endpoint_id: endpoint.id,
          store_id: storeId,
          event_id: randomUUID(),
          event_type: TEST_EVENT_TYPE,
          order_id: null,
          body: testEventBody(storeId, endpoint.id, endpoint.livemode),
          kind: "test",
        });
      });
      if (!delivery) return undefined;
      logger.info({ storeId, endpointId, deliveryId: delivery.id, eventId: delivery.event_id }, "webhook test event queued");
      onRequeued();
      return delivery;
    },
  };
}

export type Deliveries = ReturnType<typeof createDeliveries>;
