import type { EventBus } from "../lib/bus.js";
import type { Logger } from "../lib/logger.js";
import type { Pool } from "./store.js";
import * as sqlStore from "./store.js";

export type OutboxStore = Pick<typeof sqlStore, "transaction" | "lockUnsentEvents" | "markEventsSent" | "outboxBacklog">;

/**
 * Moves outbox rows to the bus. A batch is locked with SKIP LOCKED, published (each
 * publish waits for the bus to have it), then marked sent in the same transaction; if
 * the bus is down the transaction rolls back and the rows wait. A crash between
 * publish and commit re-publishes with the same message id, which JetStream drops.
 * Runs on a kick after each commit and on a slow timer, so several instances are safe.
 */
export function startOutboxRelay(deps: {
  sql: Pool;
  bus: EventBus;
  logger: Logger;
  pollMs?: number;
  batch?: number;
  store?: OutboxStore;
  /** A batch not done by then is given up and tried again (default 15 s). */
  batchDeadlineMs?: number;
}) {
  const { sql, bus, logger } = deps;
  const store = deps.store ?? sqlStore;
  const batch = deps.batch ?? 100;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let backoffMs = 0;
  let retrying = false;
  let timer: NodeJS.Timeout | undefined;

  async function drainOnce(): Promise<number> {
    return store.transaction(sql, async (tx) => {
      const rows = await store.lockUnsentEvents(tx, batch);
      // Published together: events carry no order guarantee, and each publish still
      // waits for the bus to confirm it before the batch is marked sent.
      await Promise.all(
        rows.map((row) =>
          bus.publish({
            id: row.id,
            storeId: row.store_id,
            type: row.event_type,
            body: Buffer.from(JSON.stringify(row.payload), "utf8"),
          }),
        ),
      );
      await store.markEventsSent(tx, rows.map((row) => row.id));
      return rows.length;
    });
  }

  /**
   * One batch, given up after its deadline: a query whose connection the database
   * dropped can leave its promise unsettled, and one such batch must not stop the relay
   * for good. The rows it locked are free again once that connection is gone, and a
   * re-publish is dropped by JetStream by message id.
   */
  function drainWithin(): Promise<number> {
    const deadlineMs = deps.batchDeadlineMs ?? 15_000;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`an outbox batch took over ${deadlineMs} ms; given up`)), deadlineMs);
    });
    const work = drainOnce();
    // Settling after the deadline is no news: the next run has taken over.
    work.catch(() => {});
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  }

  async function run() {
    do {
      again = false;
      try {
        while (!stopped && (await drainWithin()) === batch);
        backoffMs = 0;
      } catch (error) {
        backoffMs = Math.min(10_000, Math.max(250, backoffMs * 2));
        logger.warn({ err: (error as Error).message, retryInMs: backoffMs }, "outbox relay could not publish; rows wait");
        retrying = true;
        schedule(backoffMs);
        return;
      }
    } while (again && !stopped);
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (retrying) return; // a retry is already scheduled
    running = run().finally(() => (running = undefined));
  }

  function schedule(ms: number) {
    clearTimeout(timer);
    timer = setTimeout(() => {
      retrying = false;
      kick();
    }, ms);
    timer.unref();
  }

  const poll = setInterval(kick, deps.pollMs ?? 1_000);
  poll.unref();
  kick();

  return {
    kick,
    /** Oldest unsent event's age in seconds and how many wait (for metrics). */
    async backlog(): Promise<{ count: number; oldestSeconds: number }> {
      return store.outboxBacklog(sql);
    },
    async stop() {
      stopped = true;
      clearInterval(poll);
      clearTimeout(timer);
      await running;
    },
  };
}
