import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { isUuid } from "../../common/ids.js";
import type { BusMessage } from "../../platform/bus.js";
import type { Logger } from "../../platform/logger.js";
import { contextFromCarrier, inSpan, traceCarrier, tracerFor, tracingEnabled } from "../../platform/tracing.js";
import type { Sql } from "../../platform/db.js";
import { recordEvents, type NewEvent } from "./db/events.js";

/** The order id an event body carries, if any; undefined when the body is not JSON. */
export function orderIdOf(body: string): string | null | undefined {
  try {
    return (JSON.parse(body) as { data?: { order?: { id?: string } } }).data?.order?.id ?? null;
  } catch {
    return undefined;
  }
}

/**
 * Records a batch of bus messages in the event log (every event, with or without
 * endpoints) and, in the same statement, one delivery for each enabled endpoint of the
 * store subscribed to its type. The handler resolves (and the bus acks the batch) only
 * after that commits, so a crash redelivers it; a redelivered message finds its event
 * recorded and adds nothing. A message that cannot be recorded is dropped, not failed:
 * failing would hand its whole batch out again, and it would fail again.
 *
 * With tracing on, each message is a CONSUMER span continuing the publisher's trace
 * (the message headers), and its deliveries keep that span's `traceparent` for their
 * attempts (worker.ts). A batch of one records in its message's span; a larger batch
 * in a span of its own, linked to each message's.
 */
export function createEventConsumer(deps: { sql: Sql; logger: Logger; onRecorded: () => void }) {
  const { sql, logger } = deps;
  const record = async (messages: BusMessage[], traceparents: (string | null)[]): Promise<void> => {
    const events: NewEvent[] = [];
    for (const [i, message] of messages.entries()) {
      const body = Buffer.from(message.body).toString("utf8");
      const orderId = orderIdOf(body);
      if (orderId === undefined) {
        logger.error({ eventId: message.id }, "event body is not JSON; dropped");
        continue;
      }
      // Ids the uuid columns would refuse fail the statement, not just this message.
      if (!isUuid(message.id) || !isUuid(message.storeId) || (orderId !== null && !isUuid(orderId))) {
        logger.error({ eventId: message.id, storeId: message.storeId, orderId }, "event ids are not UUIDs; dropped");
        continue;
      }
      events.push({ id: message.id, store_id: message.storeId, type: message.type, order_id: orderId, body, traceparent: traceparents[i] ?? null });
    }
    if (events.length === 0) return;
    if ((await recordEvents(sql, events)) > 0) deps.onRecorded();
  };
  return async (messages: BusMessage[]): Promise<void> => {
    if (!tracingEnabled()) return record(messages, []);
    const tracer = tracerFor("webhook");
    const spans: Span[] = messages.map((message) =>
      tracer.startSpan(
        `process ${message.type}`,
        {
          kind: SpanKind.CONSUMER,
          attributes: { "messaging.operation.type": "process", "messaging.message.id": message.id, "messaging.destination.name": message.type },
        },
        contextFromCarrier(message.trace),
      ),
    );
    const traceparents = spans.map((span) => traceCarrier(trace.setSpan(ROOT_CONTEXT, span)).traceparent ?? null);
    try {
      if (spans.length === 1) await context.with(trace.setSpan(ROOT_CONTEXT, spans[0]!), () => record(messages, traceparents));
      else {
        const links = spans.map((span) => ({ context: span.spanContext() }));
        await inSpan(tracer, "process order events", { kind: SpanKind.CONSUMER, links }, ROOT_CONTEXT, () => record(messages, traceparents));
      }
    } catch (error) {
      for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      for (const span of spans) span.end();
    }
  };
}
