import type { Sql } from "../lib/db.js";
import type { EventBus } from "../lib/bus.js";
import type { Logger } from "../lib/logger.js";

interface OutboxRow {
  id: string;
  store_id: string;
  event_type: string;
  payload: unknown;
  created_at: Date;
}

/**
 * Moves outbox rows to the bus. A batch is locked with SKIP LOCKED, published (each
 * publish waits for the bus to have it), then marked sent in the same transaction; if
 * the bus is down the transaction rolls back and the rows wait. A crash between
 * publish and commit re-publishes with the same message id, which JetStream drops.
 * Runs on a kick after each commit and on a slow timer, so several instances are safe.
 */
export function startOutboxRelay(deps: { sql: Sql; bus: EventBus; logger: Logger; pollMs?: number; batch?: number }) {
  const { sql, bus, logger } = deps;
  const batch = deps.batch ?? 100;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let backoffMs = 0;
  let retrying = false;
  let timer: NodeJS.Timeout | undefined;

  async function drainOnce(): Promise<number> {
    return sql.begin(async (tx) => {
      // Losing this commit in a crash only re-publishes the batch, which JetStream
      // drops by message id: no need to wait for the WAL flush.
      await tx`set local synchronous_commit = off`;
      const rows = await tx<OutboxRow[]>`
        select id, store_id, event_type, payload, created_at from outbox
        where published_at is null
        order by created_at
        limit ${batch}
        for update skip locked`;
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
      if (rows.length > 0) {
        await tx`update outbox set published_at = clock_timestamp() where id = any(${rows.map((row) => row.id)}::uuid[])`;
      }
      return rows.length;
    });
  }

  async function run() {
    do {
      again = false;
      try {
        while (!stopped && (await drainOnce()) === batch);
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
      const [row] = await sql<{ count: number; oldest: number | null }[]>`
        select count(*)::int as count, extract(epoch from clock_timestamp() - min(created_at))::float8 as oldest
        from outbox where published_at is null`;
      return { count: row!.count, oldestSeconds: row!.oldest ?? 0 };
    },
    async stop() {
      stopped = true;
      clearInterval(poll);
      clearTimeout(timer);
      await running;
    },
  };
}
