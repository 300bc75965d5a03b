// An in-memory stand-in for services/webhook/store.ts: the same functions with the
// same answers (one endpoint per store, secrets that expire, one delivery per event
// and endpoint, store-scoped lookups), no database. The `db` argument is ignored;
// `transaction` rolls its changes back when `work` throws. Leasing is simplified:
// nothing runs two instances here.
import { randomUUID } from "node:crypto";
import type { WebhookStore } from "../../services/webhook/domain.js";
import type { AttemptRow, DeliveryRow, DueDelivery, EndpointRow, Pool } from "../../services/webhook/store.js";

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
  deliveries: Map<string, DeliveryRecord>;
  attempts: AttemptRow[];
}

export function createFakeWebhookStore() {
  let state: State = { endpoints: new Map(), secrets: [], deliveries: new Map(), attempts: [] };
  let last = 0;
  // Strictly increasing creation times, so "newest first" is well defined.
  const stamp = () => new Date((last = Math.max(Date.now(), last + 1)));
  const live = (row: SecretRow, at = Date.now()) => row.expires_at === null || row.expires_at.getTime() > at;
  const copy = (from: State): State => ({
    endpoints: new Map([...from.endpoints].map(([id, row]) => [id, { ...row }])),
    secrets: from.secrets.map((row) => ({ ...row })),
    deliveries: new Map([...from.deliveries].map(([id, row]) => [id, { ...row }])),
    attempts: from.attempts.map((row) => ({ ...row })),
  });
  const deliveryRow = ({ leased_until: _lease, ...row }: DeliveryRecord): DeliveryRow => ({ ...row });
  const endpointOf = (storeId: string) => [...state.endpoints.values()].find((e) => e.store_id === storeId);

  const store: WebhookStore = {
    async transaction(pool, work) {
      const before = copy(state);
      try {
        return await work(pool);
      } catch (error) {
        state = before;
        throw error;
      }
    },
    async ping() {},

    async upsertEndpoint(_db, storeId, url) {
      let row = endpointOf(storeId);
      if (row) Object.assign(row, { url, enabled: true, disabled_reason: null });
      else {
        row = { id: randomUUID(), store_id: storeId, url, enabled: true, disabled_reason: null, created_at: stamp() };
        state.endpoints.set(row.id, row);
      }
      return { ...row };
    },
    async endpointOfStore(_db, storeId) {
      const row = endpointOf(storeId);
      return row && { ...row };
    },
    async lockEndpointOfStore(_db, storeId) {
      const row = endpointOf(storeId);
      return row && { ...row };
    },
    async disableEndpoint(_db, endpointId, reason) {
      const row = state.endpoints.get(endpointId);
      if (row) Object.assign(row, { enabled: false, disabled_reason: reason });
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
      return state.secrets
        .filter((row) => row.endpoint_id === endpointId && live(row))
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())
        .map((row) => row.secret);
    },

    async insertDelivery(_db, delivery) {
      const exists = [...state.deliveries.values()].some((d) => d.endpoint_id === delivery.endpoint_id && d.event_id === delivery.event_id);
      if (exists) return false;
      const row: DeliveryRecord = {
        id: randomUUID(),
        ...delivery,
        status: "pending",
        attempts: 0,
        next_attempt_at: new Date(),
        leased_until: null,
        last_error: null,
        created_at: stamp(),
      };
      state.deliveries.set(row.id, row);
      return true;
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
        return { ...deliveryRow(d), url: endpoint.url, enabled: endpoint.enabled };
      });
    },
    async releaseLease(_db, deliveryId) {
      const row = state.deliveries.get(deliveryId);
      if (row) row.leased_until = null;
    },
    async finishAttempt(_db, deliveryId, outcome) {
      const row = state.deliveries.get(deliveryId)!;
      row.attempts += 1;
      row.status = outcome.status;
      row.next_attempt_at = outcome.nextAttemptAt ?? row.next_attempt_at;
      row.leased_until = null;
      row.last_error = outcome.error ?? null;
      return row.attempts;
    },
    async insertAttempt(_db, attempt) {
      state.attempts.push({ ...attempt });
    },
    async listDeliveries(_db, storeId, orderId, limit) {
      return [...state.deliveries.values()]
        .filter((d) => d.store_id === storeId && (orderId === undefined || d.order_id === orderId))
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())
        .slice(0, limit)
        .map((d) => ({
          delivery: deliveryRow(d),
          attempts: state.attempts.filter((a) => a.delivery_id === d.id).sort((a, b) => a.number - b.number),
        }));
    },
    async requeue(_db, storeId, deliveryId) {
      const row = state.deliveries.get(deliveryId);
      if (!row || row.store_id !== storeId) return undefined;
      if (row.leased_until !== null && row.leased_until.getTime() >= Date.now()) return undefined;
      Object.assign(row, { status: "pending", next_attempt_at: new Date(), leased_until: null });
      return deliveryRow(row);
    },
  };

  return {
    store,
    /** Stands for the pool: the fake store never looks at it. */
    sql: {} as Pool,
    /** Every secret row of an endpoint, oldest first, as stored (sealed). */
    secretsOf: (endpointId: string) => state.secrets.filter((row) => row.endpoint_id === endpointId).map((row) => ({ ...row })),
  };
}
