// An in-memory stand-in for services/order/store.ts, for tests that run the order
// service's domain and routes without PostgreSQL. It keeps the rules the SQL keeps
// (unique references, one reservation per transfer amount until its time passes, kept
// after that as the amount's last use, a takeover rule for idempotency records, newest-first listing, the search's letter-case
// rules, counting a due pending order as expired, each bank mutation once per store) and
// rolls a failed transaction back.
// The `db` argument is ignored: there is one state.
import { randomUUID } from "node:crypto";
import type { OrderStore } from "../../services/order/domain.js";
import { fakeAuditStatements } from "./fake-audit-log.js";
import type {
  BankMutationRow,
  HistoryEntry,
  OrderFilter,
  OrderItemRow,
  OrderRow,
  Pool,
  AuditRow,
  RefundRow,
  SessionRow,
} from "../../services/order/db/orders.js";

interface IdempotencyRow {
  store_id: string;
  key: string;
  request_hash: string;
  order_id: string | null;
  response: Uint8Array | null;
  created_at: number;
}

interface State {
  orders: Map<string, OrderRow>;
  items: Map<string, OrderItemRow[]>;
  sessions: SessionRow[];
  history: (HistoryEntry & { created_at: Date })[];
  outbox: { id: string; store_id: string; order_id: string; event_type: string; payload: unknown; created_at: Date; published_at: Date | null }[];
  idempotency: Map<string, IdempotencyRow>;
  /** By `store/amount`; `until` is Infinity while the order is pending. */
  reservations: Map<string, { order_id: string; until: number }>;
  /** By `store/mutation id`, in insertion order. */
  mutations: Map<string, Omit<BankMutationRow, "payment_reference">>;
  /** In insertion order. */
  refunds: RefundRow[];
  /** In insertion order. */
  audit: AuditRow[];
}

const copy = <T>(value: T): T => structuredClone(value);

/** store.ts reads a pending order's reservation (infinity) as 9999-12-31. */
const FOREVER = Date.parse("9999-12-31T00:00:00Z");

/** store.ts's search: external id exactly, buyer email in any letter case, the reference as given. */
function matchesSearch(row: OrderRow, search: OrderFilter["search"]): boolean {
  if (!search) return true;
  return (
    row.external_id === search.text ||
    row.buyer_email.toLowerCase() === search.text.toLowerCase() ||
    (search.reference !== undefined && row.payment_reference === search.reference)
  );
}

