import { connect, headers, nanos, type NatsConnection } from "@nats-io/transport-node";
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  StorageType,
  type ConsumerMessages,
  type JetStreamClient,
} from "@nats-io/jetstream";
import type { Logger } from "./logger.js";
import { untilAvailable } from "./retry.js";
import { natsTraceHeaders, setNatsTraceHeaders, type TraceCarrier } from "./tracing.js";

/** One order event on its way from the outbox to the webhook service. */
export interface BusEvent {
  /** The event id: also the JetStream message id, so a re-publish is dropped. */
  id: string;
  storeId: string;
  type: string;
  /** The event body, exactly the bytes that will be delivered and signed. */
  body: Uint8Array;
  /** The publisher's trace context (`traceparent`), carried in the message headers; absent when untraced. */
  trace?: TraceCarrier;
}

export interface BusMessage extends BusEvent {
  /** How many times this message has been handed out (1 on first delivery). */
  deliveryCount: number;
}

/**
 * Handles messages together, in the order they came: resolving acks every one;
 * throwing hands every one out again a moment later. (A message worth nothing is
 * dropped by resolving.)
 */
export type BusHandler = (messages: BusMessage[]) => Promise<void>;

export interface EventBus {
  /** Resolves once the bus has the event durably (JetStream ack, or a local handler done). */
  publish(event: BusEvent): Promise<void>;
  /**
   * Starts consuming as the shared durable consumer; resolves when set up. The handler
   * runs one call at a time, each with what arrived while the previous one ran (at
   * most `MAX_BATCH` messages); a message that arrives when it is idle goes alone, at once.
   */
  consume(handler: BusHandler): Promise<void>;
  /** Throws when the bus cannot take events now. */
  ready(): Promise<void>;
  /** Events published but not yet handed to the shared consumer (its backlog, for the metrics). */
  pending(): Promise<number>;
  close(): Promise<void>;
}

export interface BusNames {
  /** JetStream stream name; subjects are `<stream in lower case>.<store>.<type>`. */
  stream: string;
  /** The durable consumer every webhook-service instance shares. */
  consumer: string;
}

/**
 * The most messages one handler call gets. Under load, messages that wait share one
 * call, and the webhook consumer one statement and one commit; the cap bounds that
 * statement after a backlog.
 */
export const MAX_BATCH = 100;

/**
 * Feeds `handler` batches, one call at a time: each takes what waits, up to
 * MAX_BATCH. The promise of each message settles with its batch. Once `open()` turns
 * false no new batch starts, and what waits stays unsettled.
 */
function inBatches(handler: BusHandler, open: () => boolean = () => true): (message: BusMessage) => Promise<void> {
  const waiting: { message: BusMessage; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let running = false;
  const run = async () => {
    running = true;
    while (waiting.length > 0 && open()) {
      const batch = waiting.splice(0, MAX_BATCH);
      try {
        await handler(batch.map((entry) => entry.message));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    running = false;
  };
  return (message) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ message, resolve, reject });
      if (!running) void run();
    });
}

const subjectPrefix = (names: BusNames) => names.stream.toLowerCase();
const headerName = { store: "Store-Id", type: "Event-Type" };

/** The JetStream API's "no such stream" / "no such consumer" answers, by their error codes. */
function isApiError(error: unknown, code: JetStreamApiCodes): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}

/**
 * NATS JetStream: a file-backed stream made (or updated) at start-up, publishes with
 * the event id as message id, and one durable pull consumer with explicit acks. The
 * connection reconnects forever; while NATS is away, publishes fail and the outbox
 * keeps its rows until it is back.
 */
