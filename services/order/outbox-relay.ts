import { SpanKind } from "@opentelemetry/api";
import type { BusEvent, EventBus } from "../../platform/bus.js";
import type { Logger } from "../../platform/logger.js";
import { contextFromTraceparent, inSpan, traceCarrier, tracerFor, tracingEnabled } from "../../platform/tracing.js";
import { type Sql, transaction } from "../../platform/db.js";
import { deletePublishedEvents, lockUnsentEvents, markEventsSent, outboxBacklog, type OutboxRow } from "./db/outbox.js";
import { startRelayLoop } from "./relay-loop.js";

/**
 * How long a published event stays in the outbox: long enough for an operator to look
 * at what just went out, short enough that the table stays the size of an hour's
 * traffic. The event log (webhook service) is the record of what was sent.
 */
export const OUTBOX_KEEP_PUBLISHED_SECONDS = 3_600;
/** Deleted in statements of this many rows, so no one statement holds many locks or long. */
const PURGE_BATCH = 5_000;

/**
 * Moves outbox rows to the bus. A batch is locked with SKIP LOCKED, published (each
 * publish waits for the bus to have it), then marked sent in the same transaction; if
 * the bus is down the transaction rolls back and the rows wait. A crash between
 * publish and commit re-publishes with the same message id, which JetStream drops.
 * Runs on a kick after each commit and on a slow timer, so several instances are safe.
 * With tracing on, each publish is a PRODUCER span in the trace of the change that
 * wrote the row (its `traceparent` column), and the message carries that span's
 * context in its headers for the consumer to continue. Once a minute (`purgeEveryMs`)
 * it deletes the rows published over an hour ago, in batches.
 */
export function startOutboxRelay(deps: {
  sql: Sql;
  bus: EventBus;
  logger: Logger;
  pollMs?: number;
  batch?: number;
  /** A batch not done by then is given up and tried again (default 15 s). */
  batchDeadlineMs?: number;
  /** How often published rows past OUTBOX_KEEP_PUBLISHED_SECONDS are deleted (default 60 s). */
  purgeEveryMs?: number;
  keepPublishedSeconds?: number;
}) {
  const { sql, bus, logger } = deps;
  const batch = deps.batch ?? 100;
  let stopped = false;

  function publish(row: OutboxRow): Promise<void> {
    const event: BusEvent = { id: row.id, storeId: row.store_id, type: row.event_type, body: Buffer.from(JSON.stringify(row.payload), "utf8") };
    if (!tracingEnabled()) return bus.publish(event);
    const attributes = { "messaging.operation.type": "send", "messaging.message.id": row.id, "messaging.destination.name": row.event_type };
    return inSpan(tracerFor("order"), `publish ${row.event_type}`, { kind: SpanKind.PRODUCER, attributes }, contextFromTraceparent(row.traceparent), () =>
      bus.publish({ ...event, trace: traceCarrier() }),
    );
  }

  async function drainOnce(): Promise<number> {
    return transaction(sql, async (tx) => {
      const rows = await lockUnsentEvents(tx, batch);
      // Published together: events carry no order guarantee, and each publish still
      // waits for the bus to confirm it before the batch is marked sent.
      await Promise.all(rows.map(publish));
      await markEventsSent(tx, rows.map((row) => row.id));
      return rows.length;
    });
  }

  async function purgePublished() {
    const keep = deps.keepPublishedSeconds ?? OUTBOX_KEEP_PUBLISHED_SECONDS;
    try {
      let deleted = 0;
      for (let batchDeleted = PURGE_BATCH; batchDeleted === PURGE_BATCH && !stopped; deleted += batchDeleted) {
        batchDeleted = await deletePublishedEvents(sql, keep, PURGE_BATCH);
      }
      if (deleted > 0) logger.info({ deleted, keptSeconds: keep }, "deleted published outbox events");
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "outbox purge failed; will retry");
    }
  }

  const loop = startRelayLoop({
    logger,
    drain: drainOnce,
    batch,
    pollMs: deps.pollMs ?? 1_000,
    batchDeadlineMs: deps.batchDeadlineMs,
    failureMessage: "outbox relay could not publish; rows wait",
    purge: purgePublished,
    purgeEveryMs: deps.purgeEveryMs,
  });

  return {
    kick: loop.kick,
    /** Oldest unsent event's age in seconds and how many wait (for metrics). */
    async backlog(): Promise<{ count: number; oldestSeconds: number }> {
      return outboxBacklog(sql);
    },
    async stop() {
      stopped = true;
      await loop.stop();
    },
  };
}
