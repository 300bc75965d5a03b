import type { Logger } from "../lib/logger.js";
import type { OrderDomain } from "./orders.js";
import { purgeIdempotencyKeys } from "./store.js";
import type { Sql } from "../lib/db.js";

/**
 * Turns pending orders past `expires_at` into `expired` every `everyMs`. Rows are
 * taken with SKIP LOCKED, so any number of order-service instances can run it.
 */
export function startExpirySweeper(deps: { sql: Sql; domain: OrderDomain; logger: Logger; everyMs?: number }) {
  const everyMs = deps.everyMs ?? 5_000;
  let running: Promise<void> | undefined;
  let lastPurge = 0;
  const sweep = async () => {
    try {
      let expired = 0;
      for (let batch = 100; batch === 100; expired += batch) batch = await deps.domain.expireDue(100);
      if (expired > 0) deps.logger.info({ expired }, "expired orders");
      if (Date.now() - lastPurge > 3_600_000) {
        await purgeIdempotencyKeys(deps.sql);
        lastPurge = Date.now();
      }
    } catch (error) {
      deps.logger.warn({ err: (error as Error).message }, "expiry sweep failed; will retry");
    }
  };
  const timer = setInterval(() => {
    running ??= sweep().finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
