import type { BusMessage, Disposition } from "../lib/bus.js";
import type { Sql } from "../lib/db.js";
import type { Logger } from "../lib/logger.js";
import { endpointOfStore, recordDelivery } from "./store.js";

/**
 * Turns a bus message into one delivery for the store's enabled endpoint. The message
 * is acked only after the delivery row is committed, so a crash redelivers it, and
 * the unique (endpoint, event) key makes that harmless.
 */
export function createEventConsumer(deps: { sql: Sql; logger: Logger; onRecorded: () => void }) {
  return async (message: BusMessage): Promise<Disposition> => {
    const body = Buffer.from(message.body).toString("utf8");
    let orderId: string | null = null;
    try {
      orderId = (JSON.parse(body) as { data?: { order?: { id?: string } } }).data?.order?.id ?? null;
    } catch {
      deps.logger.error({ eventId: message.id }, "event body is not JSON; dropped");
      return { ack: true };
    }
    const endpoint = await endpointOfStore(deps.sql, message.storeId);
    if (!endpoint || !endpoint.enabled) return { ack: true };
    const recorded = await recordDelivery(deps.sql, {
      endpoint_id: endpoint.id,
      store_id: message.storeId,
      event_id: message.id,
      event_type: message.type,
      order_id: orderId,
      body,
    });
    if (recorded) deps.onRecorded();
    return { ack: true };
  };
}
