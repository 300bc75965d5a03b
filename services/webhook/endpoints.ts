// Webhook endpoints (docs/webhooks.md#endpoints): up to 10 per store, each an https:// URL (http://
// only when configured) with a description and a subscription (every event type or
// some), a fresh secret shown once at creation (and revealed on request), and rotation
// where the old secrets keep signing for the overlap. `set` and `rotate` without an
// endpoint id keep the one-endpoint commands working for a store that has at most one.
import { auditTarget } from "../../common/audit.js";
import { HeaderError, withHeader, type CustomHeader } from "../../common/webhook-headers.js";
import type { Actor } from "../../common/actor.js";
import { auditEntry, fieldChanges, insertAudit, type AuditFieldChange } from "../../platform/audit-log.js";
import { transaction, type Db, type Sql } from "../../platform/db.js";
import { Code, ConnectError } from "@connectrpc/connect";
import { ORDER_EVENT_TYPES } from "../../common/order-status.js";
import type { Logger } from "../../platform/logger.js";
import type { SecretBox } from "./secret-box.js";
import { generateSecret } from "./signing.js";
import { failPendingDeliveries, insertResendDeliveries } from "./db/deliveries.js";
import {
  endpointOfStore,
  insertEndpoint,
  listEndpoints,
  lockEndpoint,
  lockEndpointsOfStore,
  markEndpointDeleted,
  setEndpointHeaders,
  updateEndpoint,
  type EndpointChanges,
  type EndpointRow,
} from "./db/endpoints.js";
import { deleteSecrets, insertSecret, liveSecrets, retireSecretsAt, retireSecretsNow } from "./db/secrets.js";
import { fieldErrors } from "../../platform/field-errors.js";
import { fieldError } from "./validation.js";

export const MAX_URL_LENGTH = 2048;
export const MAX_ENDPOINTS_PER_STORE = 10;
export const MAX_DESCRIPTION_LENGTH = 500;
/** Why an endpoint the store turned off is off. */
export const DISABLED_BY_STORE = "disabled by the store";

/** An endpoint's URL: absolute, https:// (or http:// when allowed), no credentials, at most 2048 characters. */
export function checkEndpointUrl(raw: string, allowHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fieldError("url", "must be an absolute URL");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowHttp)) {
    throw fieldError("url", "must be https:// (http:// only with WEBHOOK_ALLOW_HTTP)");
  }
  if (url.username || url.password) throw fieldError("url", "must not carry credentials");
  if (raw.length > MAX_URL_LENGTH) {
    throw fieldError("url", `must be at most ${MAX_URL_LENGTH} characters`);
  }
  return url;
}

