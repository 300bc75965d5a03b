import type { Logger } from "./logger.js";
import { isOutage } from "./rpc-errors.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, while its failures mean the dependency is away
 * (docs/api.md#robustness: a role started without PostgreSQL or NATS waits for it, not ready,
 * with one JSON line per retry). Backs off from 0.5 s to 5 s. Any other error is a
 * real failure and is thrown.
 */
export async function untilAvailable<T>(
  dependency: string,
  attempt: () => Promise<T>,
  logger: Logger,
  isRetryable: (error: unknown) => boolean = isOutage,
): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      const result = await attempt();
      if (tries > 1) logger.info({ dependency, attempts: tries }, `${dependency} reachable`);
      return result;
    } catch (error) {
      if (!isRetryable(error)) throw error;
      const retryInMs = Math.min(5_000, 250 * 2 ** Math.min(tries, 5));
      const e = error as { code?: unknown; message?: string };
      logger.warn(
        { dependency, attempt: tries, retryInMs, reason: typeof e.code === "string" ? e.code : e.message },
        `${dependency} unreachable; retrying`,
      );
      await sleep(retryInMs);
    }
  }
}
