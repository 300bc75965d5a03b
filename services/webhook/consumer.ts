import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { isUuid } from "../../common/ids.js";
import type { BusMessage } from "../../platform/bus.js";
import type { Logger } from "../../platform/logger.js";
import { contextFromCarrier, inSpan, traceCarrier, tracerFor, tracingEnabled } from "../../platform/tracing.js";
import type { Sql } from "../../platform/db.js";
import { recordEvents, type NewEvent } from "./db/events.js";

interface EventBodyData {
  livemode?: unknown;
  order?: { id?: string; livemode?: unknown };
}

/**
 * What the log keeps beside an event's body: the order id it carries (null when none)
 * and its mode (docs/webhooks.md#test-mode): `data.livemode`, else its order's
 * `livemode`, and live when neither says `false` (events from before test mode).
 * Undefined when the body is not JSON.
 */
export function eventFacts(body: string): { orderId: string | null; livemode: boolean } | undefined {
  let data: EventBodyData | undefined;
  try {
    data = (JSON.parse(body) as { data?: EventBodyData } | null)?.data;
  } catch {
    return undefined;
  }
  const stated = typeof data?.livemode === "boolean" ? data.livemode : data?.order?.livemode;
  return { orderId: data?.order?.id ?? null, livemode: stated !== false };
}

/**
 * Records a batch of bus messages in the event log (every event, with or without
 * endpoints) and, in the same statement, one delivery for each enabled endpoint of the
 * store of its mode subscribed to its type. The handler resolves (and the bus acks the batch) only
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
      const facts = eventFacts(body);
      if (facts === undefined) {
        logger.error({ eventId: message.id }, "event body is not JSON; dropped");
        continue;
      }
      const { orderId, livemode } = facts;
      // Ids the uuid columns would refuse fail the statement, not just this message.
      if (!isUuid(message.id) || !isUuid(message.storeId) || (orderId !== null && !isUuid(orderId))) {
        logger.error({ eventId: message.id, storeId: message.storeId, orderId }, "event ids are not UUIDs; dropped");
        continue;
      }
      events.push({ id: message.id, store_id: message.storeId, type: message.type, order_id: orderId, body, livemode, traceparent: traceparents[i] ?? null });
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
