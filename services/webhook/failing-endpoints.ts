// Endpoints that keep failing (docs/webhooks.md#failing-endpoints): when every attempt to an endpoint has
// failed for WEBHOOK_DISABLE_AFTER, it is disabled with the reason on its page, audited
// as `system`, and the store's owners are mailed. The worker keeps each endpoint's
// failing streak (db/deliveries.ts recordAttempt); a sweep every 15 s turns the
// streaks that are long enough into disables, so it happens within 60 s of the bound
// even when no attempt is due.
import { SYSTEM } from "../../common/actor.js";
import { auditTarget } from "../../common/audit.js";
import { endpointUrl } from "../../common/dashboard-links.js";
import { auditEntry, fieldChanges, insertAudit } from "../../platform/audit-log.js";
import { transaction, type Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import type { Mailer, OutgoingMail } from "../../platform/mail.js";
import { disableFailingEndpoints, type DisabledForFailing } from "./db/endpoints.js";

export const DISABLE_SWEEP_EVERY_MS = 15_000;

/**
 * Whether an endpoint whose attempts have all failed since `failingSince` (null: its
 * latest attempt succeeded, or it has had none) is due to be disabled at `now`.
 */
export function dueForDisable(failingSince: Date | null, now: Date, disableAfterMs: number): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= disableAfterMs;
}

/**
 * The failing streak after one more attempt: a success ends it, a failure starts one
 * at its time unless one is running. Pure, so the rule can be read and tested alone; the
 * worker applies the same rule in SQL (db/deliveries.ts recordAttempt).
 */
export function failingSinceAfter(failingSince: Date | null, attempt: { succeeded: boolean; at: Date }): Date | null {
  if (attempt.succeeded) return null;
  return failingSince ?? attempt.at;
}

/** "5 days", "10 seconds": WEBHOOK_DISABLE_AFTER as the reason and the mail say it. */
export function spokenDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
    [1_000, "second"],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms / size === 1 ? "" : "s"}`;
  }
  return `${ms} ms`;
}

export function endpointDisabledMail(to: string, endpoint: DisabledForFailing, forHowLong: string, publicBaseUrl: string): OutgoingMail {
  const name = endpoint.description ? `“${endpoint.description}” (${endpoint.url})` : endpoint.url;
  return {
    kind: "endpoint-disabled",
    to,
    subject: `Webhook endpoint disabled: ${endpoint.url}`,
    text: [
      `Every attempt to deliver webhooks to ${name} has failed for ${forHowLong}, since ${endpoint.failed_from.toISOString()}, so it is disabled: no more events are sent to it.`,
      "",
      "Fix the receiver, then open the endpoint, press “Enable endpoint” and resend what failed since then:",
      endpointUrl(publicBaseUrl, endpoint.store_id, endpoint.id),
    ].join("\n"),
  };
}

export function createFailingEndpoints(deps: {
  sql: Sql;
  logger: Logger;
  disableAfterMs: number;
  /** Emails of the store's owners, to be told (the catalog's members). */
  ownersOf: (storeId: string) => Promise<string[]>;
  mailer: Pick<Mailer, "send">;
  publicBaseUrl: string;
}) {
  const { sql, logger } = deps;
  const forHowLong = spokenDuration(deps.disableAfterMs);

  /** Tells the owners; a catalog that is away costs the mail (logged), never the disable. */
  async function tellOwners(endpoint: DisabledForFailing): Promise<void> {
    try {
      const owners = await deps.ownersOf(endpoint.store_id);
      for (const owner of owners) deps.mailer.send(endpointDisabledMail(owner, endpoint, forHowLong, deps.publicBaseUrl));
      if (owners.length === 0) logger.warn({ storeId: endpoint.store_id, endpointId: endpoint.id }, "endpoint disabled; the store has no owner to mail");
    } catch (error) {
      logger.error({ storeId: endpoint.store_id, endpointId: endpoint.id, err: { message: (error as Error).message } }, "endpoint disabled; its owners could not be looked up to be mailed");
    }
  }

  return {
    /** Disables what is due at `now`, audited in the same transaction; then mails. */
    async sweep(now = new Date()): Promise<DisabledForFailing[]> {
      const before = new Date(now.getTime() - deps.disableAfterMs);
      const disabled = await transaction(sql, async (tx) => {
        const rows = await disableFailingEndpoints(tx, before, forHowLong);
        // Only enabled endpoints are disabled here, so each was on before.
        const changes = fieldChanges({ enabled: "true" }, { enabled: "false" });
        if (rows.length > 0) await insertAudit(tx, rows.map((row) => auditEntry(row.store_id, SYSTEM, "endpoint.disabled", auditTarget("endpoint", row.id), { label: row.url, changes })));
        return rows;
      });
      for (const endpoint of disabled) {
        logger.warn(
          { storeId: endpoint.store_id, endpointId: endpoint.id, failingSince: endpoint.failed_from.toISOString(), disableAfter: forHowLong },
          "webhook endpoint disabled: every attempt failed",
        );
        await tellOwners(endpoint);
      }
      return disabled;
    },
  };
}

export type FailingEndpoints = ReturnType<typeof createFailingEndpoints>;

/** Sweeps every DISABLE_SWEEP_EVERY_MS; a failed sweep is retried at the next. */
export function startFailingEndpointsJob(failing: FailingEndpoints, logger: Logger, everyMs = DISABLE_SWEEP_EVERY_MS) {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = failing.sweep().catch((error) => logger.warn({ err: { message: (error as Error).message } }, "endpoint disable sweep failed; will retry"));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
