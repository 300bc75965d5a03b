import type { Logger } from "./logger.js";

/**
 * Runs `stop` once on SIGTERM or SIGINT and exits 0 when it finishes, or 1 if it
 * takes longer than `limitMs` (the contract allows 10 s in all).
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, limitMs = 9_500): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("shutdown took too long; exiting");
      process.exit(1);
    }, limitMs);
    timer.unref();
    stop().then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (error) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
}