export async function createJetStreamBus(url: string, names: BusNames, logger: Logger): Promise<EventBus> {
  // The first connection is retried here, with a log line each time, rather than
  // inside the client (waitOnFirstConnect), which waits without a word.
  const nc: NatsConnection = await untilAvailable(
    "nats",
    // noAsyncTraces: otherwise every JetStream publish builds two errors up front (for
    // their stack, should it time out); their stacks would only show nats.js's own
    // frames, and the errors are logged by message.
    () => connect({ servers: url, name: "store-order", maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 2_000, noAsyncTraces: true }),
    logger,
    () => true,
  );
  (async () => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect" || status.type === "reconnect") logger.info({ nats: status.type }, "nats connection");
    }
  })().catch(() => {});
  const js: JetStreamClient = jetstream(nc, { timeout: 3_000 });
  const prefix = subjectPrefix(names);

  let ensured: Promise<void> | undefined;
  const ensureStream = () =>
    (ensured ??= (async () => {
      const jsm = await jetstreamManager(nc, { timeout: 3_000 });
      const config = {
        name: names.stream,
        subjects: [`${prefix}.>`],
        storage: StorageType.File,
        duplicate_window: nanos(10 * 60_000),
        // The outbox and the delivery rows are the record; the stream only carries.
        max_age: nanos(7 * 24 * 3_600_000),
      };
      try {
        await jsm.streams.info(names.stream);
        await jsm.streams.update(names.stream, { subjects: config.subjects, duplicate_window: config.duplicate_window, max_age: config.max_age });
      } catch (error) {
        if (!isApiError(error, JetStreamApiCodes.StreamNotFound)) throw error;
        await jsm.streams.add(config);
      }
    })().catch((error) => {
      ensured = undefined;
      throw error;
    }));

  const ensureConsumer = async () => {
    await ensureStream();
    const jsm = await jetstreamManager(nc, { timeout: 3_000 });
    try {
      await jsm.consumers.info(names.stream, names.consumer);
    } catch (error) {
      if (!isApiError(error, JetStreamApiCodes.ConsumerNotFound)) throw error;
      await jsm.consumers.add(names.stream, {
        durable_name: names.consumer,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(30_000),
        max_deliver: -1,
        max_ack_pending: 1_000,
      });
    }
  };

  let messages: ConsumerMessages | undefined;
  let closing = false;
  // An ack or nak that cannot be sent (the connection closing) loses nothing: the
  // message is handed out again.
  const settle = (reply: () => void) => {
    try {
      reply();
    } catch {}
  };

  return {
    async pending() {
      const jsm = await jetstreamManager(nc, { timeout: 3_000 });
      return (await jsm.consumers.info(names.stream, names.consumer)).num_pending;
    },

    async ready() {
      if (nc.isClosed()) throw new Error("nats connection closed");
      await ensureStream();
      await nc.flush();
    },

    async publish(event) {
      await ensureStream();
      const h = headers();
      h.set(headerName.store, event.storeId);
      h.set(headerName.type, event.type);
      setNatsTraceHeaders(h, event.trace);
      await js.publish(`${prefix}.${event.storeId}.${event.type}`, event.body, { msgID: event.id, headers: h, timeout: 3_000 });
    },

    async consume(handler) {
      // NATS may be up without JetStream ready yet (a restart, a cluster electing).
      await untilAvailable("jetstream", () => ensureConsumer(), logger, () => !closing);
      // Messages left waiting at close are never acked: JetStream hands them out again.
      const handle = inBatches(handler, () => !closing);
      // consume() re-establishes pulls itself across reconnects; the outer loop covers
      // the rare case where the iterator ends (consumer deleted and recreated, say).
      // Nobody awaits the loop: it runs until close(), and catches and logs its own failures.
      void (async () => {
        while (!closing) {
          try {
            const consumer = await js.consumers.get(names.stream, names.consumer);
            messages = await consumer.consume({ max_messages: 200 });
            // The loop does not wait for the handler, so what arrives meanwhile waits in
            // `handle` for the next batch; max_ack_pending bounds how much.
            for await (const m of messages) {
              const storeId = m.headers?.get(headerName.store) ?? "";
              const type = m.headers?.get(headerName.type) ?? "";
              const id = m.headers?.get("Nats-Msg-Id") ?? "";
              if (!id) {
                logger.error({ subject: m.subject }, "message without an event id; dropped");
                m.term();
                continue;
              }
              handle({ id, storeId, type, body: m.data, deliveryCount: m.info.deliveryCount, trace: natsTraceHeaders(m.headers) }).then(
                // A plain ack: if it is lost the message comes again, and recording a
                // delivery twice is a no-op (one row per event and endpoint).
                () => settle(() => m.ack()),
                (error) => {
                  logger.warn({ err: (error as Error).message, eventId: id }, "event handling failed; redelivering");
                  settle(() => m.nak(1_000));
                },
              );
            }
          } catch (error) {
            if (closing) break;
            logger.warn({ err: (error as Error).message }, "consumer stopped; restarting");
            await new Promise((resolve) => setTimeout(resolve, 1_000));
          }
        }
      })();
    },

    async close() {
      closing = true;
      await messages?.close().catch(() => {});
      await nc.drain().catch(() => nc.close());
    },
  };
}

/**
 * The bus with nothing configured: events go straight to this process's consumer. A
 * publish resolves only once the consumer has taken the event (its handler acked), so
 * the outbox keeps a row until it is safely handled: the same at-least-once guarantee,
 * for as long as the process lives.
 */
export function createInProcessBus(logger: Logger): EventBus {
  let handler: ((message: BusMessage) => Promise<void>) | undefined;
  const waiting: (() => void)[] = [];
  const seen = new Map<string, number>(); // id → when: the dedupe window
  const windowMs = 10 * 60_000;
  return {
    async ready() {},
    // A publish waits for the consumer here: nothing is ever left pending.
    async pending() {
      return 0;
    },
    async publish(event) {
      const now = Date.now();
      for (const [id, at] of seen) {
        if (now - at < windowMs) break;
        seen.delete(id);
      }
      if (seen.has(event.id)) return;
      // No consumer yet (the webhook service starts after the relay): wait briefly.
      if (!handler) await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no consumer on the in-process bus")), 5_000);
        waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      // A handler that throws fails the publish (of every event in its batch): the
      // outbox keeps the rows and retries.
      await handler!({ ...event, deliveryCount: 1 });
      seen.set(event.id, now);
    },
    async consume(next) {
      // Concurrent publishes (the relay's) share batches as they would on JetStream.
      handler = inBatches(next);
      for (const wake of waiting.splice(0)) wake();
      logger.debug("in-process bus consumer attached");
    },
    async close() {
      handler = undefined;
    },
  };
}

export async function createEventBus(
  config: { NATS_URL?: string },
  names: BusNames,
  logger: Logger,
  local?: EventBus,
): Promise<EventBus> {
  if (config.NATS_URL) return createJetStreamBus(config.NATS_URL, names, logger);
  return local ?? createInProcessBus(logger);
}