export function createFakeOrderStore(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  let state: State = {
    orders: new Map(),
    items: new Map(),
    sessions: [],
    history: [],
    outbox: [],
    idempotency: new Map(),
    reservations: new Map(),
    mutations: new Map(),
    refunds: [],
    audit: [],
  };
  const idemKey = (storeId: string, key: string) => `${storeId}/${key}`;
  const withReference = (row: Omit<BankMutationRow, "payment_reference">): BankMutationRow =>
    copy({ ...row, payment_reference: row.order_id ? (state.orders.get(row.order_id)?.payment_reference ?? null) : null });

  const store: OrderStore = {
    async transaction(_pool, work) {
      const before = copy(state);
      try {
        return await work(_pool);
      } catch (error) {
        state = before;
        throw error;
      }
    },
    async ping() {},

    async insertNewOrder(_db, order, items, events, options) {
      if ([...state.orders.values()].some((row) => row.payment_reference === order.payment_reference)) {
        throw Object.assign(new Error("duplicate payment_reference"), { code: "23505" });
      }
      if (options.reserveAmount) {
        const held = state.reservations.get(`${order.store_id}/${order.amount}`);
        if (held && held.until >= now()) return undefined;
        state.reservations.set(`${order.store_id}/${order.amount}`, { order_id: order.id, until: Infinity });
      }
      const row: OrderRow = copy(order);
      state.orders.set(row.id, row);
      state.items.set(row.id, items.map((item) => ({ ...item, order_id: row.id })));
      state.history.push({ order_id: row.id, from_status: null, to_status: row.status, cause: options.cause, created_at: new Date(now()) });
      for (const event of events) state.outbox.push({ ...copy(event), created_at: new Date(now()), published_at: null });
      return copy(row);
    },
    async insertHistoryAndEvents(_db, entries, events) {
      for (const entry of entries) state.history.push({ ...entry, created_at: new Date(now()) });
      for (const event of events) state.outbox.push({ ...copy(event), created_at: new Date(now()), published_at: null });
    },
    async findOrder(_db, id, options = {}) {
      const row = state.orders.get(id);
      return row && (!options.storeId || row.store_id === options.storeId) ? copy(row) : undefined;
    },
    async findOrderWithItems(_db, id, options = {}) {
      const row = state.orders.get(id);
      if (!row || (options.storeId && row.store_id !== options.storeId)) return undefined;
      return { row: copy(row), items: copy(state.items.get(id) ?? []), refunds: copy(state.refunds.filter((refund) => refund.order_id === id)) };
    },
    async findOrderByReference(_db, reference, _forUpdate, storeId) {
      const row = [...state.orders.values()].find(
        (candidate) => candidate.payment_reference === reference && (!storeId || candidate.store_id === storeId),
      );
      return row && copy(row);
    },
    async itemsOf(_db, orderIds) {
      return new Map(orderIds.map((id) => [id, copy(state.items.get(id) ?? [])]));
    },
    async listOrders(_db, storeId, limit, offset, filter = {}, cursor) {
      // The fake keeps milliseconds; its cursor_at is the ISO time padded to microseconds.
      const at = (row: OrderRow) => row.created_at.toISOString().replace("Z", "000Z");
      // A due pending order is listed, filtered and shown as expired, as store.ts does.
      const seenAs = (row: OrderRow): OrderRow => (row.status === "pending" && row.expires_at.getTime() <= now() ? { ...row, status: "expired" } : row);
      const rows = [...state.orders.values()]
        .map(seenAs)
        .filter((row) => row.store_id === storeId && (!filter.status || row.status === filter.status) && matchesSearch(row, filter.search))
        .filter((row) => !cursor || at(row) < cursor.at || (at(row) === cursor.at && row.id < cursor.id))
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1))
        .slice(offset, offset + limit + 1);
      return { rows: copy(rows.slice(0, limit)).map((row) => ({ ...row, cursor_at: at(row) })), hasMore: rows.length > limit };
    },
    async orderPlace(_db, storeId, orderId) {
      const row = state.orders.get(orderId);
      return row && row.store_id === storeId ? { at: row.created_at.toISOString().replace("Z", "000Z"), id: row.id } : undefined;
    },
    async countOrders(_db, storeId, status) {
      const seenAs = (row: OrderRow) => (row.status === "pending" && row.expires_at.getTime() <= now() ? "expired" : row.status);
      return [...state.orders.values()].filter((row) => row.store_id === storeId && (!status || seenAs(row) === status)).length;
    },
    async historyOf(_db, orderId) {
      return copy(
        state.history
          .filter((entry) => entry.order_id === orderId)
          .map(({ from_status, to_status, cause, detail, created_at }) => ({ from_status, to_status, cause, detail: detail ?? null, created_at })),
      );
    },
    async transferAmountUse(_db, storeId, low, high) {
      const uses = [...state.reservations.entries()]
        .filter(([key]) => key.startsWith(`${storeId}/`))
        .map(([key, held]) => ({ amount: Number(key.slice(storeId.length + 1)), reserved_until: new Date(Math.min(held.until, FOREVER)) }))
        .filter((use) => use.amount >= low && use.amount <= high);
      return { now: new Date(now()), uses };
    },
    async holdTransferAmounts(_db, holds) {
      for (const { orderId, until } of holds) {
        for (const held of state.reservations.values()) {
          if (held.order_id === orderId) held.until = until.getTime();
        }
      }
    },
    async transferOrdersFor(_db, storeId, amount, occurredAt, graceMs) {
      const since = occurredAt.getTime() - graceMs;
      const ofAmount = [...state.orders.values()].filter(
        (row) => row.store_id === storeId && row.payment_kind === "bank_transfer" && row.amount === amount,
      );
      const before = ofAmount
        .filter(
          (row) =>
            row.created_at < occurredAt &&
            (row.status === "pending" ||
              (row.status === "expired" && row.expires_at.getTime() >= since) ||
              (["cancelled", "paid", "refunded"].includes(row.status) && row.updated_at.getTime() >= since)),
        )
        .sort(
          (a, b) =>
            Number(["pending", "expired"].includes(b.status)) - Number(["pending", "expired"].includes(a.status)) ||
            b.created_at.getTime() - a.created_at.getTime(),
        )
        .slice(0, 10);
      const after = ofAmount.filter((row) => row.created_at >= occurredAt).sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
      return copy([...before, ...after.slice(0, 1)]);
    },
    async salesSummary(_db, storeId, starts) {
      const mine = [...state.orders.values()].filter((o) => o.store_id === storeId);
      const paidSince = (since: Date) => mine.filter((o) => o.paid_at && o.paid_at >= since);
      const sum = (rows: { amount: number }[]) => rows.reduce((total, row) => total + row.amount, 0);
      const pending = mine.filter((o) => o.status === "pending" && o.expires_at.getTime() > now());
      const days = new Map<string, number>();
      for (const o of paidSince(starts.chart)) {
        const day = new Date(o.paid_at!.getTime() + 7 * 3_600_000).toISOString().slice(0, 10);
        days.set(day, (days.get(day) ?? 0) + o.amount);
      }
      return {
        today_count: paidSince(starts.today).length,
        today_amount: sum(paidSince(starts.today)),
        month_count: paidSince(starts.month).length,
        month_amount: sum(paidSince(starts.month)),
        pending_count: pending.length,
        pending_amount: sum(pending),
        days: [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, amount]) => ({ day, amount })),
      };
    },
    async updateStatuses(_db, changes, status) {
      const written = new Map<string, OrderRow>();
      for (const { id, expireAtGateway } of changes) {
        const row = state.orders.get(id)!;
        // updated_at moves forward even within one millisecond, as clock_timestamp() does.
        const updated = {
          ...row,
          status,
          updated_at: new Date(Math.max(now(), row.updated_at.getTime() + 1)),
          next_status_check_at: null,
          gateway_expire_at: expireAtGateway ? new Date(now()) : row.gateway_expire_at,
          paid_at: status === "paid" ? new Date(now()) : row.paid_at,
        };
        state.orders.set(id, updated);
        written.set(id, copy(updated));
      }
      return written;
    },
    async addRefundedAmount(_db, id, amount) {
      const row = state.orders.get(id)!;
      if (row.refunded_amount + amount > row.amount) throw Object.assign(new Error("refunded_amount over amount"), { code: "23514" });
      const updated = { ...row, refunded_amount: row.refunded_amount + amount, updated_at: new Date(Math.max(now(), row.updated_at.getTime() + 1)) };
      state.orders.set(id, updated);
      return copy(updated);
    },
    async insertEvents(_db, events) {
      for (const event of events) state.outbox.push({ ...copy(event), created_at: new Date(now()), published_at: null });
    },
    async claimDueStatusChecks(_db, limit, leaseMs) {
      const due = [...state.orders.values()]
        .filter((row) => row.status === "pending" && row.next_status_check_at !== null && row.next_status_check_at.getTime() <= now())
        .sort((a, b) => a.next_status_check_at!.getTime() - b.next_status_check_at!.getTime())
        .slice(0, limit);
      for (const row of due) row.next_status_check_at = new Date(now() + leaseMs);
      return copy(due);
    },
    async scheduleStatusCheck(_db, id, at, counted) {
      const row = state.orders.get(id);
      if (!row || row.status !== "pending") return;
      row.next_status_check_at = at;
      if (counted) row.status_checks++;
    },
    async claimDueGatewayExpiries(_db, limit, leaseMs) {
      const due = [...state.orders.values()]
        .filter((row) => row.gateway_expire_at !== null && row.gateway_expire_at.getTime() <= now())
        .sort((a, b) => a.gateway_expire_at!.getTime() - b.gateway_expire_at!.getTime())
        .slice(0, limit);
      for (const row of due) row.gateway_expire_at = new Date(now() + leaseMs);
      return copy(due);
    },
    async setGatewayExpireAt(_db, id, at) {
      const row = state.orders.get(id);
      if (row) row.gateway_expire_at = at;
    },

    async refundsOf(_db, orderIds) {
      return new Map(orderIds.map((id) => [id, copy(state.refunds.filter((refund) => refund.order_id === id))]));
    },
    async insertRefund(_db, refund) {
      const taken = state.refunds.some(
        (other) =>
          (refund.idempotency_key !== null && other.store_id === refund.store_id && other.idempotency_key === refund.idempotency_key) ||
          (refund.gateway_key !== null && other.order_id === refund.order_id && other.gateway_key === refund.gateway_key),
      );
      if (taken) return undefined;
      const at = new Date(now());
      const row: RefundRow = { ...copy(refund), failure_message: null, response: null, attempts: 0, created_at: at, updated_at: at };
      state.refunds.push(row);
      return copy(row);
    },
    async findRefund(_db, id) {
      const row = state.refunds.find((refund) => refund.id === id);
      return row && copy(row);
    },
    async findRefundByIdempotencyKey(_db, storeId, key) {
      const row = state.refunds.find((refund) => refund.store_id === storeId && refund.idempotency_key === key);
      return row && copy(row);
    },
    async settleRefund(_db, id, outcome, from = ["pending"]) {
      const row = state.refunds.find((refund) => refund.id === id);
      if (!row || !from.includes(row.status)) return undefined;
      const key = outcome.gateway_key;
      const keyTaken = key !== undefined && state.refunds.some((other) => other.order_id === row.order_id && other.gateway_key === key);
      Object.assign(row, {
        status: outcome.status,
        failure_message: outcome.failure_message ?? null,
        next_attempt_at: null,
        updated_at: new Date(now()),
        gateway_key: key === undefined || keyTaken ? row.gateway_key : key,
      });
      return copy(row);
    },
    async retryRefundAt(_db, id, at) {
      const row = state.refunds.find((refund) => refund.id === id);
      if (row && row.status === "pending") Object.assign(row, { attempts: row.attempts + 1, next_attempt_at: at, updated_at: new Date(now()) });
    },
    async keepRefundResponse(_db, id, response) {
      const row = state.refunds.find((refund) => refund.id === id);
      if (row && row.response === null) row.response = copy(response);
    },
    async claimDueRefunds(_db, limit, leaseMs) {
      const due = state.refunds
        .filter((refund) => refund.status === "pending" && refund.next_attempt_at !== null && refund.next_attempt_at.getTime() <= now())
        .sort((a, b) => a.next_attempt_at!.getTime() - b.next_attempt_at!.getTime())
        .slice(0, limit);
      for (const refund of due) refund.next_attempt_at = new Date(now() + leaseMs);
      return copy(due);
    },
    async lockDueOrders(_db, limit) {
      return copy(
        [...state.orders.values()]
          .filter((row) => row.status === "pending" && row.expires_at.getTime() <= now())
          .sort((a, b) => a.expires_at.getTime() - b.expires_at.getTime())
          .slice(0, limit),
      );
    },

    async findSessionByToken(_db, token) {
      const row = state.sessions.find((session) => session.token === token);
      return row && copy(row);
    },
    async liveSessionsOf(_db, orderIds) {
      const live = new Map<string, SessionRow>();
      for (const session of state.sessions) {
        if (!orderIds.includes(session.order_id) || session.expires_at.getTime() <= now()) continue;
        const known = live.get(session.order_id);
        if (!known || known.created_at <= session.created_at) live.set(session.order_id, copy(session));
      }
      return live;
    },
    async insertSession(_db, session) {
      const row: SessionRow = { ...session, id: randomUUID(), created_at: new Date(now()) };
      state.sessions.push(row);
      return copy(row);
    },

    async tryClaimIdempotencyKey(_db, storeId, key, requestHash, rule) {
      const existing = state.idempotency.get(idemKey(storeId, key));
      const age = existing ? (now() - existing.created_at) / 1000 : 0;
      const gone = existing && (age > rule.keepSeconds || (existing.response === null && existing.order_id === null && age > rule.staleSeconds));
      if (existing && !gone) return false;
      state.idempotency.set(idemKey(storeId, key), { store_id: storeId, key, request_hash: requestHash, order_id: null, response: null, created_at: now() });
      return true;
    },
    async findIdempotencyRecord(_db, storeId, key, staleSeconds) {
      const row = state.idempotency.get(idemKey(storeId, key));
      if (!row) return undefined;
      return { request_hash: row.request_hash, response: row.response && copy(row.response), order_id: row.order_id, stale: (now() - row.created_at) / 1000 > staleSeconds };
    },
    async attachIdempotencyOrder(_db, storeId, key, orderId) {
      const row = state.idempotency.get(idemKey(storeId, key));
      if (!row || row.order_id !== null) return false;
      row.order_id = orderId;
      return true;
    },
    async completeIdempotencyKey(_db, storeId, key, orderId, response) {
      const row = state.idempotency.get(idemKey(storeId, key));
      if (row) Object.assign(row, { order_id: orderId, response: copy(response) });
    },
    async releaseIdempotencyKey(_db, storeId, key) {
      const row = state.idempotency.get(idemKey(storeId, key));
      if (row && row.response === null && row.order_id === null) state.idempotency.delete(idemKey(storeId, key));
    },
    async purgeIdempotencyKeys(_db, keepSeconds) {
      for (const [id, row] of state.idempotency) if ((now() - row.created_at) / 1000 > keepSeconds) state.idempotency.delete(id);
    },

    async insertMutation(_db, mutation) {
      const key = `${mutation.store_id}/${mutation.mutation_id}`;
      if (state.mutations.has(key)) return false;
      state.mutations.set(key, { ...copy(mutation), reason: "", order_id: null, reviewed_at: null });
      return true;
    },
    async findMutation(_db, storeId, mutationId) {
      const row = state.mutations.get(`${storeId}/${mutationId}`);
      return row && withReference(row);
    },
    async settleMutation(_db, storeId, mutationId, outcome) {
      const row = state.mutations.get(`${storeId}/${mutationId}`)!;
      Object.assign(row, { status: outcome.status, reason: outcome.reason ?? "", order_id: outcome.order_id ?? null });
      if (outcome.reviewed) row.reviewed_at = new Date(now());
      return withReference(row);
    },
    async listMutations(_db, storeId, options) {
      return [...state.mutations.values()]
        .filter((row) => row.store_id === storeId && (!options.review || row.status === "unmatched"))
        .sort((a, b) => b.received_at.getTime() - a.received_at.getTime() || b.request_position - a.request_position)
        .slice(0, options.limit)
        .map(withReference);
    },
    async countUnreviewedMutations(_db, storeId) {
      return [...state.mutations.values()].filter((row) => row.store_id === storeId && row.status === "unmatched").length;
    },

    ...fakeAuditStatements(() => state.audit, now),

    async lockUnsentEvents(_db, limit) {
      return copy(state.outbox.filter((event) => event.published_at === null).slice(0, limit));
    },
    async markEventsSent(_db, ids) {
      for (const event of state.outbox) if (ids.includes(event.id)) event.published_at = new Date(now());
    },
    async deletePublishedEvents(_db, keepSeconds, limit) {
      const cutoff = now() - keepSeconds * 1000;
      const gone = new Set(
        state.outbox
          .filter((event) => event.published_at !== null && event.published_at.getTime() < cutoff)
          .sort((a, b) => a.published_at!.getTime() - b.published_at!.getTime())
          .slice(0, limit),
      );
      state.outbox = state.outbox.filter((event) => !gone.has(event));
      return gone.size;
    },
    async outboxBacklog() {
      const waiting = state.outbox.filter((event) => event.published_at === null);
      const oldest = waiting.reduce((min, event) => Math.min(min, event.created_at.getTime()), Infinity);
      return { count: waiting.length, oldestSeconds: waiting.length ? (now() - oldest) / 1000 : 0 };
    },
  };

  return {
    store,
    /** Stands in for the pool: the fake store never looks at it. */
    pool: {} as Pool,
    /** What was written, for assertions. */
    get state(): Readonly<State> {
      return state;
    },
  };
}

export type FakeOrderStore = ReturnType<typeof createFakeOrderStore>;
