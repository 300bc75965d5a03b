import { ConfigError, loadConfig, type Config } from "./config.js";
import { createLogger, type Logger } from "./logger.js";

/**
 * An entry point's configuration, or its end: a configuration that cannot run
 * (docs/architecture.md#configuration, docs/payments.md#switching-to-midtrans) is one `fatal` JSON line naming the variables at fault, then exit 1,
 * never a stack. Logged at `fatal` whatever LOG_LEVEL says (it may be the bad value).
 */
export function loadConfigOrExit(service: string, env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env, service);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    createLogger(service, "fatal").fatal({ variables: error.variables }, error.message);
    process.exit(1);
  }
}

/**
 * Runs `stop` once on SIGTERM or SIGINT and exits 0 when it finishes, or 1 if it
 * takes longer than `limitMs` (docs/operations.md allows 10 s in all).
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

/**
 * The last word on failures nothing else caught, as a JSON line an operator can read
 * rather than a raw stack. A stray rejected promise is logged and the process goes
 * on (its state is intact); an uncaught exception leaves it unknown, so the process
 * exits 1 and the supervisor (compose's restart policy) starts a clean one.
 */
export function reportProcessFailures(logger: Logger): void {
  process.on("unhandledRejection", (reason) => {
    logger.error({ err: reason }, "unhandled promise rejection");
  });
  process.on("uncaughtException", (error, origin) => {
    logger.fatal({ err: error, origin }, "uncaught exception; exiting");
    process.exit(1);
  });
}
