// An in-memory stand-in for services/webhook/store.ts: the same functions with the
// same answers (up to ten live endpoints per store, soft-deleted endpoints that no
// lookup finds, secrets that expire, an event log, one `event` delivery per event and
// endpoint, store-scoped lookups, batched purges), no database. The `db` argument is
// ignored; `transaction` rolls its changes back when `work` throws. Locks and leasing
// are simplified: nothing runs two instances here.
import { randomUUID } from "node:crypto";
import type { WebhookStore } from "../../services/webhook/domain.js";
import { attemptHour } from "../../services/webhook/health-window.js";
import type { AttemptRow, AuditRow, DeliveryRow, DueDelivery, EndpointRow, EventRow, NewEvent, Pool } from "../../services/webhook/db/deliveries.js";
import { fakeAuditStatements } from "./fake-audit-log.js";

interface SecretRow {
  endpoint_id: string;
  secret: string;
  created_at: Date;
  expires_at: Date | null;
}

interface DeliveryRecord extends DeliveryRow {
  leased_until: Date | null;
}

interface State {
  endpoints: Map<string, EndpointRow>;
  secrets: SecretRow[];
  events: Map<string, EventRow>;
  deliveries: Map<string, DeliveryRecord>;
  attempts: AttemptRow[];
  audit: AuditRow[];
}

