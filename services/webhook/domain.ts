// Wires the webhook service's request-side domain modules: routes.ts gets the result;
// tests pass an in-memory store. (The consumer, the delivery worker and the purge job
// are started by service.ts with the same store.)
import type { AuditQuery } from "../../platform/audit-log.js";
import type { Logger } from "../../platform/logger.js";
import { createDeliveries } from "./deliveries.js";
import { createEndpoints } from "./endpoints.js";
import { createEvents } from "./events.js";
import type { SecretBox } from "./secret-box.js";
import * as sqlStore from "./db/deliveries.js";

/** Everything store.ts offers; a test may pass an in-memory one. */
export type WebhookStore = typeof sqlStore;

export interface WebhookDomainDeps {
  /** The pool; only `store` uses it. */
  sql: sqlStore.Pool;
  /** Default: store.ts (PostgreSQL). */
  store?: WebhookStore;
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
  const store = deps.store ?? sqlStore;
  const endpoints = createEndpoints({ sql, store, logger, box, allowHttp: deps.allowHttp, rotationOverlapMs: deps.rotationOverlapMs, onQueued: deps.onRequeued });
  const events = createEvents({ sql, store, logger, retentionMs: deps.eventRetentionMs, onQueued: deps.onRequeued });
  const deliveries = createDeliveries({ sql, store, logger, onRequeued: deps.onRequeued });
  // The webhook service's part of the store's audit log: entries are written by each change.
  const audit = { list: (storeId: string, query: AuditQuery) => store.listAudit(sql, storeId, query) };
  return { endpoints, events, deliveries, audit };
}

export type WebhookDomain = ReturnType<typeof createWebhookDomain>;
