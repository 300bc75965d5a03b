// Retention (EVENT_RETENTION, docs/webhooks.md#event-log): events, settled deliveries (with their
// attempts) and long-deleted endpoints older than the retention are removed by a
// periodic job. Each statement removes at most one batch in its own short transaction,
// and the job loops until a batch comes back short, so a large backlog never holds
// locks or a transaction for long. Rows are taken with SKIP LOCKED: several instances
// may purge at once.
import type { Logger } from "../../platform/logger.js";
import { HEALTH_KEPT_MS } from "./health-window.js";
import type { Sql } from "../../platform/db.js";
import { purgeAttemptHours, purgeDeletedEndpoints, purgeDeliveries, purgeEvents } from "./db/purge.js";

/**
 * Rows per statement. At a million orders a day's events are ~28k events, deliveries
 * and attempts each: 1,000 a statement kept each one's delete (and its WAL flush) long
 * enough to show in the deliveries flowing meanwhile; 250 takes the purge longer (it
 * runs hourly) and leaves them be.
 */
export const PURGE_BATCH = 250;
export const PURGE_EVERY_MS = 3_600_000;

export interface PurgeCounts {
  events: number;
  deliveries: number;
  attempts: number;
  endpoints: number;
  /** Statements run. */
  batches: number;
}

export function createPurge(deps: { sql: Sql; retentionMs: number; batchSize?: number }) {
  const { sql } = deps;
  const batch = deps.batchSize ?? PURGE_BATCH;
  return {
    /** Removes everything older than the retention; how much of each. */
    async run(now = new Date()): Promise<PurgeCounts> {
      const before = new Date(now.getTime() - deps.retentionMs);
      const counts: PurgeCounts = { events: 0, deliveries: 0, attempts: 0, endpoints: 0, batches: 0 };
      /**
       * Runs `step` until a batch comes back short. After each full batch it rests as
       * long as the batch took: a backlog of a million events then takes the database
       * half the time, and the deliveries flowing meanwhile get the other half.
       */
      const drain = async (step: () => Promise<number>) => {
        for (;;) {
          const started = performance.now();
          const removed = await step();
          counts.batches++;
          if (removed < batch) return;
          await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
        }
      };
      await drain(async () => {
        const removed = await purgeEvents(sql, before, batch);
        counts.events += removed;
        return removed;
      });
      await drain(async () => {
        const gone = await purgeDeliveries(sql, before, batch);
        counts.deliveries += gone.deliveries;
        counts.attempts += gone.attempts;
        return gone.deliveries;
      });
      // After the deliveries: an endpoint goes once its history has.
      await drain(async () => {
        const removed = await purgeDeletedEndpoints(sql, before, batch);
        counts.endpoints += removed;
        return removed;
      });
      // Endpoint health's hours, kept only a day past their window whatever the retention.
      const hoursBefore = new Date(now.getTime() - HEALTH_KEPT_MS);
      await drain(() => purgeAttemptHours(sql, hoursBefore, batch));
      return counts;
    },
  };
}

export type Purge = ReturnType<typeof createPurge>;

/** Runs the purge now and then every `everyMs` (one run at a time), logging what each removed. */
export function startPurgeJob(deps: { purge: Pick<Purge, "run">; logger: Logger; everyMs?: number }) {
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= (async () => {
      const started = Date.now();
      try {
        const counts = await deps.purge.run();
        deps.logger.info({ ...counts, ms: Date.now() - started }, "event log purged");
      } catch (error) {
        deps.logger.warn({ err: (error as Error).message }, "event log purge failed; will retry at the next run");
      }
    })().finally(() => (running = undefined));
  };
  const timer = setInterval(tick, deps.everyMs ?? PURGE_EVERY_MS);
  timer.unref();
  tick();
  return {
    /** Stops the schedule and waits for a run under way. */
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
