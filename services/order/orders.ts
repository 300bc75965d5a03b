import { randomBytes, randomUUID } from "node:crypto";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { ItemStatus, ItemType, type CatalogService, type StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import type { Order } from "../../gen/order/v1/order_pb.js";
import type { Sql } from "../lib/db.js";
import type { Logger } from "../lib/logger.js";
import { orderJson } from "../lib/public-json.js";
import { paymentMethodsFor, type PaymentMethodInfo } from "./payment-methods.js";
import type { PaymentGateway } from "./payment-gateways/types.js";
import { lineTotal, pickUniqueCode, subtotalOf, TotalTooLarge, MAX_UNIQUE_CODE } from "./pricing.js";
import { renderOrder, type RenderContext } from "./render.js";
import { checkTransition, eventsForChange, type OrderStatus } from "./status-machine.js";
import * as store from "./store.js";
import { fieldError, type ValidItem } from "./validation.js";

export interface OrderDomainDeps {
  sql: Sql;
  logger: Logger;
  stores: Client<typeof StoreService>;
  catalog: Client<typeof CatalogService>;
  gateway: PaymentGateway;
  publicBaseUrl: string;
  paymentWindowMs: number;
  /** Caps a gateway session's life below the order's (unset: the order's expiry). */
  sessionTtlMs?: number;
  /** Called after a transaction that wrote outbox rows commits (wakes the relay). */
  onEventsCommitted?: () => void;
}

export interface NewOrderInput {
  storeId: string;
  items: ValidItem[];
  buyer: { name: string; email: string; phone: string };
  paymentMethod: string;
  redirect?: { successUrl: string; returnUrl: string; errorUrl: string };
  externalId?: string;
  idempotencyKey?: string;
}

const REFERENCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** "SO-" and 12 characters that cannot be misread (no O/0, I/1). */
function newPaymentReference(): string {
  let out = "SO-";
  for (const byte of randomBytes(12)) out += REFERENCE_ALPHABET[byte % 32];
  return out;
}

export function createOrderDomain(deps: OrderDomainDeps) {
  const { sql, logger, gateway } = deps;
  const committed = <T>(result: T): T => {
    deps.onEventsCommitted?.();
    return result;
  };
  const ctx: RenderContext = { publicBaseUrl: deps.publicBaseUrl, gateway };
  const MAX_PREPARING = 4;
  const preparingByOrder = new Map<string, Promise<store.SessionRow | undefined>>();

  async function orderMessage(db: store.Db, row: store.OrderRow): Promise<Order> {
    const items = (await store.itemsOf(db, [row.id])).get(row.id)!;
    const session = (await store.liveSessionsOf(db, [row.id])).get(row.id);
    return renderOrder(ctx, row, items, session);
  }

  /**
   * Writes one status change: the status, a history row and its outbox events, in the
   * caller's transaction. Returns the row unchanged for a repeat; refuses the rest.
   */
  async function applyTransition(tx: store.Db, row: store.OrderRow, to: OrderStatus, cause: string) {
    const check = checkTransition(row.status, to);
    if (check.kind === "repeat") return { row, changed: false };
    if (check.kind === "refused") {
      throw new ConnectError(`order ${row.id} cannot go from ${row.status} to ${to}`, Code.FailedPrecondition);
    }
    const updated = await store.updateStatus(tx, row.id, to);
    const order = orderJson(await orderMessage(tx, updated));
    await store.insertHistoryAndEvents(
      tx,
      { order_id: row.id, from_status: row.status, to_status: to, cause },
      eventsForChange(to).map((type) => ({
        id: randomUUID(),
        store_id: row.store_id,
        order_id: row.id,
        event_type: type,
        payload: {
          type,
          timestamp: updated.updated_at.toISOString(),
          data: { store_id: row.store_id, order, previous_status: row.status },
        },
      })),
    );
    logger.info({ orderId: row.id, from: row.status, to, cause }, "order status changed");
    return { row: updated, changed: true };
  }

  /** A pending order past its expiry turns expired before anyone sees it. */
  async function expireIfDue(tx: store.Db, row: store.OrderRow): Promise<store.OrderRow> {
    if (row.status !== "pending" || row.expires_at.getTime() > Date.now()) return row;
    return (await applyTransition(tx, row, "expired", "expiry")).row;
  }

  /** Expires up to `limit` due orders (of one store, or all); returns how many. */
  async function expireDue(limit = 100, storeId?: string): Promise<number> {
    const expired = await sql.begin(async (tx) => {
      const due = await store.lockDueOrders(tx, limit, storeId);
      for (const row of due) await applyTransition(tx, row, "expired", "expiry");
      return due.length;
    });
    return expired > 0 ? committed(expired) : expired;
  }

  async function methodsFor(storeId: string): Promise<{ methods: PaymentMethodInfo[]; storeRow: Awaited<ReturnType<typeof getStore>> }> {
    const storeRow = await getStore(storeId);
    return { methods: paymentMethodsFor({ hasBankAccount: storeRow.bankAccount !== undefined }, gateway.provider), storeRow };
  }

  async function getStore(storeId: string) {
    try {
      return (await deps.stores.getStore({ id: storeId })).store!;
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.NotFound) {
        throw new ConnectError(`store ${storeId} not found`, Code.NotFound);
      }
      throw error;
    }
  }

  /**
   * Makes the order and everything that must exist with it in one transaction: items,
   * history, the `order.created` event, and (for a free order) the change to paid.
   */
  async function createOrder(input: NewOrderInput): Promise<{ row: store.OrderRow; items: store.OrderItemRow[] }> {
    const [{ methods, storeRow }, found] = await Promise.all([
      methodsFor(input.storeId),
      deps.catalog.getItems({ storeId: input.storeId, ids: input.items.map((item) => item.id) }),
    ]);
    const lines = input.items.map((item, position) => {
      const catalogItem = found.items.find((candidate) => candidate.id === item.id);
      const expectedType = item.type === "bundle" ? ItemType.BUNDLE : ItemType.PRODUCT;
      if (!catalogItem || catalogItem.type !== expectedType) {
        throw fieldError(item.field, `no such ${item.type} in this store`);
      }
      if (catalogItem.status !== ItemStatus.PUBLISHED) throw fieldError(item.field, `${item.type} is not published`);
      const unitPrice = Number(catalogItem.price);
      return {
        position,
        type: item.type,
        item_id: item.id,
        title: catalogItem.title,
        quantity: item.quantity,
        unit_price: unitPrice,
        line_total: lineTotal({ unitPrice, quantity: item.quantity }),
      };
    });
    let subtotal: number;
    try {
      subtotal = subtotalOf(lines.map((line) => ({ unitPrice: line.unit_price, quantity: line.quantity })));
    } catch (error) {
      if (error instanceof TotalTooLarge) throw fieldError("items", error.message);
      throw error;
    }

    let kind: store.OrderRow["payment_kind"];
    let method: PaymentMethodInfo | undefined;
    if (subtotal === 0) {
      kind = "none";
      if (input.paymentMethod !== "" && !methods.some((m) => m.code === input.paymentMethod)) {
        throw fieldError("payment_method", "is not offered by this store");
      }
    } else {
      if (input.paymentMethod === "") throw fieldError("payment_method", "is required when the total is above 0");
      method = methods.find((m) => m.code === input.paymentMethod);
      if (!method) throw fieldError("payment_method", "is not offered by this store");
      kind = method.kind;
    }

    const pick = (requested: string | undefined, storeDefault: string | undefined, fallback: string) =>
      requested || storeDefault || fallback;
    // One clock reading for both, so expires_at is exactly created_at + the window.
    const now = new Date();
    const base: Omit<store.NewOrder, "payment_reference" | "unique_amount_code" | "amount"> & { id: string } = {
      id: randomUUID(),
      store_id: input.storeId,
      payment_kind: kind,
      payment_method: method?.code ?? "none",
      payment_provider: method?.provider ?? "none",
      settlement_channel: method?.settlement_channel ?? "none",
      subtotal,
      buyer_name: input.buyer.name.trim(),
      buyer_email: input.buyer.email,
      buyer_phone: input.buyer.phone,
      bank_name: kind === "bank_transfer" ? storeRow.bankAccount!.bankName : null,
      bank_code: kind === "bank_transfer" ? storeRow.bankAccount!.bankCode : null,
      account_number: kind === "bank_transfer" ? storeRow.bankAccount!.accountNumber : null,
      account_holder: kind === "bank_transfer" ? storeRow.bankAccount!.accountHolder : null,
      store_name: storeRow.name,
      success_url: "",
      return_url: "",
      error_url: "",
      external_id: input.externalId ?? null,
      expires_at: new Date(now.getTime() + deps.paymentWindowMs),
      created_at: now,
      updated_at: now,
    };
    const checkout = `${deps.publicBaseUrl}/checkout/${base.id}`;
    base.success_url = pick(input.redirect?.successUrl, storeRow.redirects?.successUrl, checkout);
    base.return_url = pick(input.redirect?.returnUrl, storeRow.redirects?.returnUrl, checkout);
    base.error_url = pick(input.redirect?.errorUrl, storeRow.redirects?.errorUrl, checkout);

    const itemRows = lines.map((line) => ({ ...line, order_id: base.id }));
    const created = await sql.begin(async (tx) => {
      let row: store.OrderRow | undefined;
      if (kind === "bank_transfer") {
        // Optimistic: read the taken amounts, try a random free code, and let the
        // partial unique index settle any race (ON CONFLICT DO NOTHING); a loser
        // simply tries again.
        for (let attempt = 0; attempt < 50 && !row; attempt++) {
          const taken = await store.takenTransferAmounts(tx, input.storeId, subtotal + 1, subtotal + MAX_UNIQUE_CODE);
          const code = pickUniqueCode(subtotal, taken);
          if (code === undefined) {
            throw new ConnectError("every unique amount code for this amount is taken by pending orders", Code.ResourceExhausted);
          }
          row = await store.insertOrder(
            tx,
            { ...base, payment_reference: newPaymentReference(), unique_amount_code: code, amount: subtotal + code },
            lines,
            true,
          );
        }
        if (!row) throw new ConnectError("could not allocate a unique transfer amount, try again", Code.ResourceExhausted);
      } else {
        row = (await store.insertOrder(tx, { ...base, payment_reference: newPaymentReference(), unique_amount_code: null, amount: subtotal }, lines))!;
      }
      // Rendered from what was just written: a new order has no payment session yet.
      const order = orderJson(renderOrder(ctx, row, itemRows));
      await store.insertHistoryAndEvents(tx, { order_id: row.id, from_status: null, to_status: "pending", cause: "created" }, [
        {
          id: randomUUID(),
          store_id: row.store_id,
          order_id: row.id,
          event_type: "order.created",
          payload: {
            type: "order.created",
            timestamp: row.created_at.toISOString(),
            data: { store_id: row.store_id, order, previous_status: null },
          },
        },
      ]);
      if (input.idempotencyKey) {
        try {
          await store.attachIdempotencyOrder(tx, input.storeId, input.idempotencyKey, row.id);
        } catch (error) {
          if (error instanceof store.IdempotencyKeyTaken) throw new ConnectError(error.message, Code.AlreadyExists);
          throw error;
        }
      }
      if (kind === "none") row = (await applyTransition(tx, row, "paid", "free order")).row;
      logger.info({ orderId: row.id, storeId: row.store_id, kind, amount: row.amount }, "order created");
      return row;
    });
    return { row: committed(created), items: itemRows };
  }

  /**
   * The live gateway session of a pending gateway order, made if there is none. The
   * order row is locked meanwhile, so concurrent callers wait and then reuse the one
   * session. A failing gateway leaves the order without a session (undefined).
   */
  async function ensureSession(row: store.OrderRow): Promise<store.SessionRow | undefined> {
    if (row.payment_kind !== "gateway" || row.status !== "pending") return undefined;
    const existing = (await store.liveSessionsOf(sql, [row.id])).get(row.id);
    if (existing) return existing;
    // Reads of one order in this process share one preparation; other instances wait
    // on the order's row lock below.
    const running = preparingByOrder.get(row.id);
    if (running) return running;
    // Preparing holds a pooled connection across the gateway call: a slow gateway must
    // not take them all. Past the cap the answer is "no session yet" (snap: null), as
    // when the gateway is down, and the next read tries again.
    if (preparingByOrder.size >= MAX_PREPARING) return undefined;
    const preparation = prepareSession(row).finally(() => preparingByOrder.delete(row.id));
    preparingByOrder.set(row.id, preparation);
    return preparation;
  }

  async function prepareSession(row: store.OrderRow): Promise<store.SessionRow | undefined> {
    try {
      return await sql.begin(async (tx) => {
        const locked = await store.findOrder(tx, row.id, { forUpdate: true });
        if (!locked || locked.status !== "pending") return undefined;
        const live = (await store.liveSessionsOf(tx, [row.id])).get(row.id);
        if (live) return live;
        const items = (await store.itemsOf(tx, [row.id])).get(row.id)!;
        const now = Date.now();
        const expiresAt = new Date(
          Math.min(locked.expires_at.getTime(), deps.sessionTtlMs ? now + deps.sessionTtlMs : Number.POSITIVE_INFINITY),
        );
        if (expiresAt.getTime() <= now) return undefined;
        const session = await gateway.createSession({
          orderId: locked.payment_reference,
          amount: locked.amount,
          method: locked.payment_method,
          items: items.map((item) => ({ id: item.item_id, name: item.title, price: item.unit_price, quantity: item.quantity })),
          buyer: { name: locked.buyer_name, email: locked.buyer_email, phone: locked.buyer_phone },
          expiresAt,
          finishUrl: locked.success_url,
        });
        return store.insertSession(tx, {
          order_id: row.id,
          provider: gateway.provider,
          token: session.token,
          redirect_url: session.redirectUrl,
          expires_at: expiresAt,
        });
      });
    } catch (error) {
      if (error instanceof ConnectError) throw error;
      logger.warn({ orderId: row.id, err: (error as Error).message }, "payment session not prepared");
      return undefined;
    }
  }

  /** Loads, expires if due, and changes the status in one transaction. */
  async function changeStatus(orderId: string, to: OrderStatus, cause: string, storeId?: string) {
    return committed(
      await sql.begin(async (tx) => {
        const row = await store.findOrder(tx, orderId, { storeId, forUpdate: true });
        if (!row) throw new ConnectError(`order ${orderId} not found`, Code.NotFound);
        const current = to === "expired" ? row : await expireIfDue(tx, row);
        return applyTransition(tx, current, to, cause);
      }),
    );
  }

  /** The order as of now: a due pending order is expired first. */
  async function readOrder(orderId: string, storeId?: string): Promise<store.OrderRow | undefined> {
    const row = await store.findOrder(sql, orderId, { storeId });
    if (!row || row.status !== "pending" || row.expires_at.getTime() > Date.now()) return row;
    return committed(
      await sql.begin(async (tx) => {
        const locked = await store.findOrder(tx, orderId, { storeId, forUpdate: true });
        return locked && expireIfDue(tx, locked);
      }),
    );
  }

  return {
    ctx,
    methodsFor,
    createOrder,
    ensureSession,
    changeStatus,
    readOrder,
    expireDue,
  };
}

export type OrderDomain = ReturnType<typeof createOrderDomain>;
