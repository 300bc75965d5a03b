// The event log (docs/webhooks.md#event-log): every order event of a store is kept for EVENT_RETENTION
// whether or not an endpoint existed when it happened (consumer.ts records them), can
// be listed, and can be replayed to an endpoint: a new delivery per event with its
// original webhook-id, so a receiver that dedupes on it sees each event once.
import { auditTarget } from "../../common/audit.js";
import type { Actor } from "../../common/actor.js";
import { auditEntry, insertAudit } from "../../platform/audit-log.js";
import { transaction, type Sql } from "../../platform/db.js";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "../../platform/logger.js";
import { listLimit } from "./deliveries.js";
import { insertReplayDeliveries, type DeliveryRow } from "./db/deliveries.js";
import { lockEndpoint } from "./db/endpoints.js";
import { eventOfStore, listEvents, type EventFilter, type EventRow } from "./db/events.js";
import { ofMode } from "./endpoints.js";

export function createEvents(deps: {
  sql: Sql;
  logger: Logger;
  /** How long events are kept: older ones are neither listed nor replayed, even before the purge removes them. */
  retentionMs: number;
  /** Called when deliveries were queued (wakes the worker). */
  onQueued: () => void;
}) {
  const { sql, logger } = deps;
  const retainedSince = () => new Date(Date.now() - deps.retentionMs);
  return {
    /**
     * The store's kept events of the filter's mode, newest first, each with its
     * deliveries, and whether more match. `startingAfter`, an event's id, pages on right
     * after it; undefined when the store has no such kept event of that mode.
     */
    async list(
      storeId: string,
      filter: Omit<EventFilter, "notBefore"> & { startingAfter?: string },
      limit: number,
    ): Promise<{ events: { event: EventRow; deliveries: DeliveryRow[] }[]; hasMore: boolean } | undefined> {
      const { startingAfter, ...rest } = filter;
      const notBefore = retainedSince();
      let page: EventFilter = { ...rest, notBefore };
      if (startingAfter) {
        const after = await eventOfStore(sql, storeId, filter.livemode ?? true, startingAfter, notBefore);
        if (!after) return undefined;
        page = { ...page, before: after.created_at, beforeId: after.id };
      }
      const size = listLimit(limit);
      // One more than the page: whether there is a next one, without a count.
      const rows = await listEvents(sql, storeId, page, size + 1);
      return { events: rows.slice(0, size), hasMore: rows.length > size };
    },

    /**
     * Queues every kept event since `since` of the types the endpoint receives to it
     * again (events of its mode only); how many. Undefined when the store has no such
     * endpoint (of the mode, when one is given); FAILED_PRECONDITION when it is disabled
     * (nothing would be sent).
     */
    async replay(storeId: string, endpointId: string, since: Date, actor: Actor, livemode?: boolean): Promise<number | undefined> {
      const queued = await transaction(sql, async (tx) => {
        const endpoint = await lockEndpoint(tx, storeId, endpointId);
        if (!endpoint || !ofMode(endpoint, livemode)) return undefined;
        if (!endpoint.enabled) throw new ConnectError(`endpoint ${endpointId} is disabled: enable it before replaying events`, Code.FailedPrecondition);
        const from = new Date(Math.max(since.getTime(), retainedSince().getTime()));
        await insertAudit(tx, [auditEntry(storeId, actor, "events.replayed", auditTarget("endpoint", endpointId), { label: endpoint.url })]);
        return insertReplayDeliveries(tx, endpoint, from);
      });
      if (queued === undefined) return undefined;
      logger.info({ storeId, endpointId, since: since.toISOString(), queued }, "webhook events replayed");
      if (queued > 0) deps.onQueued();
      return queued;
    },
  };
}

export type Events = ReturnType<typeof createEvents>;
