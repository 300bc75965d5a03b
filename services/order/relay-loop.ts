// How the order service's relays run (outbox-relay.ts to the bus, stock-relay.ts to the
// catalog): batches drained on a kick after each commit and on a slow timer, one run at
// a time per instance, each batch given up after a deadline, backing off while the
// destination is away. Several instances are safe because each batch is taken with
// SKIP LOCKED by the caller's `drain`; this file only decides when to drain.
import type { Logger } from "../../platform/logger.js";
import { outsideCall } from "../../platform/query-deadline.js";
import { untraced } from "../../platform/tracing.js";

export interface RelayLoopOptions {
  logger: Logger;
  /** Sends one batch of at most `batch` rows; how many it took. */
  drain(): Promise<number>;
  /** A full batch means more may wait: drain again at once. */
  batch: number;
  /** Whether a batch that took `taken` rows leaves more to take now (default: it was full). */
  more?: (taken: number) => boolean;
  /** The slow timer, for rows whose kick was lost (another instance wrote them, a restart). */
  pollMs: number;
  /** A batch not done by then is given up and tried again (default 15 s). */
  batchDeadlineMs?: number;
  /** What a failed batch logs (rows wait, then are tried again with backoff). */
  failureMessage: string;
  /** Called every `purgeEveryMs` (default 60 s) to delete what was sent long ago. */
  purge?: () => Promise<void>;
  purgeEveryMs?: number;
}

export function startRelayLoop(options: RelayLoopOptions) {
  const { logger, batch } = options;
  const more = options.more ?? ((taken: number) => taken === batch);
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let backoffMs = 0;
  let retrying = false;
  let timer: NodeJS.Timeout | undefined;

  /**
   * One batch, given up after its deadline: a query whose connection the database
   * dropped can leave its promise unsettled, and one such batch must not stop the relay
   * for good. The rows it locked are free again once that connection is gone, and what
   * it sent is sent again, which each destination takes once.
   */
  function drainWithin(): Promise<number> {
    const deadlineMs = options.batchDeadlineMs ?? 15_000;
    let deadlineTimer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      deadlineTimer = setTimeout(() => reject(new Error(`a relay batch took over ${deadlineMs} ms; given up`)), deadlineMs);
    });
    const work = options.drain();
    // Settling after the deadline is no news: the next run has taken over.
    work.catch(() => {});
    return Promise.race([work, deadline]).finally(() => clearTimeout(deadlineTimer));
  }

  async function run() {
    do {
      again = false;
      try {
        while (!stopped && more(await drainWithin()));
        backoffMs = 0;
      } catch (error) {
        backoffMs = Math.min(10_000, Math.max(250, backoffMs * 2));
        logger.warn({ err: (error as Error).message, retryInMs: backoffMs }, options.failureMessage);
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
    // A kick comes from the commit of a request: the batch is none of its trace, and
    // none of its call (its deadline must not cancel the batch's queries).
    running = outsideCall(() => untraced(run)).finally(() => (running = undefined));
  }

  function schedule(ms: number) {
    clearTimeout(timer);
    timer = setTimeout(() => {
      retrying = false;
      kick();
    }, ms);
    timer.unref();
  }

  const poll = setInterval(kick, options.pollMs);
  poll.unref();
  kick();

  let purging: Promise<void> | undefined;
  const purge = options.purge;
  const purgeTimer = purge
    ? setInterval(() => {
        purging ??= untraced(purge).finally(() => (purging = undefined));
      }, options.purgeEveryMs ?? 60_000)
    : undefined;
  purgeTimer?.unref();

  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(poll);
      clearInterval(purgeTimer);
      clearTimeout(timer);
      await Promise.all([running, purging]);
    },
  };
}
