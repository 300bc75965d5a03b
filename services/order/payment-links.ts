// Payment links (docs/payments.md#payment-links): a seller's shareable address that makes an
// order of fixed items for whoever opens it. Making a link checks its items and methods
// against the store as it is then; a buyer's order goes through the same create path as
// POST /v1/orders (orders.ts), with the link locked in the order's transaction so its
// usage limit and its cap on waiting orders hold under any number of buyers at once.
import { randomBytes, randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { CatalogService } from "../../gen/catalog/v1/catalog_pb.js";
import {
  GetPaymentLinkPageResponseSchema,
  PaymentLinkSchema,
  type Buyer,
  type CreatePaymentLinkRequest,
  type GetPaymentLinkPageResponse,
  type OrderDetail,
  type OrderItemInput,
  type PaymentLink,
} from "../../gen/order/v1/order_pb.js";
import { linkRefusal, linkState, MAX_USAGE_LIMIT } from "../../common/payment-links.js";
import { parseRfc3339 } from "../../common/rfc3339.js";
import { fieldError, throwFieldProblems, type FieldProblem } from "../../platform/field-errors.js";
import { linkBusyError, linkClosedError } from "../../platform/payment-link-errors.js";
import { transaction, type Db, type Sql } from "../../platform/db.js";
import type { Actor } from "../../common/actor.js";
import { auditTarget } from "../../common/audit.js";
import { auditEntry, insertAudit } from "../../platform/audit-log.js";
import { CURRENCY } from "./new-order.js";
import type { Orders } from "./orders.js";
import { paymentMethodsFor, type PaymentMethodInfo } from "./payment-methods.js";
import { priceItems } from "./pricing.js";
import { gatewayFor } from "./test-mode.js";
import type { RenderContext } from "./messages.js";
import { checkItems, validateCreateOrder, type ValidItem } from "./validation.js";
import * as links from "./db/payment-links.js";

export interface PaymentLinksDeps {
  sql: Sql;
  render: RenderContext;
  /** GetOrderCatalog: the store and its items' prices, as an order made now would see them. */
  catalog: Pick<Client<typeof CatalogService>, "getOrderCatalog">;
  orders: Pick<Orders, "createOrder">;
}

/** How many links a list shows, newest first. */
export const LINK_LIST_LIMIT = 200;

const SLUG_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** 16 characters that cannot be misread: about 79 bits, so nobody finds a link by guessing. */
export function newLinkSlug(bytes: Uint8Array = randomBytes(16)): string {
  let out = "";
  for (const byte of bytes) out += SLUG_ALPHABET[byte % SLUG_ALPHABET.length];
  return out;
}

function inputOf(item: links.LinkItem): OrderItemInput {
  return {
    $typeName: "order.v1.OrderItemInput",
    ref: item.bundle_id !== undefined ? { case: "bundleId", value: item.bundle_id } : { case: "productId", value: item.product_id! },
    quantity: item.quantity,
  };
}

function validItems(row: links.PaymentLinkRow): ValidItem[] {
  return checkItems(row.items.map(inputOf), () => {});
}

export function createPaymentLinks(deps: PaymentLinksDeps) {
  const { sql, render } = deps;

  function message(row: links.CountedLink, now = new Date()): PaymentLink {
    return create(PaymentLinkSchema, {
      id: row.id,
      storeId: row.store_id,
      slug: row.slug,
      url: `${render.publicBaseUrl}/pay/${row.slug}`,
      active: row.active,
      livemode: row.livemode,
      items: row.items.map(inputOf),
      paymentMethods: row.payment_methods,
      usageLimit: row.usage_limit ?? undefined,
      paidCount: row.paid_count,
      pendingCount: row.pending_count,
      expiresAt: row.expires_at?.toISOString(),
      createdAt: row.created_at.toISOString(),
      state: linkState(row, now),
    });
  }

  /** The store and its priced items now; the catalog's field errors name the link's items. */
  async function priced(storeId: string, items: ValidItem[]) {
    const found = await deps.catalog.getOrderCatalog({ storeId, ids: items.map((item) => item.id) });
    return { store: found.store!, ...priceItems(items, found.items) };
  }

  /** The methods a buyer of this mode may pick from, as CreateOrder offers them (orders.ts methodsOf). */
  function offered(store: { bankAccount?: unknown }, livemode: boolean): PaymentMethodInfo[] {
    return paymentMethodsFor({ hasBankAccount: store.bankAccount !== undefined }, gatewayFor(render, livemode).provider);
  }

  /** CreatePaymentLink: every field checked (each named), the items priced as an order's would be. */
  async function createLink(request: CreatePaymentLinkRequest, actor: Actor): Promise<PaymentLink> {
    const problems: FieldProblem[] = [];
    const problem = (field: string, description: string) => void problems.push({ field, description });
    const items = checkItems(request.items, problem);
    if (request.usageLimit !== undefined && (!Number.isInteger(request.usageLimit) || request.usageLimit < 1 || request.usageLimit > MAX_USAGE_LIMIT)) {
      problem("usage_limit", `must be an integer from 1 to ${MAX_USAGE_LIMIT}`);
    }
    let expiresAt: Date | null = null;
    if (request.expiresAt !== undefined) {
      const parsed = parseRfc3339(request.expiresAt);
      if (!parsed) problem("expires_at", "must be an RFC 3339 time");
      else if (parsed.getTime() <= Date.now()) problem("expires_at", "must be in the future");
      else expiresAt = parsed;
    }
    const codes = [...new Set(request.paymentMethods)];
    if (codes.length !== request.paymentMethods.length) problem("payment_methods", "names a method more than once");
    throwFieldProblems(problems);
    const livemode = !request.testMode;
    const { store } = await priced(request.storeId, items);
    const methods = offered(store, livemode);
    request.paymentMethods.forEach((code, n) => {
      if (!methods.some((method) => method.code === code)) problem(`payment_methods[${n}]`, "is not offered by this store");
    });
    throwFieldProblems(problems);
    const id = randomUUID();
    const slug = newLinkSlug();
    // The audit entry commits with the link, or neither does.
    const row = await transaction(sql, async (tx) => {
      await insertAudit(tx, [auditEntry(request.storeId, actor, "payment_link.created", auditTarget("payment_link", id), { label: slug })]);
      return links.insertLink(tx, {
        id,
        store_id: request.storeId,
        slug,
        livemode,
        items: items.map((item) => ({ [item.type === "bundle" ? "bundle_id" : "product_id"]: item.id, quantity: item.quantity })),
        payment_methods: codes,
        usage_limit: request.usageLimit ?? null,
        expires_at: expiresAt,
      });
    });
    return message(row);
  }

  async function listLinks(storeId: string, testMode: boolean): Promise<PaymentLink[]> {
    const now = new Date();
    return (await links.listLinks(sql, storeId, !testMode, LINK_LIST_LIMIT)).map((row) => message(row, now));
  }

  /** Deactivates for good (a link is never reopened); another store's or mode's link is NOT_FOUND. */
  async function deactivate(storeId: string, linkId: string, testMode: boolean, actor: Actor): Promise<PaymentLink> {
    const row = await transaction(sql, async (tx) => {
      const found = await links.deactivateLink(tx, storeId, linkId, !testMode);
      if (!found) throw new ConnectError(`payment link ${linkId} not found`, Code.NotFound);
      // Recorded once, when it went inactive: a second deactivation changes nothing.
      if (found.changed) {
        await insertAudit(tx, [auditEntry(storeId, actor, "payment_link.deactivated", auditTarget("payment_link", found.id), { label: found.slug })]);
      }
      return found;
    });
    return message(row);
  }

  async function requireLink(slug: string): Promise<links.CountedLink> {
    const row = await links.findLinkBySlug(sql, slug);
    if (!row) throw new ConnectError("payment link not found", Code.NotFound);
    return row;
  }

  /** What /pay/{slug} shows: the link (with its state), its store, its items priced now, the methods. */
  async function page(slug: string): Promise<GetPaymentLinkPageResponse> {
    const row = await requireLink(slug);
    const { store, lines, subtotal } = await priced(row.store_id, validItems(row));
    const methods = offered(store, row.livemode).filter((method) => row.payment_methods.length === 0 || row.payment_methods.includes(method.code));
    return create(GetPaymentLinkPageResponseSchema, {
      link: message(row),
      storeName: store.name,
      items: lines.map((line) => ({
        type: line.type,
        title: line.title,
        quantity: line.quantity,
        unitPrice: BigInt(line.unit_price),
        lineTotal: BigInt(line.line_total),
        ...(line.type === "bundle" ? { bundleId: line.item_id } : { productId: line.item_id }),
      })),
      total: BigInt(subtotal),
      currency: CURRENCY,
      methods: methods.map((m) => ({ code: m.code, name: m.name, kind: m.kind, provider: m.provider, settlementChannel: m.settlement_channel })),
    });
  }

  /** Refuses when the link takes no order now (linkRefusal): closed, or too many waiting. */
  function refuseIfNeeded(row: links.CountedLink): void {
    const refusal = linkRefusal(row, new Date());
    if (refusal && "closed" in refusal) throw linkClosedError(refusal.closed);
    if (refusal) throw linkBusyError();
  }

  /**
   * PayPaymentLink: the buyer's order. Checked once without a lock (a closed link costs
   * nothing more), then again with the link locked in the order's own transaction.
   */
  async function pay(slug: string, buyer: Buyer | undefined, paymentMethod: string): Promise<OrderDetail> {
    const row = await requireLink(slug);
    refuseIfNeeded(row);
    const request = {
      $typeName: "order.v1.CreateOrderRequest" as const,
      storeId: row.store_id,
      items: row.items.map(inputOf),
      buyer,
      paymentMethod,
      testMode: !row.livemode,
      metadata: {},
      requestHash: "",
    };
    const items = validateCreateOrder(request);
    if (paymentMethod !== "" && row.payment_methods.length > 0 && !row.payment_methods.includes(paymentMethod)) {
      throw fieldError("payment_method", "is not offered by this payment link");
    }
    const claim = async (db: Db) => {
      await links.lockLink(db, row.id);
      refuseIfNeeded((await links.findLinkBySlug(db, slug))!);
    };
    const created = await deps.orders.createOrder({ ...request, buyer: buyer!, items, link: { id: row.id, claim } });
    return created.detail!;
  }

  return { createLink, listLinks, deactivate, page, pay };
}

export type PaymentLinks = ReturnType<typeof createPaymentLinks>;
