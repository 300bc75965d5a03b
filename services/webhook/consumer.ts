import type { BusMessage } from "../lib/bus.js";
import type { Logger } from "../lib/logger.js";
import type { Pool } from "./store.js";
import type * as sqlStore from "./store.js";

export type ConsumerStore = Pick<typeof sqlStore, "transaction" | "insertEvent" | "insertEventDeliveries">;

/** The order id an event body carries, if any; undefined when the body is not JSON. */
export function orderIdOf(body: string): string | null | undefined {
  try {
    return (JSON.parse(body) as { data?: { order?: { id?: string } } }).data?.order?.id ?? null;
  } catch {
    return undefined;
  }
}

/**
 * Records a bus message in the event log (every event, with or without endpoints) and,
 * in the same transaction, one delivery for each enabled endpoint of the store
 * subscribed to its type. The handler resolves (and the bus acks) only after that
 * commits, so a crash redelivers the message; a redelivered message finds its event
 * recorded and adds nothing.
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
    const event = { id: message.id, store_id: message.storeId, type: message.type, order_id: orderId, body };
    const queued = await store.transaction(sql, async (tx) => {
      if (!(await store.insertEvent(tx, event))) return 0;
      return store.insertEventDeliveries(tx, event);
    });
    if (queued > 0) deps.onRecorded();
  };
}
