import { context, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { transaction, type Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import { contextFromTraceparent, inSpan, traceCarrier, tracerFor, tracingEnabled, untraced, type TraceCarrier } from "../../platform/tracing.js";
import { outsideCall } from "../../platform/query-deadline.js";
import { isOutage } from "../../platform/rpc-errors.js";
import { nextAttemptDelay, parseRetryAfter, RETRY_AFTER_STATUSES } from "./retry-policy.js";
import type { SecretBox } from "./secret-box.js";
import { sendWebhook, type SendResult } from "./sender.js";
import { signatureHeader } from "./signing.js";
import { leaseDue, recordAttempt, releaseLease, type AttemptOutcome, type DueDelivery, type NewAttempt, type SentHeader, type SentTo } from "./db/deliveries.js";
import { disableEndpoint, endpointLiveForShare } from "./db/endpoints.js";

export interface WorkerOptions {
  sql: Sql;
  logger: Logger;
  box: SecretBox;
  schedule: number[];
  allowHttp: boolean;
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Deliveries in flight to one endpoint at most, so a slow receiver only slows itself. */
  perEndpoint?: number;
  /** Deliveries in flight in this instance at most. */
  total?: number;
  pollMs?: number;
  /** Called after every attempt, with when the delivery was first recorded. */
  onAttempt?: (result: SendResult["result"], latencyMs: number, recordedAt: Date) => void;
}

/**
 * Sends due deliveries: leases them, signs with every live secret, records each
 * attempt, and schedules the next one. Everything it needs to resume is in the
 * database, so a restart picks up where the last run stopped.
 */
export function startDeliveryWorker(options: WorkerOptions) {
  const { sql, logger } = options;
  const perEndpoint = options.perEndpoint ?? 4;
  const total = options.total ?? 64;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const leaseMs = timeoutMs + 5_000;
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let count = 0;
  let stopped = false;
  let pumping = false;
  let again = false;

  /**
   * Records the attempt. What came from the receiver (its answer, an error text) is the
   * one part of the record we do not control: if the record is refused for anything but
   * an outage, it is written again without them, so the delivery still moves on. Should
   * that fail too, the lease lapses and leaseDue's step rule ends the delivery.
   */
  async function recordOutcome(attempt: NewAttempt, outcome: AttemptOutcome, sent?: SentTo) {
    try {
      // The attempt's row, its delivery's new state and its endpoint's streak, in one statement.
      await recordAttempt(sql, attempt, outcome, sent);
    } catch (error) {
      if (isOutage(error)) throw error;
      logger.error(
        { deliveryId: attempt.delivery_id, err: { message: (error as Error).message, code: (error as { code?: unknown }).code } },
        "webhook attempt could not be recorded as received; recording it without the receiver's answer",
      );
      await recordAttempt(
        sql,
        { ...attempt, error: attempt.error === null ? null : "(not recordable)", response_excerpt: null },
        { ...outcome, error: outcome.error === undefined ? undefined : "(not recordable)" },
        sent,
      );
    }
  }

  /** The sealed custom headers as request headers, names lower-cased. */
  function customHeaders(sealed: string | null): Record<string, string> {
    if (!sealed) return {};
    const headers = JSON.parse(options.box.open(sealed)) as { name: string; value: string }[];
    return Object.fromEntries(headers.map((header) => [header.name.toLowerCase(), header.value]));
  }

  async function deliver(delivery: DueDelivery) {
    const started = new Date();
    if (!delivery.enabled) {
      // Failed only if the endpoint is still off when the failure is written: enabled
      // meanwhile (with "Resend failed since", which skips deliveries still pending),
      // the delivery goes out after all instead of falling between the two.
      const failed = await transaction(sql, async (tx) => {
        if (await endpointLiveForShare(tx, delivery.endpoint_id)) return false;
        await recordAttempt(
          tx,
          {
            delivery_id: delivery.id,
            started_at: started,
            status_code: null,
            latency_ms: 0,
            result: "endpoint_disabled",
            error: "endpoint is disabled",
            response_excerpt: null,
            request_headers: null,
          },
          { status: "failed", error: "endpoint is disabled" },
        );
        return true;
      });
      if (!failed) {
        await releaseLease(sql, delivery.id);
        kick();
      }
      return;
    }
    const secrets = delivery.secrets.map((sealed) => options.box.open(sealed));
    const timestamp = Math.floor(Date.now() / 1000);
    const custom = customHeaders(delivery.headers_sealed);
    const result = await post(
      delivery.url,
      {
        "user-agent": "store-order-webhooks/1",
        // The endpoint's own headers (docs/webhooks.md#custom-headers): never one of the names set below,
        // which the service refuses (common/webhook-headers.ts) and which win anyway.
        ...custom,
        "content-type": "application/json",
        "webhook-id": delivery.event_id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(secrets, delivery.event_id, timestamp, delivery.body),
      },
      delivery.body,
    );
    options.onAttempt?.(result.result, result.latencyMs, delivery.created_at);
    // One line per attempt: where it went, for which event, and how it ended. The URL's
    // host only (a path or query may hold the receiver's own token); never the secret.
    logger[result.result === "succeeded" ? "info" : "warn"](
      {
        deliveryId: delivery.id,
        endpointId: delivery.endpoint_id,
        host: hostOf(delivery.url),
        eventId: delivery.event_id,
        eventType: delivery.event_type,
        attempt: delivery.attempts + 1,
        result: result.result,
        status: result.statusCode ?? null,
        latencyMs: Math.round(result.latencyMs),
        ...(result.error ? { error: result.error } : {}),
      },
      "webhook attempt",
    );
    const attempt = {
      delivery_id: delivery.id,
      started_at: started,
      status_code: result.statusCode ?? null,
      latency_ms: result.latencyMs,
      result: result.result,
      error: result.error ?? null,
      response_excerpt: result.responseExcerpt?.slice(0, 1_024) ?? null,
      // A refused destination was sent nothing.
      request_headers: result.result === "refused" ? null : recordedHeaders(result.headers, custom),
    };
    const attemptsMade = delivery.attempts + 1;
    const sent: SentTo = { endpointId: delivery.endpoint_id, succeeded: result.result === "succeeded" };
    if (result.result === "succeeded") {
      await recordOutcome(attempt, { status: "succeeded" }, sent);
    } else if (result.result === "refused") {
      await recordOutcome(attempt, { status: "refused", error: result.error }, sent);
      logger.warn({ deliveryId: delivery.id, reason: result.error }, "webhook destination refused");
    } else if (result.statusCode === 410) {
      await disableEndpoint(sql, delivery.endpoint_id, "receiver answered 410 Gone");
      await recordOutcome(attempt, { status: "failed", error: "410 Gone: endpoint disabled" }, sent);
      logger.warn({ endpointId: delivery.endpoint_id }, "webhook endpoint disabled after 410");
    } else {
      const retryAfter = result.statusCode && RETRY_AFTER_STATUSES.has(result.statusCode) ? parseRetryAfter(result.retryAfter) : undefined;
      const delay = nextAttemptDelay(options.schedule, attemptsMade, retryAfter);
      const error = result.error ?? `HTTP ${result.statusCode}`;
      if (delay === undefined) {
        await recordOutcome(attempt, { status: "failed", error }, sent);
        logger.warn({ deliveryId: delivery.id, attempts: attemptsMade }, "webhook delivery failed for good");
      } else {
        await recordOutcome(attempt, { status: "pending", nextAttemptAt: new Date(Date.now() + delay), error }, sent);
        setTimeout(kick, delay + 10).unref();
      }
    }
  }

  /**
   * One POST. With tracing on, a CLIENT span around it, whose context the request
   * carries as `traceparent` (replacing an endpoint's custom header of that name: the
   * trace is the service's to state).
   */
  function post(url: string, headers: Record<string, string>, body: string): Promise<SendResult & { headers: Record<string, string> }> {
    const send = async (trace: TraceCarrier) => {
      const sent = { ...headers, ...trace };
      return { ...(await sendWebhook(url, sent, body, { allowHttp: options.allowHttp, allowPrivate: options.allowPrivate, timeoutMs })), headers: sent };
    };
    if (!tracingEnabled()) return send({});
    const target = targetOf(url);
    const attributes = { "http.request.method": "POST", "server.address": target.hostname, "server.port": target.port };
    return inSpan(tracerFor("webhook"), "POST", { kind: SpanKind.CLIENT, attributes }, context.active(), async (span) => {
      const result = await send(traceCarrier());
      span.setAttribute("webhook.result", result.result);
      if (result.statusCode !== undefined) span.setAttribute("http.response.status_code", result.statusCode);
      if (result.result !== "succeeded") {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute("error.type", result.statusCode !== undefined ? String(result.statusCode) : result.result);
      }
      return result;
    });
  }

  /** With tracing on, an attempt continues the trace its delivery was recorded in (its `traceparent`). */
  function attempt(delivery: DueDelivery): Promise<void> {
    if (!tracingEnabled()) return deliver(delivery);
    const attributes = {
      "webhook.delivery_id": delivery.id,
      "webhook.endpoint_id": delivery.endpoint_id,
      "webhook.event_id": delivery.event_id,
      "webhook.event_type": delivery.event_type,
      "webhook.attempt": delivery.attempts + 1,
    };
    return inSpan(tracerFor("webhook"), "webhook attempt", { attributes }, contextFromTraceparent(delivery.traceparent), () => deliver(delivery));
  }

  async function pump() {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        const room = total - count;
        if (room <= 0 || stopped) break;
        const saturated = [...inFlight].filter(([, n]) => n >= perEndpoint).map(([id]) => id);
        const leased = await leaseDue(sql, room, leaseMs, saturated, options.schedule);
        for (const delivery of leased) {
          if ((inFlight.get(delivery.endpoint_id) ?? 0) >= perEndpoint) {
            // Over this endpoint's share: give the lease back for a later round.
            await releaseLease(sql, delivery.id);
            again = true;
            continue;
          }
          inFlight.set(delivery.endpoint_id, (inFlight.get(delivery.endpoint_id) ?? 0) + 1);
          count++;
          const task = attempt(delivery)
            .catch((error) =>
              // The database went away mid-attempt: the lease lapses and the attempt is
              // made again; only anything else is a surprise.
              isOutage(error)
                ? logger.warn({ deliveryId: delivery.id, reason: (error as { code?: string }).code }, "delivery attempt interrupted: database unavailable")
                : logger.error({ err: error, deliveryId: delivery.id }, "delivery attempt failed unexpectedly"),
            )
            .finally(() => {
              inFlight.set(delivery.endpoint_id, inFlight.get(delivery.endpoint_id)! - 1);
              count--;
              running.delete(task);
              kick();
            });
          running.add(task);
        }
        if (leased.length === room) again = true;
      } while (again && !stopped);
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "delivery worker could not lease; will retry");
    } finally {
      pumping = false;
    }
  }

  // Woken by the consumer, an attempt or a request (a resend): leasing serves every
  // delivery, no one trace and no one call.
  function kick() {
    if (!stopped) void outsideCall(() => untraced(pump));
  }

  const poll = setInterval(kick, options.pollMs ?? 500);
  poll.unref();
  kick();

  return {
    kick,
    /** Stops taking work and waits for the attempts in flight to finish. */
    async stop() {
      stopped = true;
      clearInterval(poll);
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * The headers an attempt sent, as its record keeps them: in the order sent, a value that
 * came from the endpoint's custom headers masked (a credential, kept only sealed on the
 * endpoint). HTTP's own Host and Content-Length, which the client adds, are not listed.
 */
function recordedHeaders(sent: Record<string, string>, custom: Record<string, string>): SentHeader[] {
  return Object.entries(sent).map(([name, value]) => (custom[name] === value ? { name, masked: true as const } : { name, value }));
}

/** Where a URL points, for a span (never its path or query, which may hold a token). */
function targetOf(url: string): { hostname: string; port: number } {
  try {
    const target = new URL(url);
    return { hostname: target.hostname, port: Number(target.port) || (target.protocol === "https:" ? 443 : 80) };
  } catch {
    return { hostname: "", port: 0 };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}
