import type { BusMessage } from "../lib/bus.js";
import type { Logger } from "../lib/logger.js";
import type { Pool } from "./store.js";
import type * as sqlStore from "./store.js";

export type ConsumerStore = Pick<typeof sqlStore, "endpointOfStore" | "insertDelivery">;

/** The order id an event body carries, if any; undefined when the body is not JSON. */
export function orderIdOf(body: string): string | null | undefined {
  try {
    return (JSON.parse(body) as { data?: { order?: { id?: string } } }).data?.order?.id ?? null;
  } catch {
    return undefined;
  }
}

/**
 * Turns a bus message into one delivery for the store's enabled endpoint. The handler
 * resolves (and the bus acks) only after the delivery row is committed, so a crash
 * redelivers the message, and the unique (endpoint, event) key makes that harmless.
 */
export function createEventConsumer(deps: { sql: Pool; store: ConsumerStore; logger: Logger; onRecorded: () => void }) {
  const { sql, store } = deps;
  return async (message: BusMessage): Promise<void> => {
    const body = Buffer.from(message.body).toString("utf8");
    const orderId = orderIdOf(body);
    if (orderId === undefined) {
      deps.logger.error({ eventId: message.id }, "event body is not JSON; dropped");
      return;
    }
    const endpoint = await store.endpointOfStore(sql, message.storeId);
    if (!endpoint || !endpoint.enabled) return;
    const recorded = await store.insertDelivery(sql, {
      endpoint_id: endpoint.id,
      store_id: message.storeId,
      event_id: message.id,
      event_type: message.type,
      order_id: orderId,
      body,
    });
    if (recorded) deps.onRecorded();
  };
}
