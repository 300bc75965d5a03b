// Orders: create, read, list and change status (docs/api.md#endpoints, docs/orders.md#status-machine). This file puts the
// pieces in order; the rules live in their own modules: pricing.ts, payment-methods.ts,
// new-order.ts, idempotency.ts, payment-sessions.ts, expiry.ts, status-changes.ts,
// events.ts; the answers' messages are messages.ts.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { auditTarget, type AuditAction } from "../../common/audit.js";
import type { Actor } from "../../common/actor.js";
import { isUuid } from "../../common/ids.js";
import { auditEntry, insertAudit } from "../../platform/audit-log.js";
import type { CatalogService, StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { CreateOrderResponseSchema, type CreateOrderResponse, type Order, type OrderDetail, type StatusChange } from "../../gen/order/v1/order_pb.js";
import type { Logger } from "../../platform/logger.js";
import { metadataChangeProblems, mergeMetadata, type Metadata } from "../../common/order-metadata.js";
import { fieldErrors } from "../../platform/field-errors.js";
import { createdEvents, metadataChangeEvents } from "./events.js";
import { firstStatusCheckAt } from "./gateway-checks.js";
import { allowedActions, requireAllowed, type OrderAction } from "./order-actions.js";
import type { Expiry } from "./expiry.js";
import type { Idempotency } from "./idempotency.js";
import { draftOrder, pendingRow, withReference, type OrderDraft, type OrderRequest } from "./new-order.js";
import { choosePaymentMethod, paymentMethodsFor, type PaymentKind, type PaymentMethodInfo } from "./payment-methods.js";
import { MAX_UNIQUE_CODE, pickUniqueCode, priceItems, type OrderLine } from "./pricing.js";
import { searchFilter } from "./order-search.js";
import { checkoutUrl, renderDetail, renderHistory, renderOrder, type RenderContext } from "./messages.js";
import type { PaymentSessions } from "./payment-sessions.js";
import type { StatusChangeResult, StatusChanges } from "./status-changes.js";
import type { OrderStatus } from "./status-machine.js";
import { type Db, type Sql, transaction } from "../../platform/db.js";
import * as orderLists from "./db/order-lists.js";
import { findOrder, findOrderWithItems, historyOf, insertNewOrder, itemsOf, writeMetadata, type OrderItemRow, type OrderRow, type OrderScope } from "./db/orders.js";
import { insertEvents } from "./db/outbox.js";
import { type RefundRow, refundsOf } from "./db/refunds.js";
import { findSessionByToken, liveSessionsOf } from "./db/sessions.js";
import { transferAmountUse } from "./db/transfer-amounts.js";
import { changeCursor, FIRST_ID } from "../../common/change-cursor.js";
import { orderCursor, type ChangesPage, type ValidItem } from "./validation.js";
import { gatewayFor, sandboxServes, SIMULATED_CAUSE, simulatedStatus } from "./test-mode.js";

/** CreateOrder's request with its items checked (validation.ts). */
export type NewOrderInput = OrderRequest & { items: ValidItem[]; link?: LinkClaim };

/**
 * The payment link an order is made through (payment-links.ts): its id goes on the order,
 * and `claim` runs first in the order's transaction, refusing when the link may take no
 * more orders then.
 */
export interface LinkClaim {
  id: string;
  claim(db: Db): Promise<void>;
}

export type CheckoutKey = { case: "orderId"; value: string } | { case: "sessionToken"; value: string } | { case: undefined; value?: undefined };

export interface OrdersDeps {
  sql: Sql;
  logger: Logger;
  /** GetStore, for the payment methods listing. */
  stores: Pick<Client<typeof StoreService>, "getStore">;
  /** GetOrderCatalog: a new order's store and prices in one call. */
  catalog: Pick<Client<typeof CatalogService>, "getOrderCatalog">;
  render: RenderContext;
  paymentWindowMs: number;
  /** PAYMENT_STATUS_CHECK_AFTER when the gateway can be asked (Midtrans); unset: no status checks. */
  statusCheckAfterMs?: number;
  sessions: PaymentSessions;
  statusChanges: StatusChanges;
  expiry: Expiry;
  idempotency: Idempotency;
  /** Called after a transaction that wrote outbox rows commits (wakes the relay). */
  onEventsCommitted?: () => void;
}

export function createOrders(deps: OrdersDeps) {
  const { sql, logger, render, sessions, statusChanges, expiry, idempotency } = deps;
  const committed = <T>(result: T): T => {
    deps.onEventsCommitted?.();
    return result;
  };

  /** A catalog call about one store: its NOT_FOUND (no such store) becomes ours, naming the store. */
  async function aboutStore<T>(storeId: string, call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.NotFound) {
        throw new ConnectError(`store ${storeId} not found`, Code.NotFound);
      }
      throw error;
    }
  }

  async function getStore(storeId: string) {
    return (await aboutStore(storeId, deps.stores.getStore({ id: storeId }))).store!;
  }

  /** The methods offered, each through the gateway of the mode (a test order's is the sandbox: docs/keys.md#test-mode). */
  function methodsOf(storeRow: { bankAccount?: unknown }, livemode = true): PaymentMethodInfo[] {
    return paymentMethodsFor({ hasBankAccount: storeRow.bankAccount !== undefined }, gatewayFor(render, livemode).provider);
  }

  async function methodsFor(storeId: string) {
    return { methods: methodsOf(await getStore(storeId)) };
  }

  /** The payment methods the store offers. */
  async function paymentMethods(storeId: string): Promise<PaymentMethodInfo[]> {
    return (await methodsFor(storeId)).methods;
  }

  // Reading.

  /** `row` as of now: a due pending order is expired first. */
  async function current(row: OrderRow, scope: OrderScope = {}): Promise<OrderRow | undefined> {
    if (!expiry.isDue(row)) return row;
    return committed(
      await transaction(sql, async (tx) => {
        const locked = await findOrder(tx, row.id, { ...scope, forUpdate: true });
        return locked && expiry.expireIfDue(tx, locked);
      }),
    );
  }

  /** The order as of now; one of another store or mode (the scope's) is not found. */
  async function readOrder(orderId: string, scope: OrderScope = {}): Promise<OrderRow | undefined> {
    const row = await findOrder(sql, orderId, scope);
    return row && current(row, scope);
  }

  /** The order as of now, its items (which never change) and its refunds, read together. */
  async function readOrderWithItems(orderId: string, scope: OrderScope = {}): Promise<{ row: OrderRow; items: OrderItemRow[]; refunds: RefundRow[] } | undefined> {
    const found = await findOrderWithItems(sql, orderId, scope);
    const row = found && (await current(found.row, scope));
    return row && { row, items: found.items, refunds: found.refunds };
  }

  async function requireOrder(orderId: string, scope: OrderScope = {}): Promise<OrderRow> {
    const row = await readOrder(orderId, scope);
    if (!row) throw new ConnectError(`order ${orderId} not found`, Code.NotFound);
    return row;
  }

  /** Order, payment and redirect; with `prepareSession`, a pending gateway order gets its session. */
  async function detailOf(row: OrderRow, prepareSession: boolean, known?: { items: OrderItemRow[]; refunds: RefundRow[] }): Promise<OrderDetail> {
    const session = prepareSession ? await sessions.ensureSession(row) : await sessions.liveSessionOf(row.id);
    const { items, refunds } = known ?? (await itemsAndRefundsOf(row.id));
    return renderDetail(render, row, items, session, refunds);
  }

  async function itemsAndRefundsOf(orderId: string): Promise<{ items: OrderItemRow[]; refunds: RefundRow[] }> {
    const [items, refunds] = await Promise.all([itemsOf(sql, [orderId]), refundsOf(sql, [orderId])]);
    return { items: items.get(orderId)!, refunds: refunds.get(orderId)! };
  }

  /**
   * The order and what a person may do to it now; with `includeHistory`, its status
   * changes too (read after any expiry this read wrote). Only with `prepareSession`
   * (the public API's read) is a gateway session made: the dashboard and the CLI look
   * without touching the gateway.
   */
  async function getOrder(
    storeId: string,
    orderId: string,
    options: { includeHistory?: boolean; prepareSession?: boolean; testMode?: boolean } = {},
  ): Promise<{ detail: OrderDetail; history: StatusChange[]; allowedActions: OrderAction[] }> {
    const found = await readOrderWithItems(orderId, { storeId, livemode: !options.testMode });
    if (!found) throw new ConnectError(`order ${orderId} not found`, Code.NotFound);
    const { row } = found;
    const [detail, history] = await Promise.all([detailOf(row, options.prepareSession === true, found), options.includeHistory ? historyOf(sql, row.id) : []]);
    return { detail, history: renderHistory(history), allowedActions: allowedActions(row, found.refunds) };
  }

  /** A page of the store's orders, newest first, a due one shown expired (db/order-lists.ts); never calls the gateway. */
  async function listOrders(
    storeId: string,
    page: { limit: number; offset: number; status?: OrderStatus; search?: string; cursor?: { at: string; id: string }; startingAfter?: string; testMode?: boolean },
  ) {
    const livemode = !page.testMode;
    const filter = { status: page.status, search: page.search === undefined ? undefined : searchFilter(page.search), livemode };
    // starting_after names an order: the page goes on from its place, to the microsecond.
    let cursor = page.cursor;
    if (page.startingAfter) {
      cursor = await orderLists.orderPlace(sql, storeId, page.startingAfter, livemode);
      if (!cursor) throw new ConnectError(`order ${page.startingAfter} not found`, Code.NotFound);
    }
    const { rows, hasMore } = await orderLists.listOrders(sql, storeId, page.limit, page.offset, filter, cursor);
    const ids = rows.map((row) => row.id);
    const [items, live, refunds] = await Promise.all([itemsOf(sql, ids), liveSessionsOf(sql, ids), refundsOf(sql, ids)]);
    const last = rows.at(-1) as (OrderRow & { cursor_at?: string }) | undefined;
    return {
      orders: rows.map((row) => renderOrder(render, row, items.get(row.id)!, live.get(row.id), refunds.get(row.id))),
      hasMore,
      nextCursor: hasMore && last?.cursor_at ? orderCursor(last.cursor_at, last.id) : "",
    };
  }

  /**
   * A sync page (docs/orders.md#syncing): the store's orders in change order, each as of its
   * last change. `next_cursor` is always given: after the page's last order while there
   * are more, else where the walk stands now (the snapshot's horizon), so a client that
   * keeps it sees every later change and none twice unless the order changed again.
   */
  async function listChanges(storeId: string, page: ChangesPage, testMode: boolean) {
    const { rows, hasMore, horizon } = await orderLists.listChangedOrders(sql, storeId, { ...page, testMode });
    const ids = rows.map((row) => row.id);
    const [items, live, refunds] = await Promise.all([itemsOf(sql, ids), liveSessionsOf(sql, ids), refundsOf(sql, ids)]);
    const last = rows.at(-1);
    const next = hasMore && last ? { xid: last.position, id: last.id } : { xid: horizon, id: FIRST_ID };
    return {
      orders: rows.map((row) => renderOrder(render, row, items.get(row.id)!, live.get(row.id), refunds.get(row.id))),
      hasMore,
      nextCursor: changeCursor(next),
    };
  }

  /**
   * How many of the store's orders have `status` (all when absent); a due order counts
   * as expired (db/order-lists.ts), so a read never waits for the sweeper's work.
   */
  async function countOrders(storeId: string, status?: OrderStatus, testMode = false): Promise<number> {
    return orderLists.countOrders(sql, storeId, status, !testMode);
  }

  /**
   * The hosted checkout page's order: by id (the id is the capability; a session is
   * prepared) or by a sandbox session token. NOT_FOUND for anything else, a real
   * gateway's token included: that token is public (it is in payment_url), and the
   * sandbox page it would open pays the order. With a real gateway the sandbox serves
   * test orders only (docs/payments.md#test-orders).
   */
  async function checkout(key: CheckoutKey): Promise<{ detail: OrderDetail; storeName: string }> {
    let found: { row: OrderRow; items: OrderItemRow[]; refunds: RefundRow[] } | undefined;
    if (key.case === "orderId") {
      if (!isUuid(key.value)) throw new ConnectError("order not found", Code.NotFound);
      found = await readOrderWithItems(key.value.toLowerCase());
    } else if (key.case === "sessionToken") {
      const session = await findSessionByToken(sql, key.value);
      found = session?.provider === "sandbox" ? await readOrderWithItems(session.order_id) : undefined;
      if (found && !sandboxServes(found.row, render.gateway.provider)) found = undefined;
    }
    if (!found) throw new ConnectError("order not found", Code.NotFound);
    return { detail: await detailOf(found.row, key.case === "orderId", found), storeName: found.row.store_name };
  }

  // Changing status.

  /**
   * Loads, expires if due, and changes the status in one transaction; `options.action`
   * is a person's, refused unless the order allows it then (order-actions.ts);
   * `options.audit` says who did it as which action, recorded with the change under
   * the order's payment reference. `livemode` scopes it to one mode (the other's is
   * NOT_FOUND); `pendingOnly` refuses any order that is not pending then, a repeat too.
   */
  async function changeStatus(
    orderId: string,
    to: OrderStatus,
    cause: string,
    options: { storeId?: string; livemode?: boolean; detail?: string; action?: OrderAction; audit?: { actor: Actor; action: AuditAction }; pendingOnly?: boolean } = {},
  ): Promise<StatusChangeResult> {
    return committed(
      await transaction(sql, async (tx) => {
        const row = await findOrder(tx, orderId, { storeId: options.storeId, livemode: options.livemode, forUpdate: true });
        if (!row) throw new ConnectError(`order ${orderId} not found`, Code.NotFound);
        const current = to === "expired" ? row : await expiry.expireIfDue(tx, row);
        if (options.pendingOnly && current.status !== "pending") {
          const becomes = to === "cancelled" ? "cancelled" : `made ${to}`;
          throw new ConnectError(`order ${orderId}: only a pending order can be ${becomes}; this one is ${current.status}`, Code.FailedPrecondition);
        }
        // A repeat stays the harmless no-op it is for the status machine (a double click).
        if (options.action && current.status !== to) requireAllowed(options.action, current);
        const result = await statusChanges.apply(tx, current, to, cause, options.detail);
        // The record is written with the change, and only when there was one.
        if (result.changed && options.audit) {
          const { actor, action } = options.audit;
          await insertAudit(tx, [auditEntry(row.store_id, actor, action, auditTarget("order", row.id), { label: row.payment_reference })]);
        }
        return result;
      }),
    );
  }

  /** "Mark as paid" (dashboard) and `store-admin order mark-paid`: the seller saw the transfer. */
  async function markPaid(storeId: string, orderId: string, actor: Actor, testMode = false): Promise<Order> {
    const audit = { actor, action: "order.marked_paid" } as const;
    const { row } = await changeStatus(orderId, "paid", "marked paid by the seller", { storeId, livemode: !testMode, action: "mark_paid", audit });
    return (await detailOf(row, false)).order!;
  }

  /**
   * "Cancel order" (dashboard), `store-admin order cancel` and POST /v1/orders/{id}/cancel.
   * `onlyPending`: an order already cancelled is refused too (the API's CONFLICT), where
   * a person's second click is a harmless repeat.
   */
  async function cancel(storeId: string, orderId: string, actor: Actor, options: { onlyPending?: boolean; testMode?: boolean } = {}): Promise<Order> {
    const audit = { actor, action: "order.cancelled" } as const;
    const { row } = await changeStatus(orderId, "cancelled", "cancelled by the seller", { storeId, livemode: !options.testMode, action: "cancel", audit, pendingOnly: options.onlyPending });
    return (await detailOf(row, false)).order!;
  }

  /**
   * Sets and removes metadata keys (docs/orders.md#metadata), in any status. The limits
   * apply to the metadata the change leaves, judged with the row locked, so two changes
   * at once cannot together pass 20 keys. A change announces `orderUpdated` with the
   * status unchanged (its previous_status is the status), as a status change does; a
   * change that changes nothing writes nothing and announces nothing.
   */
  async function updateMetadata(
    storeId: string,
    orderId: string,
    change: { set: Metadata; remove: string[] },
    // Which mode's order (docs/keys.md#test-mode): the other mode's is NOT_FOUND.
    options: { testMode?: boolean } = {},
  ): Promise<Order> {
    const row = committed(
      await transaction(sql, async (tx) => {
        const found = await findOrder(tx, orderId, { storeId, livemode: !options.testMode, forUpdate: true });
        if (!found) throw new ConnectError(`order ${orderId} not found`, Code.NotFound);
        const problems = metadataChangeProblems(found.metadata, change.set, change.remove);
        if (problems.length > 0) throw fieldErrors(problems.map(({ field, message }) => ({ field, description: message })));
        const merged = mergeMetadata(found.metadata, change.set, change.remove);
        if (sameMetadata(found.metadata, merged)) return found;
        const written = await writeMetadata(tx, found.id, merged);
        const message = await statusChanges.orderMessage(tx, written);
        await insertEvents(tx, metadataChangeEvents(written, message));
        return written;
      }),
    );
    return (await detailOf(row, false)).order!;
  }

  /**
   * SimulateTestOrder (docs/payments.md#test-orders): a pending test order of the store
   * paid, failed or expired through changeStatus, the call a verified gateway
   * notification makes, so its events and history are a real payment's. A live order is
   * NOT_FOUND; an order that is not pending FAILED_PRECONDITION.
   */
  async function simulate(storeId: string, orderId: string, outcome: string): Promise<Order> {
    const to = simulatedStatus(outcome);
    const { row } = await changeStatus(orderId, to, SIMULATED_CAUSE, { storeId, livemode: false, detail: outcome, pendingOnly: true });
    return (await detailOf(row, false)).order!;
  }

  // Creating.

  /**
   * Writes a new order, its items, history and `order.created` event in one statement
   * (insertNewOrder in db/orders.ts). A bank transfer gets a unique amount code, optimistically:
   * read the amounts' reservations, reserve the least recently used free one in that
   * statement, and let the reservation's key settle any race; a loser, having written
   * nothing, tries again.
   */
  async function insertNew(db: Db, draft: OrderDraft, kind: PaymentKind, lines: OrderLine[], itemRows: OrderItemRow[]): Promise<OrderRow> {
    const insert = (code: number | null) => {
      const row = pendingRow(withReference(draft, code));
      // Rendered from the row about to be written: a new order has no payment session yet.
      const events = createdEvents(row, renderOrder(render, row, itemRows));
      return insertNewOrder(db, row, lines, events, { reserveAmount: code !== null, cause: "created" });
    };
    if (kind !== "bank_transfer") return (await insert(null))!;
    for (let attempt = 0; attempt < 50; attempt++) {
      // The codes of the order's own mode: test and live orders never share one.
      const { now, uses } = await transferAmountUse(db, draft.store_id, draft.subtotal + 1, draft.subtotal + MAX_UNIQUE_CODE, draft.livemode);
      // Strictly the least recently used code first; each lost race widens the choice.
      const code = pickUniqueCode(draft.subtotal, uses, now, Math.random, attempt + 1);
      if (code === undefined) {
        throw new ConnectError(
          "every unique amount code for this amount is taken by pending orders or orders that recently expired or were cancelled",
          Code.ResourceExhausted,
        );
      }
      const row = await insert(code);
      if (row) return row;
    }
    throw new ConnectError("could not allocate a unique transfer amount, try again", Code.ResourceExhausted);
  }

  /**
   * Makes the order and everything that must exist with it atomically: items, history,
   * the `order.created` event, the Idempotency-Key's link to it, and (for a free order)
   * the change to paid. The order is one statement; a transaction is opened only when
   * more must commit with it, since each one costs two round trips on the hot path.
   */
  async function placeOrder(input: NewOrderInput): Promise<{ row: OrderRow; items: OrderItemRow[] }> {
    // One catalog round trip, asked afresh for every order: prices and the store's bank
    // account are the catalog's as of now, never a cached copy.
    const ids = input.items.map((item) => item.id);
    const found = await aboutStore(input.storeId, deps.catalog.getOrderCatalog({ storeId: input.storeId, ids }));
    const storeRow = found.store!;
    const { lines, subtotal } = priceItems(input.items, found.items);
    const livemode = !input.testMode;
    const { kind, method } = choosePaymentMethod(subtotal, input.paymentMethod, methodsOf(storeRow, livemode));
    const id = randomUUID();
    const draft = draftOrder({
      id,
      request: input,
      now: new Date(),
      paymentWindowMs: deps.paymentWindowMs,
      checkoutUrl: checkoutUrl(render, id),
      kind,
      method,
      subtotal,
      store: storeRow,
    });
    // A test order's gateway is the sandbox, which is never asked (test-mode.ts asksGateway).
    if (kind === "gateway" && livemode && deps.statusCheckAfterMs !== undefined) {
      draft.next_status_check_at = firstStatusCheckAt(draft.created_at, draft.expires_at, deps.statusCheckAfterMs);
    }
    const itemRows = lines.map((line) => ({ ...line, order_id: id }));
    if (input.link) draft.payment_link_id = input.link.id;
    const write = async (db: Db) => {
      await input.link?.claim(db);
      let row = await insertNew(db, draft, kind, lines, itemRows);
      if (input.idempotencyKey) await idempotency.attach(db, input.storeId, input.idempotencyKey, row.id, livemode);
      if (kind === "none") row = (await statusChanges.apply(db, row, "paid", "free order")).row;
      logger.info({ orderId: row.id, storeId: row.store_id, kind, amount: row.amount }, "order created");
      return row;
    };
    const created = input.idempotencyKey !== undefined || kind === "none" || input.link ? await transaction(sql, write) : await write(sql);
    return { row: committed(created), items: itemRows };
  }

  /** POST /v1/orders: at most one order per Idempotency-Key (idempotency.ts). */
  async function createOrder(input: NewOrderInput): Promise<CreateOrderResponse> {
    const livemode = !input.testMode;
    return idempotency.run(
      input.storeId,
      input.idempotencyKey,
      input.requestHash,
      {
        create: () => placeOrder(input),
        respond: async ({ row, items }) => create(CreateOrderResponseSchema, { detail: await detailOf(row, true, { items, refunds: [] }) }),
        resume: async (orderId) => create(CreateOrderResponseSchema, { detail: await detailOf(await requireOrder(orderId, { storeId: input.storeId, livemode }), true) }),
      },
      livemode,
    );
  }

  return { paymentMethods, createOrder, getOrder, listOrders, listChanges, countOrders, checkout, changeStatus, markPaid, cancel, updateMetadata, simulate, readOrder };
}

export type Orders = ReturnType<typeof createOrders>;

function sameMetadata(a: Metadata, b: Metadata): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}
