import { isUuid } from "../../common/ids.js";
import type { BusMessage } from "../lib/bus.js";
import type { Logger } from "../lib/logger.js";
import type { NewEvent, Pool } from "./store.js";
import type * as sqlStore from "./store.js";

export type ConsumerStore = Pick<typeof sqlStore, "recordEvents">;

/** The order id an event body carries, if any; undefined when the body is not JSON. */
export function orderIdOf(body: string): string | null | undefined {
  try {
    return (JSON.parse(body) as { data?: { order?: { id?: string } } }).data?.order?.id ?? null;
  } catch {
    return undefined;
  }
}

/**
 * Records a batch of bus messages in the event log (every event, with or without
 * endpoints) and, in the same statement, one delivery for each enabled endpoint of the
 * store subscribed to its type. The handler resolves (and the bus acks the batch) only
 * after that commits, so a crash redelivers it; a redelivered message finds its event
 * recorded and adds nothing. A message that cannot be recorded is dropped, not failed:
 * failing would hand its whole batch out again, and it would fail again.
 */
export function createEventConsumer(deps: { sql: Pool; store: ConsumerStore; logger: Logger; onRecorded: () => void }) {
  const { sql, store, logger } = deps;
  return async (messages: BusMessage[]): Promise<void> => {
    const events: NewEvent[] = [];
    for (const message of messages) {
      const body = Buffer.from(message.body).toString("utf8");
      const orderId = orderIdOf(body);
      if (orderId === undefined) {
        logger.error({ eventId: message.id }, "event body is not JSON; dropped");
        continue;
      }
      // Ids the uuid columns would refuse fail the statement, not just this message.
      if (!isUuid(message.id) || !isUuid(message.storeId) || (orderId !== null && !isUuid(orderId))) {
        logger.error({ eventId: message.id, storeId: message.storeId, orderId }, "event ids are not UUIDs; dropped");
        continue;
      }
      events.push({ id: message.id, store_id: message.storeId, type: message.type, order_id: orderId, body });
    }
    if (events.length === 0) return;
    if ((await store.recordEvents(sql, events)) > 0) deps.onRecorded();
  };
}
