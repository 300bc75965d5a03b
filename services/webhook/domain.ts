// Wires the webhook service's request-side domain modules: routes.ts gets the result.
// (The consumer, the delivery worker and the purge job are started by service.ts on the
// same pool.)
import { listAudit, type AuditQuery } from "../../platform/audit-log.js";
import type { Sql } from "../../platform/db.js";
import type { Logger } from "../../platform/logger.js";
import { createDeliveries } from "./deliveries.js";
import { createEndpoints } from "./endpoints.js";
import { createEvents } from "./events.js";
import type { SecretBox } from "./secret-box.js";

export interface WebhookDomainDeps {
  /** The pool on the webhook schema. */
  sql: Sql;
  logger: Logger;
  box: SecretBox;
  allowHttp: boolean;
  rotationOverlapMs: number;
  /** How long events are kept (EVENT_RETENTION). */
  eventRetentionMs: number;
  /** Called when deliveries are queued outside the consumer (wakes the worker). */
  onRequeued: () => void;
}

export function createWebhookDomain(deps: WebhookDomainDeps) {
  const { sql, logger, box } = deps;
  const endpoints = createEndpoints({ sql, logger, box, allowHttp: deps.allowHttp, rotationOverlapMs: deps.rotationOverlapMs, onQueued: deps.onRequeued });
  const events = createEvents({ sql, logger, retentionMs: deps.eventRetentionMs, onQueued: deps.onRequeued });
  const deliveries = createDeliveries({ sql, logger, onRequeued: deps.onRequeued });
  // The webhook service's part of the store's audit log: entries are written by each change.
  const audit = { list: (storeId: string, query: AuditQuery) => listAudit(sql, storeId, query) };
  return { endpoints, events, deliveries, audit };
}

export type WebhookDomain = ReturnType<typeof createWebhookDomain>;
