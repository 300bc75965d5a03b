// Hands the order service's stock changes (db/stock-changes.ts) to the catalog: the
// transactional outbox with ApplyStockChanges as its destination (docs/orders.md#stock).
import type { Client } from "@connectrpc/connect";
import type { CatalogService } from "../../gen/catalog/v1/catalog_pb.js";
import type { Logger } from "../../platform/logger.js";
import { type Sql, transaction } from "../../platform/db.js";
import { deleteSentStockChanges, lockUnsentStockChanges, markStockChangesSent, stockChangeBacklog } from "./db/stock-changes.js";
import { startRelayLoop } from "./relay-loop.js";
import { stockChangeMessage } from "./stock.js";

/** How long a sent change stays in its table: an hour, for an operator to look at. */
export const STOCK_CHANGES_KEEP_SENT_SECONDS = 3_600;
const PURGE_BATCH = 5_000;

/**
 * Sends unsent stock changes to the catalog in batches, in writing order: a batch is
 * locked with SKIP LOCKED, sent in one ApplyStockChanges call, and marked sent in the
 * same transaction; if the catalog is away the transaction rolls back and the changes
 * wait (backing off). A crash between the call and the commit sends the batch again,
 * and the catalog applies each (order, action) once. An order's later change waits
 * while an earlier one is unsent, so several instances never reorder one order's
 * changes. Runs on a kick after each commit and every `pollMs` (2 s): a release
 * reaches the catalog within seconds of the change that wrote it.
 */
export function startStockRelay(deps: {
  sql: Sql;
  catalog: Pick<Client<typeof CatalogService>, "applyStockChanges">;
  logger: Logger;
  pollMs?: number;
  batch?: number;
  batchDeadlineMs?: number;
  purgeEveryMs?: number;
  keepSentSeconds?: number;
}) {
  const { sql, catalog, logger } = deps;
  const batch = deps.batch ?? 200;
  let stopped = false;

  async function drainOnce(): Promise<number> {
    return transaction(sql, async (tx) => {
      const rows = await lockUnsentStockChanges(tx, batch);
      if (rows.length === 0) return 0;
      await catalog.applyStockChanges({ changes: rows.map(stockChangeMessage) });
      await markStockChangesSent(tx, rows.map((row) => row.id));
      logger.debug({ changes: rows.length }, "stock changes sent to the catalog");
      return rows.length;
    });
  }

  async function purgeSent() {
    const keep = deps.keepSentSeconds ?? STOCK_CHANGES_KEEP_SENT_SECONDS;
    try {
      for (let deleted = PURGE_BATCH; deleted === PURGE_BATCH && !stopped; ) deleted = await deleteSentStockChanges(sql, keep, PURGE_BATCH);
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "stock change purge failed; will retry");
    }
  }

  const loop = startRelayLoop({
    logger,
    drain: drainOnce,
    batch,
    // An order's later change is left out of a batch its earlier one is in: whatever
    // was sent, look again at once.
    more: (taken) => taken > 0,
    pollMs: deps.pollMs ?? 2_000,
    batchDeadlineMs: deps.batchDeadlineMs,
    failureMessage: "stock relay could not reach the catalog; changes wait",
    purge: purgeSent,
    purgeEveryMs: deps.purgeEveryMs,
  });

  return {
    kick: loop.kick,
    /** How many changes wait and the oldest one's age in seconds. */
    backlog: () => stockChangeBacklog(sql),
    async stop() {
      stopped = true;
      await loop.stop();
    },
  };
}