/** A description: trimmed, at most 500 characters (code points, as a person counts them). */
export function checkDescription(raw: string): string {
  const description = raw.trim();
  if ([...description].length > MAX_DESCRIPTION_LENGTH) {
    throw fieldError("description", `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  return description;
}

/** Which event types an endpoint receives, as the subscription the API carries. */
export interface Subscription {
  all: boolean;
  types: string[];
}

/**
 * The stored form of a subscription: null for every type (unset or `all`), else the
 * chosen order event types, each once, in the documented order. `webhook.test` is
 * not a type one subscribes to: every endpoint can be sent a test.
 */
export function subscribedTypes(events: Subscription | undefined): string[] | null {
  if (!events || events.all) {
    if (events?.types.length) throw fieldError("events.types", "must be empty when events.all is set");
    return null;
  }
  if (events.types.length === 0) throw fieldError("events.types", "must name at least one event type (or set events.all)");
  for (const type of events.types) {
    if (!(ORDER_EVENT_TYPES as readonly string[]).includes(type)) {
      throw fieldError("events.types", `has an unknown event type "${type}" (known: ${ORDER_EVENT_TYPES.join(", ")})`);
    }
  }
  return ORDER_EVENT_TYPES.filter((type) => events.types.includes(type));
}

/** An endpoint's settings as the audit log compares them, named as in the API. */
export function auditedSettings(row: EndpointRow): Record<string, string> {
  return {
    url: row.url,
    description: row.description,
    events: row.event_types === null ? "all" : row.event_types.join(", "),
    enabled: String(row.enabled),
    max_per_second: row.max_per_second === null ? "no limit" : String(row.max_per_second),
  };
}

/**
 * The custom headers a change set, replaced or removed, by name (any case): each value
 * is a credential, so the log says only whether there was one, "(hidden)", or none.
 */
export function headerChanges(before: CustomHeader[], after: CustomHeader[]): AuditFieldChange[] {
  const find = (headers: CustomHeader[], name: string) => headers.find((header) => header.name.toLowerCase() === name.toLowerCase());
  const names = [...after, ...before].map((header) => header.name).filter((name, n, all) => all.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === n);
  return names
    .filter((name) => find(before, name)?.value !== find(after, name)?.value)
    .map((name) => ({ field: `header.${name}`, before: find(before, name) ? "(hidden)" : "", after: find(after, name) ? "(hidden)" : "" }));
}

export interface EndpointUpdate {
  url?: string;
  description?: string;
  events?: Subscription;
  enabled?: boolean;
  /** "Resend failed since" (docs/webhooks.md#failing-endpoints): only with the endpoint enabled, now or already. */
  resendFailedSince?: Date;
  /** Deliveries a second at most; null removes the limit (endpoint-rate.ts). */
  maxPerSecond?: number | null;
}

function severalEndpoints(storeId: string, count: number): ConnectError {
  return new ConnectError(
    `store ${storeId} has ${count} webhook endpoints: name the one you mean with endpoint_id`,
    Code.FailedPrecondition,
  );
}

/** Whether an endpoint is of the mode asked for (docs/webhooks.md#test-mode): any when none is given. */
export function ofMode(endpoint: Pick<EndpointRow, "livemode">, livemode: boolean | undefined): boolean {
  return livemode === undefined || endpoint.livemode === livemode;
}

export function createEndpoints(deps: {
  sql: Sql;
  logger: Logger;
  box: SecretBox;
  allowHttp: boolean;
  /** How long rotated-out secrets keep signing. */
  rotationOverlapMs: number;
  /** Told when deliveries were queued (a resend), so the worker looks at once. */
  onQueued?: () => void;
}) {
  const { sql, logger, box } = deps;

  const openHeaders = (sealed: string | null): CustomHeader[] => (sealed ? (JSON.parse(box.open(sealed)) as CustomHeader[]) : []);

  /** The endpoint's headers changed by `change` under its row lock, sealed again and audited as `action`. */
  async function changeHeaders(
    storeId: string,
    endpointId: string,
    actor: Actor,
    action: "endpoint.header_set" | "endpoint.header_removed",
    change: (headers: CustomHeader[]) => CustomHeader[],
  ): Promise<EndpointRow | undefined> {
    const changed = await transaction(sql, async (tx) => {
      const endpoint = await lockEndpoint(tx, storeId, endpointId);
      if (!endpoint) return undefined;
      const before = openHeaders(endpoint.headers_sealed);
      const headers = change(before);
      const updated = await setEndpointHeaders(tx, endpointId, headers.map((header) => header.name), headers.length > 0 ? box.seal(JSON.stringify(headers)) : null);
      const changes = headerChanges(before, headers);
      await insertAudit(tx, [auditEntry(storeId, actor, action, auditTarget("endpoint", endpointId), { label: updated.url, changes })]);
      return updated;
    });
    // Names only: values are credentials.
    if (changed) logger.info({ storeId, endpointId, headers: changed.header_names }, "webhook endpoint headers changed");
    return changed;
  }

  /** Retires the endpoint's secrets (now, or at `until`) and adds a new one; the new secret. */
  async function newSecret(tx: Db, endpointId: string, sealed: string, until?: Date) {
    if (until) await retireSecretsAt(tx, endpointId, until);
    else await retireSecretsNow(tx, endpointId);
    await insertSecret(tx, endpointId, sealed);
  }

  return {
    /**
     * For a store with at most one endpoint of the mode: creates it (every event type, in
     * that mode), or sets its URL, enables it again and replaces its secret (the old ones
     * stop at once). FAILED_PRECONDITION when the store has several of that mode.
     */
    async set(storeId: string, rawUrl: string, actor: Actor, livemode = true): Promise<{ endpoint: EndpointRow; secret: string }> {
      const url = checkEndpointUrl(rawUrl, deps.allowHttp).toString();
      const secret = generateSecret();
      const sealed = box.seal(secret);
      const endpoint = await transaction(sql, async (tx) => {
        const existing = (await lockEndpointsOfStore(tx, storeId)).filter((endpoint) => endpoint.livemode === livemode);
        if (existing.length > 1) throw severalEndpoints(storeId, existing.length);
        // Its row locked, so the entry says what the change replaced.
        const before = existing[0] && (await lockEndpoint(tx, storeId, existing[0].id));
        const endpoint = before
          ? (await updateEndpoint(tx, storeId, before.id, { url, enabled: true }))!
          : await insertEndpoint(tx, { store_id: storeId, url, description: "", event_types: null, livemode });
        await newSecret(tx, endpoint.id, sealed);
        const entry = before
          ? auditEntry(storeId, actor, "endpoint.updated", auditTarget("endpoint", endpoint.id), { label: url, changes: fieldChanges(auditedSettings(before), auditedSettings(endpoint)) })
          : auditEntry(storeId, actor, "endpoint.created", auditTarget("endpoint", endpoint.id), { label: url });
        await insertAudit(tx, [entry]);
        return endpoint;
      });
      logger.info({ storeId, endpointId: endpoint.id, host: new URL(url).host }, "webhook endpoint set");
      return { endpoint, secret };
    },

    /** A new endpoint with a new secret (shown this once); FAILED_PRECONDITION past 10 a store. */
    async create(
      storeId: string,
      input: { url: string; description: string; events: Subscription | undefined; livemode?: boolean },
      actor: Actor,
    ): Promise<{ endpoint: EndpointRow; secret: string }> {
      const url = checkEndpointUrl(input.url, deps.allowHttp).toString();
      const description = checkDescription(input.description);
      const eventTypes = subscribedTypes(input.events);
      const secret = generateSecret();
      const sealed = box.seal(secret);
      const endpoint = await transaction(sql, async (tx) => {
        const existing = await lockEndpointsOfStore(tx, storeId);
        if (existing.length >= MAX_ENDPOINTS_PER_STORE) {
          throw new ConnectError(`a store has at most ${MAX_ENDPOINTS_PER_STORE} webhook endpoints`, Code.FailedPrecondition);
        }
        const endpoint = await insertEndpoint(tx, { store_id: storeId, url, description, event_types: eventTypes, livemode: input.livemode ?? true });
        await insertSecret(tx, endpoint.id, sealed);
        await insertAudit(tx, [auditEntry(storeId, actor, "endpoint.created", auditTarget("endpoint", endpoint.id), { label: url })]);
        return endpoint;
      });
      logger.info({ storeId, endpointId: endpoint.id, host: new URL(url).host, eventTypes }, "webhook endpoint created");
      return { endpoint, secret };
    },

    /** The store's endpoints of one mode (live unless `livemode` is false). */
    async list(storeId: string, livemode = true): Promise<EndpointRow[]> {
      return listEndpoints(sql, storeId, livemode);
    },

    /** Undefined when the store has no such endpoint (of the mode, when one is given). */
    async get(storeId: string, endpointId: string, livemode?: boolean): Promise<EndpointRow | undefined> {
      const endpoint = await endpointOfStore(sql, storeId, endpointId);
      return endpoint && ofMode(endpoint, livemode) ? endpoint : undefined;
    },

    /** Changes the fields given; undefined when the store has no such endpoint (of the mode, when one is given). */
    async update(storeId: string, endpointId: string, update: EndpointUpdate, actor: Actor, livemode?: boolean): Promise<EndpointRow | undefined> {
      const changes: EndpointChanges = {};
      if (update.url !== undefined) changes.url = checkEndpointUrl(update.url, deps.allowHttp).toString();
      if (update.description !== undefined) changes.description = checkDescription(update.description);
      if (update.events !== undefined) changes.event_types = subscribedTypes(update.events);
      if (update.maxPerSecond !== undefined) changes.max_per_second = update.maxPerSecond;
      if (update.enabled !== undefined) {
        changes.enabled = update.enabled;
        changes.disabled_reason = DISABLED_BY_STORE;
      }
      if (update.resendFailedSince !== undefined && update.enabled === false) {
        throw fieldErrors([{ field: "resend_failed_since", description: "a disabled endpoint receives nothing; enable it to resend" }]);
      }
      // Nothing to change: not even updated_at moves.
      if (Object.keys(changes).length === 0 && update.resendFailedSince === undefined) {
        const endpoint = await endpointOfStore(sql, storeId, endpointId);
        return endpoint && ofMode(endpoint, livemode) ? endpoint : undefined;
      }
      // Turning it on or off is its own action in the log; any other change is an update.
      const action = Object.keys(changes).length === 2 && update.enabled !== undefined ? (update.enabled ? "endpoint.enabled" : "endpoint.disabled") : "endpoint.updated";
      const done = await transaction(sql, async (tx) => {
        // The row lock first, so the resend sees the endpoint as this change leaves it.
        const current = await lockEndpoint(tx, storeId, endpointId);
        if (!current || !ofMode(current, livemode)) return undefined;
        const changed = Object.keys(changes).length > 0 ? await updateEndpoint(tx, storeId, endpointId, changes) : current;
        if (!changed) return undefined;
        if (Object.keys(changes).length > 0) {
          const fields = fieldChanges(auditedSettings(current), auditedSettings(changed));
          await insertAudit(tx, [auditEntry(storeId, actor, action, auditTarget("endpoint", endpointId), { label: changed.url, changes: fields })]);
        }
        let resent: number | undefined;
        if (update.resendFailedSince !== undefined) {
          if (!changed.enabled) throw new ConnectError(`endpoint ${endpointId} is disabled: enable it to resend`, Code.FailedPrecondition);
          resent = await insertResendDeliveries(tx, changed, update.resendFailedSince);
          await insertAudit(tx, [auditEntry(storeId, actor, "events.replayed", auditTarget("endpoint", endpointId), { label: changed.url })]);
        }
        return { endpoint: changed, resent };
      });
      if (!done) return undefined;
      logger.info({ storeId, endpointId, changed: Object.keys(update), ...(done.resent !== undefined ? { resent: done.resent } : {}) }, "webhook endpoint updated");
      if (done.resent) deps.onQueued?.();
      return done.endpoint;
    },

    /**
     * Deletes the endpoint: it is kept only as the owner of its deliveries' history.
     * Its secrets are forgotten and its pending deliveries end as failed, so nothing
     * more is sent to it. Undefined when the store has no such endpoint.
     */
    async remove(storeId: string, endpointId: string, actor: Actor): Promise<EndpointRow | undefined> {
      const removed = await transaction(sql, async (tx) => {
        // The row lock first: a delivery recorded or queued for it meanwhile is either
        // in before (and failed below) or sees it deleted.
        const current = await lockEndpoint(tx, storeId, endpointId);
        if (!current) return undefined;
        const endpoint = await markEndpointDeleted(tx, storeId, endpointId);
        const dropped = await failPendingDeliveries(tx, endpointId, "endpoint deleted");
        await deleteSecrets(tx, endpointId);
        await insertAudit(tx, [auditEntry(storeId, actor, "endpoint.deleted", auditTarget("endpoint", endpointId), { label: current.url })]);
        return endpoint && { endpoint, dropped };
      });
      if (!removed) return undefined;
      logger.info({ storeId, endpointId, droppedDeliveries: removed.dropped }, "webhook endpoint deleted");
      return removed.endpoint;
    },

    /**
     * Sets a custom header (docs/webhooks.md#custom-headers; the rule is common/webhook-headers.ts), audited
     * with the change. INVALID_ARGUMENT names header_name or header_value; undefined
     * when the store has no such endpoint.
     */
    async setHeader(storeId: string, endpointId: string, header: CustomHeader, actor: Actor): Promise<EndpointRow | undefined> {
      return changeHeaders(storeId, endpointId, actor, "endpoint.header_set", (headers) => {
        try {
          return withHeader(headers, header);
        } catch (error) {
          if (error instanceof HeaderError) throw fieldError(error.field, error.problem);
          throw error;
        }
      });
    },

    /** Removes the custom header of that name (any case); NOT_FOUND when there is none. */
    async removeHeader(storeId: string, endpointId: string, name: string, actor: Actor): Promise<EndpointRow | undefined> {
      return changeHeaders(storeId, endpointId, actor, "endpoint.header_removed", (headers) => {
        const left = headers.filter((header) => header.name.toLowerCase() !== name.toLowerCase());
        if (left.length === headers.length) throw new ConnectError(`endpoint ${endpointId} has no header ${name}`, Code.NotFound);
        return left;
      });
    },

    /** The custom headers with their values; the reveal is audited before they leave, as a secret's is. */
    async revealHeaders(storeId: string, endpointId: string, actor: Actor): Promise<CustomHeader[] | undefined> {
      const sealed = await transaction(sql, async (tx) => {
        const endpoint = await endpointOfStore(tx, storeId, endpointId);
        if (!endpoint) return undefined;
        await insertAudit(tx, [auditEntry(storeId, actor, "endpoint.headers_revealed", auditTarget("endpoint", endpointId), { label: endpoint.url })]);
        return endpoint.headers_sealed;
      });
      if (sealed === undefined) return undefined;
      logger.info({ storeId, endpointId }, "webhook endpoint headers revealed");
      return openHeaders(sealed);
    },

    /**
     * The secret that signs now (the newest); undefined when the store has no such
     * endpoint. The reveal is in the audit log before the secret leaves: both commit
     * together, or the secret is not shown.
     */
    async reveal(storeId: string, endpointId: string, actor: Actor): Promise<string | undefined> {
      const newest = await transaction(sql, async (tx) => {
        const endpoint = await endpointOfStore(tx, storeId, endpointId);
        if (!endpoint) return undefined;
        const [secret] = await liveSecrets(tx, endpoint.id);
        if (!secret) throw new ConnectError(`endpoint ${endpointId} has no secret`, Code.FailedPrecondition);
        await insertAudit(tx, [auditEntry(storeId, actor, "endpoint.secret_revealed", auditTarget("endpoint", endpointId), { label: endpoint.url })]);
        return secret;
      });
      if (newest === undefined) return undefined;
      logger.info({ storeId, endpointId }, "webhook secret revealed");
      return box.open(newest);
    },

    /**
     * A new secret for the endpoint (without an id: the store's only one); the current
     * ones keep signing until `previousExpiresAt`. Undefined when there is no such
     * endpoint; FAILED_PRECONDITION without an id when the store has several.
     */
    async rotate(
      storeId: string,
      endpointId: string | undefined,
      actor: Actor,
    ): Promise<{ endpoint: EndpointRow; secret: string; previousExpiresAt: Date } | undefined> {
      const secret = generateSecret();
      const sealed = box.seal(secret);
      const rotated = await transaction(sql, async (tx) => {
        let endpoint: EndpointRow | undefined;
        if (endpointId) endpoint = await lockEndpoint(tx, storeId, endpointId);
        else {
          const existing = await lockEndpointsOfStore(tx, storeId);
          if (existing.length > 1) throw severalEndpoints(storeId, existing.length);
          endpoint = existing[0] && (await lockEndpoint(tx, storeId, existing[0].id));
        }
        if (!endpoint) return undefined;
        const until = new Date(Date.now() + deps.rotationOverlapMs);
        await newSecret(tx, endpoint.id, sealed, until);
        await insertAudit(tx, [auditEntry(storeId, actor, "endpoint.secret_rotated", auditTarget("endpoint", endpoint.id), { label: endpoint.url })]);
        return { endpoint, previousExpiresAt: until };
      });
      if (!rotated) return undefined;
      logger.info({ storeId, endpointId: rotated.endpoint.id }, "webhook secret rotated");
      return { ...rotated, secret };
    },
  };
}

export type Endpoints = ReturnType<typeof createEndpoints>;
