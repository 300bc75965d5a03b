// Retention (EVENT_RETENTION, CONTRACT §6): events, settled deliveries (with their
// attempts) and long-deleted endpoints older than the retention are removed by a
// periodic job. Each statement removes at most one batch in its own short transaction,
// and the job loops until a batch comes back short, so a large backlog never holds
// locks or a transaction for long. Rows are taken with SKIP LOCKED: several instances
// may purge at once.
import type { Logger } from "../lib/logger.js";
import type { Pool } from "./store.js";
import type * as sqlStore from "./store.js";

export const PURGE_BATCH = 1_000;
export const PURGE_EVERY_MS = 3_600_000;

export type PurgeStore = Pick<typeof sqlStore, "purgeEvents" | "purgeDeliveries" | "purgeDeletedEndpoints">;

export interface PurgeCounts {
  events: number;
  deliveries: number;
  attempts: number;
  endpoints: number;
  /** Statements run. */
  batches: number;
}

export function createPurge(deps: { sql: Pool; store: PurgeStore; retentionMs: number; batchSize?: number }) {
  const { sql, store } = deps;
  const batch = deps.batchSize ?? PURGE_BATCH;
  return {
    /** Removes everything older than the retention; how much of each. */
    async run(now = new Date()): Promise<PurgeCounts> {
      const before = new Date(now.getTime() - deps.retentionMs);
      const counts: PurgeCounts = { events: 0, deliveries: 0, attempts: 0, endpoints: 0, batches: 0 };
      for (let removed = batch; removed === batch; counts.batches++) {
        removed = await store.purgeEvents(sql, before, batch);
        counts.events += removed;
      }
      for (let removed = batch; removed === batch; counts.batches++) {
        const gone = await store.purgeDeliveries(sql, before, batch);
        removed = gone.deliveries;
        counts.deliveries += gone.deliveries;
        counts.attempts += gone.attempts;
      }
      // After the deliveries: an endpoint goes once its history has.
      for (let removed = batch; removed === batch; counts.batches++) {
        removed = await store.purgeDeletedEndpoints(sql, before, batch);
        counts.endpoints += removed;
      }
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