export function createFakeWebhookStore() {
  let state: State = { endpoints: new Map(), secrets: [], events: new Map(), deliveries: new Map(), attempts: [], audit: [] };
  let last = 0;
  // Strictly increasing creation times, so "newest first" is well defined.
  const stamp = () => new Date((last = Math.max(Date.now(), last + 1)));
  const live = (row: SecretRow, at = Date.now()) => row.expires_at === null || row.expires_at.getTime() > at;
  const liveSecretsOf = (endpointId: string) =>
    state.secrets
      .filter((row) => row.endpoint_id === endpointId && live(row))
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())
      .map((row) => row.secret);
  const copy = (from: State): State => ({
    endpoints: new Map([...from.endpoints].map(([id, row]) => [id, { ...row, event_types: row.event_types && [...row.event_types] }])),
    secrets: from.secrets.map((row) => ({ ...row })),
    events: new Map([...from.events].map(([id, row]) => [id, { ...row }])),
    deliveries: new Map([...from.deliveries].map(([id, row]) => [id, { ...row }])),
    attempts: from.attempts.map((row) => ({ ...row })),
    audit: from.audit.map((row) => ({ ...row })),
  });
  const deliveryRow = ({ leased_until: _lease, ...row }: DeliveryRecord): DeliveryRow => ({ ...row });
  const endpointRow = (row: EndpointRow): EndpointRow => ({ ...row, event_types: row.event_types && [...row.event_types] });
  const liveEndpoint = (storeId: string, endpointId: string) => {
    const row = state.endpoints.get(endpointId);
    return row && row.store_id === storeId && row.deleted_at === null ? row : undefined;
  };
  const liveEndpointsOf = (storeId: string) =>
    [...state.endpoints.values()]
      .filter((e) => e.store_id === storeId && e.deleted_at === null)
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id));
  const receives = (endpoint: EndpointRow, type: string) => endpoint.event_types === null || endpoint.event_types.includes(type);
  const byCreatedDesc = (a: { created_at: Date; id: string }, b: { created_at: Date; id: string }) =>
    b.created_at.getTime() - a.created_at.getTime() || a.id.localeCompare(b.id);
  const byCreatedAsc = (a: { created_at: Date; id: string }, b: { created_at: Date; id: string }) =>
    a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id);
  const attemptsOf = (deliveryId: string) => state.attempts.filter((a) => a.delivery_id === deliveryId).sort((a, b) => a.number - b.number).map((a) => ({ ...a }));
  const addDelivery = (delivery: Omit<DeliveryRow, "id" | "status" | "attempts" | "next_attempt_at" | "last_error" | "created_at" | "updated_at">) => {
    const created = stamp();
    const row: DeliveryRecord = {
      id: randomUUID(),
      ...delivery,
      status: "pending",
      attempts: 0,
      // Due now, not at the stamp: a stamp may run ahead of the clock.
      next_attempt_at: new Date(),
      leased_until: null,
      last_error: null,
      created_at: created,
      updated_at: created,
    };
    state.deliveries.set(row.id, row);
    return row;
  };

  const store: WebhookStore = {
    ...fakeAuditStatements(() => state.audit),
    async transaction(pool, work) {
      const before = copy(state);
      try {
        return await work(pool);
      } catch (error) {
        state = before;
        throw error;
      }
    },
    async countWaitingDeliveries() {
      return [...state.deliveries.values()].filter((row) => row.status === "pending").length;
    },
    async ping() {},

    async lockEndpointsOfStore(_db, storeId) {
      return liveEndpointsOf(storeId).map(endpointRow);
    },
    async insertEndpoint(_db, endpoint) {
      const created = stamp();
      const row: EndpointRow = {
        id: randomUUID(),
        ...endpoint,
        event_types: endpoint.event_types && [...endpoint.event_types],
        enabled: true,
        disabled_reason: null,
        created_at: created,
        updated_at: created,
        deleted_at: null,
        failing_since: null,
        failed_from: null,
        header_names: [],
        headers_sealed: null,
        max_per_second: null,
      };
      state.endpoints.set(row.id, row);
      return endpointRow(row);
    },
    async listEndpoints(_db, storeId) {
      return liveEndpointsOf(storeId).map(endpointRow);
    },
    async endpointOfStore(_db, storeId, endpointId) {
      const row = liveEndpoint(storeId, endpointId);
      return row && endpointRow(row);
    },
    async lockEndpoint(_db, storeId, endpointId) {
      const row = liveEndpoint(storeId, endpointId);
      return row && endpointRow(row);
    },
    async updateEndpoint(_db, storeId, endpointId, changes) {
      const row = liveEndpoint(storeId, endpointId);
      if (!row) return undefined;
      if (changes.url !== undefined) row.url = changes.url;
      if (changes.description !== undefined) row.description = changes.description;
      if (changes.event_types !== undefined) row.event_types = changes.event_types && [...changes.event_types];
      if (changes.max_per_second !== undefined) row.max_per_second = changes.max_per_second;
      if (changes.enabled === true) row.disabled_reason = null;
      else if (changes.enabled === false && row.enabled) row.disabled_reason = changes.disabled_reason ?? null;
      if (changes.enabled === true && !row.enabled) row.failing_since = null;
      if (changes.enabled !== undefined) row.enabled = changes.enabled;
      row.updated_at = stamp();
      return endpointRow(row);
    },
    async markEndpointDeleted(_db, storeId, endpointId) {
      const row = liveEndpoint(storeId, endpointId);
      if (!row) return undefined;
      const now = stamp();
      Object.assign(row, { deleted_at: now, enabled: false, disabled_reason: "deleted", updated_at: now });
      return endpointRow(row);
    },
    async disableEndpoint(_db, endpointId, reason) {
      const row = state.endpoints.get(endpointId);
      if (row) Object.assign(row, { enabled: false, disabled_reason: reason, updated_at: stamp() });
    },
    async endpointHealth(_db, storeId, since) {
      const recent = state.attempts
        .map((a) => ({ a, d: state.deliveries.get(a.delivery_id)! }))
        .filter(({ a, d }) => d.store_id === storeId && attemptHour(a.started_at) >= attemptHour(since));
      const byEndpoint = new Map<string, typeof recent>();
      for (const entry of recent) byEndpoint.set(entry.d.endpoint_id, [...(byEndpoint.get(entry.d.endpoint_id) ?? []), entry]);
      return [...byEndpoint].map(([endpoint_id, entries]) => {
        const last = entries.reduce((latest, entry) => (entry.a.started_at > latest.a.started_at ? entry : latest));
        return {
          endpoint_id,
          attempts: entries.length,
          succeeded: entries.filter(({ a }) => a.result === "succeeded").length,
          last_at: last.a.started_at,
          last_result: last.a.result,
          last_status_code: last.a.status_code,
        };
      });
    },
    // Health is counted from the attempts themselves here: there are no hours to delete.
    async purgeAttemptHours() {
      return 0;
    },
    async endpointLiveForShare(_db, endpointId) {
      const row = state.endpoints.get(endpointId);
      return Boolean(row && row.enabled && !row.deleted_at);
    },
    async setEndpointHeaders(_db, endpointId, names, sealed) {
      const row = state.endpoints.get(endpointId)!;
      Object.assign(row, { header_names: [...names], headers_sealed: sealed, updated_at: stamp() });
      return endpointRow(row);
    },
    async disableFailingEndpoints(_db, before, forHowLong) {
      const due = [...state.endpoints.values()].filter((e) => e.enabled && !e.deleted_at && e.failing_since && e.failing_since <= before);
      return due.map((row) => {
        Object.assign(row, { enabled: false, disabled_reason: `every attempt failed for ${forHowLong}, since ${row.failing_since!.toISOString()}`, failed_from: row.failing_since, updated_at: stamp() });
        return { id: row.id, store_id: row.store_id, url: row.url, description: row.description, failed_from: row.failed_from! };
      });
    },
    async insertResendDeliveries(_db, endpoint, since) {
      const reached = (eventId: string) =>
        [...state.deliveries.values()].some((d) => d.endpoint_id === endpoint.id && d.event_id === eventId && (d.status === "succeeded" || d.status === "pending"));
      const events = [...state.events.values()]
        .filter((e) => e.store_id === endpoint.store_id && e.created_at >= since && receives(endpoint, e.type) && !reached(e.id))
        .sort(byCreatedAsc);
      for (const e of events) {
        addDelivery({ endpoint_id: endpoint.id, store_id: e.store_id, event_id: e.id, event_type: e.type, order_id: e.order_id, body: e.body, kind: "replay" });
      }
      return events.length;
    },
    async insertSecret(_db, endpointId, secret) {
      state.secrets.push({ endpoint_id: endpointId, secret, created_at: stamp(), expires_at: null });
    },
    async retireSecretsNow(_db, endpointId) {
      const now = new Date();
      for (const row of state.secrets) if (row.endpoint_id === endpointId && live(row, now.getTime())) row.expires_at = now;
    },
    async retireSecretsAt(_db, endpointId, until) {
      for (const row of state.secrets) {
        if (row.endpoint_id === endpointId && (row.expires_at === null || row.expires_at > until)) row.expires_at = until;
      }
    },
    async liveSecrets(_db, endpointId) {
      return liveSecretsOf(endpointId);
    },
    async deleteSecrets(_db, endpointId) {
      state.secrets = state.secrets.filter((row) => row.endpoint_id !== endpointId);
    },

    async recordEvents(_db, events: NewEvent[]) {
      // All or nothing, as the one statement is; each event once, its deliveries only if new.
      let count = 0;
      for (const event of new Map(events.map((e) => [e.id, e])).values()) {
        if (state.events.has(event.id)) continue;
        state.events.set(event.id, { ...event, created_at: stamp() });
        for (const endpoint of liveEndpointsOf(event.store_id)) {
          if (!endpoint.enabled || !receives(endpoint, event.type)) continue;
          const exists = [...state.deliveries.values()].some((d) => d.kind === "event" && d.endpoint_id === endpoint.id && d.event_id === event.id);
          if (exists) continue;
          addDelivery({ endpoint_id: endpoint.id, store_id: endpoint.store_id, event_id: event.id, event_type: event.type, order_id: event.order_id, body: event.body, kind: "event" });
          count++;
        }
      }
      return count;
    },
    async listEvents(_db, storeId, filter, limit) {
      return [...state.events.values()]
        .filter(
          (e) =>
            e.store_id === storeId &&
            e.created_at >= filter.notBefore &&
            (filter.orderId === undefined || e.order_id === filter.orderId) &&
            (filter.type === undefined || e.type === filter.type) &&
            (filter.before === undefined ||
              e.created_at < filter.before ||
              (filter.beforeId !== undefined && e.created_at.getTime() === filter.before.getTime() && e.id < filter.beforeId)),
        )
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        .slice(0, limit)
        .map((event) => ({
          event: { ...event, ...(filter.withoutBodies ? { body: "" } : {}) },
          deliveries: [...state.deliveries.values()]
            .filter((d) => d.store_id === storeId && d.event_id === event.id)
            .sort(byCreatedAsc)
            .map(deliveryRow),
        }));
    },
    async insertReplayDeliveries(_db, endpoint, since) {
      const events = [...state.events.values()]
        .filter((e) => e.store_id === endpoint.store_id && e.created_at >= since && receives(endpoint, e.type))
        .sort(byCreatedAsc);
      for (const e of events) {
        addDelivery({ endpoint_id: endpoint.id, store_id: e.store_id, event_id: e.id, event_type: e.type, order_id: e.order_id, body: e.body, kind: "replay" });
      }
      return events.length;
    },

    async insertDelivery(_db, delivery) {
      return deliveryRow(addDelivery(delivery));
    },
    async leaseDue(_db, limit, leaseMs, skipEndpoints) {
      const now = Date.now();
      const due = [...state.deliveries.values()]
        .filter(
          (d) =>
            d.status === "pending" &&
            d.next_attempt_at.getTime() <= now &&
            (d.leased_until === null || d.leased_until.getTime() < now) &&
            !skipEndpoints.includes(d.endpoint_id),
        )
        .sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime())
        .slice(0, limit);
      return due.map((d): DueDelivery => {
        d.leased_until = new Date(now + leaseMs);
        const endpoint = state.endpoints.get(d.endpoint_id)!;
        return {
          ...deliveryRow(d),
          url: endpoint.url,
          enabled: endpoint.enabled && endpoint.deleted_at === null,
          headers_sealed: endpoint.headers_sealed,
          secrets: liveSecretsOf(d.endpoint_id),
        };
      });
    },
    async releaseLease(_db, deliveryId) {
      const row = state.deliveries.get(deliveryId);
      if (row) row.leased_until = null;
    },
    async recordAttempt(_db, attempt, outcome, sent) {
      const row = state.deliveries.get(attempt.delivery_id);
      if (!row) return;
      const endpoint = sent && state.endpoints.get(sent.endpointId);
      if (endpoint) endpoint.failing_since = sent.succeeded ? null : (endpoint.failing_since ?? attempt.started_at);
      row.attempts += 1;
      row.status = outcome.status;
      row.next_attempt_at = outcome.nextAttemptAt ?? row.next_attempt_at;
      row.leased_until = null;
      row.last_error = outcome.error ?? null;
      row.updated_at = stamp();
      state.attempts.push({ ...attempt, number: row.attempts });
    },
    async failPendingDeliveries(_db, endpointId, error) {
      let count = 0;
      for (const row of state.deliveries.values()) {
        if (row.endpoint_id !== endpointId || row.status !== "pending") continue;
        Object.assign(row, { status: "failed", last_error: error, updated_at: stamp() });
        count++;
      }
      return count;
    },
    async listDeliveries(_db, storeId, filter, limit, withAttempts = true) {
      return [...state.deliveries.values()]
        .filter(
          (d) =>
            d.store_id === storeId &&
            (filter.orderId === undefined || d.order_id === filter.orderId) &&
            (filter.endpointId === undefined || d.endpoint_id === filter.endpointId) &&
            (filter.status === undefined || d.status === filter.status) &&
            (filter.eventId === undefined || d.event_id === filter.eventId),
        )
        .sort(byCreatedDesc)
        .slice(0, limit)
        .map((d) => ({ delivery: { ...deliveryRow(d), body: "" }, attempts: withAttempts ? attemptsOf(d.id) : [] }));
    },
    async getDelivery(_db, storeId, deliveryId) {
      const row = state.deliveries.get(deliveryId);
      if (!row || row.store_id !== storeId) return undefined;
      return { delivery: deliveryRow(row), attempts: attemptsOf(row.id) };
    },
    async requeue(_db, storeId, deliveryId) {
      const row = state.deliveries.get(deliveryId);
      if (!row || row.store_id !== storeId) return undefined;
      if (row.leased_until !== null && row.leased_until.getTime() >= Date.now()) return undefined;
      if (state.endpoints.get(row.endpoint_id)?.deleted_at !== null) return undefined;
      Object.assign(row, { status: "pending", next_attempt_at: new Date(), leased_until: null, updated_at: stamp() });
      return deliveryRow(row);
    },

    async purgeEvents(_db, before, batch) {
      const doomed = [...state.events.values()].filter((e) => e.created_at < before).slice(0, batch);
      for (const e of doomed) state.events.delete(e.id);
      return doomed.length;
    },
    async purgeDeliveries(_db, before, batch) {
      const doomed = new Set(
        [...state.deliveries.values()]
          .filter((d) => d.status !== "pending" && d.updated_at < before)
          .slice(0, batch)
          .map((d) => d.id),
      );
      const attempts = state.attempts.filter((a) => doomed.has(a.delivery_id)).length;
      state.attempts = state.attempts.filter((a) => !doomed.has(a.delivery_id));
      for (const id of doomed) state.deliveries.delete(id);
      return { deliveries: doomed.size, attempts };
    },
    async purgeDeletedEndpoints(_db, before, batch) {
      const doomed = [...state.endpoints.values()]
        .filter((e) => e.deleted_at !== null && e.deleted_at < before && ![...state.deliveries.values()].some((d) => d.endpoint_id === e.id))
        .slice(0, batch);
      for (const e of doomed) state.endpoints.delete(e.id);
      return doomed.length;
    },
  };

  return {
    store,
    /** Stands for the pool: the fake store never looks at it. */
    sql: {} as Pool,
    /** Every secret row of an endpoint, oldest first, as stored (sealed). */
    secretsOf: (endpointId: string) => state.secrets.filter((row) => row.endpoint_id === endpointId).map((row) => ({ ...row })),
    /** Moves a stored event (and its deliveries) back in time, as if it happened `ms` earlier. */
    age(eventId: string, ms: number) {
      const event = state.events.get(eventId);
      if (event) event.created_at = new Date(event.created_at.getTime() - ms);
      for (const d of state.deliveries.values()) {
        if (d.event_id !== eventId) continue;
        d.created_at = new Date(d.created_at.getTime() - ms);
        d.updated_at = new Date(d.updated_at.getTime() - ms);
      }
    },
    /** How many rows each table holds. */
    counts: () => ({ endpoints: state.endpoints.size, events: state.events.size, deliveries: state.deliveries.size, attempts: state.attempts.length, audit: state.audit.length }),
    /** Whether the endpoint takes deliveries, as stored. */
    enabled: (endpointId: string) => state.endpoints.get(endpointId)?.enabled,
    /** The endpoint's custom headers as stored: names in the clear, the rest sealed. */
    headersOf: (endpointId: string) => {
      const row = state.endpoints.get(endpointId);
      return { names: row?.header_names ?? [], sealed: row?.headers_sealed ?? null };
    },
  };
}
