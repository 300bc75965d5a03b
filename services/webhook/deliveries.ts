// Delivery records (CONTRACT §6, §8): listing a store's deliveries with their attempts,
// and sending one again (a new attempt with the same webhook-id).
import type { AttemptRow, DeliveryRow, Pool } from "./store.js";
import type * as sqlStore from "./store.js";

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 500;

/** The page size a listing asks for: unset or not positive → the default, at most the maximum. */
export function listLimit(requested: number): number {
  return requested > 0 ? Math.min(requested, MAX_LIST_LIMIT) : DEFAULT_LIST_LIMIT;
}

export type DeliveriesStore = Pick<typeof sqlStore, "listDeliveries" | "requeue">;

export function createDeliveries({ sql, store, onRequeued }: { sql: Pool; store: DeliveriesStore; onRequeued: () => void }) {
  return {
    /** The store's newest deliveries (of one order, if given), each with its attempts. */
    async list(storeId: string, orderId: string | undefined, limit: number): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }[]> {
      return store.listDeliveries(sql, storeId, orderId, listLimit(limit));
    },

    /** Queues the delivery again now; undefined when the store has no such delivery or it is being sent. */
    async redeliver(storeId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
      const row = await store.requeue(sql, storeId, deliveryId);
      if (row) onRequeued();
      return row;
    },
  };
}

export type Deliveries = ReturnType<typeof createDeliveries>;
