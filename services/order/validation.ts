import { isPaymentReference, isUuid } from "../../common/ids.js";
import { metadataChangeProblems } from "../../common/order-metadata.js";
import { isChangeCursor, parseChangeCursor as readChangeCursor, type ChangePosition } from "../../common/change-cursor.js";
import { parseRfc3339 } from "../../common/rfc3339.js";
import type { AssignMutationRequest, ListMutationsRequest, ReconcileMutationsRequest } from "../../gen/order/v1/bank_pb.js";
import type { CountOrdersRequest, CreateOrderRequest, ListOrdersRequest, OrderItemInput, RefundOrderRequest } from "../../gen/order/v1/order_pb.js";
import { textProblem } from "../../common/text.js";
import { fieldError, MAX_FIELD_VIOLATIONS, requireUuid, throwFieldProblems, type FieldProblem } from "../../platform/field-errors.js";
import { ORDER_STATUSES, type OrderStatus } from "./status-machine.js";
import { findMutationProblems, MAX_MUTATION_LIST_LIMIT, MAX_MUTATIONS_PER_CALL, mutationIdProblem } from "../../common/bank-mutations.js";
import {
  BUYER_PHONE,
  MAX_BUYER_NAME_LENGTH,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_ITEM_QUANTITY,
  MAX_ITEMS_PER_ORDER,
  MAX_REDIRECT_URL_LENGTH,
  MAX_REFUND_REASON_LENGTH,
  MAX_REFUND_REFERENCE_LENGTH,
} from "../../common/order-limits.js";

// Deliberately plain: one @, no spaces, a dot in the domain. Full RFC 5322 is not what
// a checkout wants, and the gateway confirms nothing by mail.
const EMAIL = /^[^\s@"<>()\[\],;:]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Why `value` is not a redirect URL the API accepts, or undefined. */
function urlProblem(value: string): string | undefined {
  if (value.length > MAX_REDIRECT_URL_LENGTH) return `must be at most ${MAX_REDIRECT_URL_LENGTH} characters`;
  try {
    const url = new URL(value);
    if ((url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "") return undefined;
  } catch {}
  return "must be an absolute http(s) URL";
}

export interface ValidItem {
  field: string;
  type: "product" | "bundle";
  id: string;
  quantity: number;
}

/**
 * The items of an order, or of a payment link that makes orders of them: 1 to
 * MAX_ITEMS_PER_ORDER, each one product or bundle once, with a quantity in range.
 * Each problem goes to `problem`, named as docs/api.md#creating-an-order names it.
 */
export function checkItems(requested: readonly OrderItemInput[], problem: (field: string, description: string) => void): ValidItem[] {
  if (requested.length < 1 || requested.length > MAX_ITEMS_PER_ORDER) problem("items", `must have 1 to ${MAX_ITEMS_PER_ORDER} items`);
  const seen = new Set<string>();
  const items: ValidItem[] = [];
  requested.forEach((item, n) => {
    const field = `items[${n}]`;
    let valid: Omit<ValidItem, "quantity"> | undefined;
    if (item.ref.case === undefined) {
      problem(field, "needs exactly one of product_id or bundle_id");
    } else {
      const idField = `${field}.${item.ref.case === "productId" ? "product_id" : "bundle_id"}`;
      const id = item.ref.value.toLowerCase();
      if (!isUuid(item.ref.value)) problem(idField, "must be a UUID");
      else if (seen.has(id)) problem(idField, "appears more than once");
      else valid = { field: idField, type: item.ref.case === "productId" ? "product" : "bundle", id };
      seen.add(id);
    }
    if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_ITEM_QUANTITY) {
      problem(`${field}.quantity`, `must be an integer from 1 to ${MAX_ITEM_QUANTITY}`);
    } else if (valid) {
      items.push({ ...valid, quantity: item.quantity });
    }
  });
  return items;
}

/**
 * The checks of docs/api.md#creating-an-order that need no data. Every field that fails is reported in
 * one INVALID_ARGUMENT, in the documented order of fields; an item's id and quantity
 * are each checked, whatever the other holds.
 */
export function validateCreateOrder(request: CreateOrderRequest): ValidItem[] {
  const problems: FieldProblem[] = [];
  const problem = (field: string, description: string) => void problems.push({ field, description });
  const items = checkItems(request.items, problem);
  const buyer = request.buyer;
  if (!buyer) {
    problem("buyer", "is required");
  } else {
    const name = buyer.name.trim();
    if (name.length < 1 || name.length > MAX_BUYER_NAME_LENGTH) problem("buyer.name", `must be 1 to ${MAX_BUYER_NAME_LENGTH} characters`);
    if (buyer.email.length > 254 || !EMAIL.test(buyer.email)) problem("buyer.email", "must be a valid e-mail address");
    if (!BUYER_PHONE.test(buyer.phone)) problem("buyer.phone", "must be 8 to 20 digits with an optional leading +");
  }
  if (request.redirect) {
    for (const [key, value] of [
      ["success_url", request.redirect.successUrl],
      ["return_url", request.redirect.returnUrl],
      ["error_url", request.redirect.errorUrl],
    ] as const) {
      const why = value === "" ? undefined : urlProblem(value);
      if (why) problem(`redirect.${key}`, why);
    }
  }
  if (request.externalId !== undefined && (request.externalId.length < 1 || request.externalId.length > MAX_EXTERNAL_ID_LENGTH)) {
    problem("external_id", `must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters`);
  }
  for (const { field, message } of metadataChangeProblems({}, request.metadata, [])) problem(field, message);
  if (request.idempotencyKey !== undefined && (request.idempotencyKey.length < 1 || request.idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH)) {
    problem("Idempotency-Key", `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  throwFieldProblems(problems);
  return items;
}

/** A status filter: empty for every status, else a known status (INVALID_ARGUMENT `status`). */
function statusFilter(status: string): OrderStatus | undefined {
  if (status === "") return undefined;
  if (!ORDER_STATUSES.includes(status as OrderStatus)) throw fieldError("status", `must be one of ${ORDER_STATUSES.join(", ")}`);
  return status as OrderStatus;
}

// Nothing longer can match: a buyer email is at most 254 (counted as for buyer.email),
// an external id 64, a payment reference 40.
export const MAX_SEARCH_LENGTH = 254;

/** A sync page's arguments (docs/orders.md#syncing): from `since`, or after `after` (a change cursor). */
export interface ChangesPage {
  limit: number;
  status?: OrderStatus;
  since?: Date;
  after?: ChangePosition;
}

/**
 * A sync page (updated_since, or a change cursor), or undefined for an ordinary list.
 * The cursor alone says where the page starts: updated_since may come with it and is
 * then not applied, so a change that committed late is not left out for its time.
 */
export function validateChangesPage(
  request: Pick<ListOrdersRequest, "limit" | "offset" | "status" | "search" | "cursor" | "startingAfter" | "updatedSince">,
): ChangesPage | undefined {
  const after = isChangeCursor(request.cursor) ? parseChangeCursor(request.cursor) : undefined;
  if (request.updatedSince === "" && !after) return undefined;
  let since: Date | undefined;
  if (request.updatedSince !== "") {
    since = parseRfc3339(request.updatedSince);
    if (!since) throw fieldError("updated_since", "must be an RFC 3339 date-time with an offset, such as 2026-01-31T08:00:00Z");
  }
  if (request.cursor !== "" && !after) throw fieldError("cursor", "is not a cursor this service gave");
  if (request.startingAfter) throw fieldError("starting_after", "cannot be given with updated_since or a change cursor: the cursor pages a sync");
  if (request.offset !== 0) throw fieldError("offset", "must be 0 with updated_since");
  if (request.search !== "") throw fieldError("search", "cannot be given with updated_since");
  if (request.limit < 1 || request.limit > MAX_CHANGES_PAGE) throw fieldError("limit", `must be an integer from 1 to ${MAX_CHANGES_PAGE}`);
  return { limit: request.limit, status: statusFilter(request.status), since, after };
}

/** The position a change cursor names; INVALID_ARGUMENT naming `cursor` for anything this service did not give. */
export function parseChangeCursor(cursor: string): ChangePosition {
  const position = readChangeCursor(cursor);
  if (!position) throw fieldError("cursor", "is not a cursor this service gave");
  return position;
}

/** The most orders one sync page holds, as GET /v1/orders's other pages. */
const MAX_CHANGES_PAGE = 50;

/** GET /v1/orders paging and filter (docs/api.md#listing-orders), and the dashboard's search (docs/dashboard.md#orders). */
export function validateListOrders(request: Pick<ListOrdersRequest, "limit" | "offset" | "status" | "search" | "cursor" | "startingAfter">): {
  limit: number;
  offset: number;
  status?: OrderStatus;
  search?: string;
  cursor?: { at: string; id: string };
  startingAfter?: string;
} {
  // A keyset walk (an export) may take bigger pages: each costs the same however deep.
  const cursor = request.cursor ? parseOrderCursor(request.cursor) : undefined;
  const maxLimit = cursor ? 500 : 50;
  if (request.limit < 1 || request.limit > maxLimit) throw fieldError("limit", cursor ? "must be an integer from 1 to 500 with a cursor" : "must be an integer from 1 to 50");
  if (request.offset < 0) throw fieldError("offset", "must be 0 or more");
  if (cursor && request.offset !== 0) throw fieldError("offset", "must be 0 with a cursor");
  if (request.startingAfter && !isUuid(request.startingAfter)) throw fieldError("starting_after", "must be a UUID");
  if (request.startingAfter && request.offset !== 0) throw fieldError("offset", "must be 0 with starting_after");
  if (request.startingAfter && cursor) throw fieldError("starting_after", "cannot be given with a cursor");
  const status = statusFilter(request.status);
  if (request.search.length > MAX_SEARCH_LENGTH) throw fieldError("search", `must be at most ${MAX_SEARCH_LENGTH} characters`);
  return {
    limit: request.limit,
    offset: request.offset,
    status,
    search: request.search || undefined,
    cursor,
    startingAfter: request.startingAfter ? request.startingAfter.toLowerCase() : undefined,
  };
}

/** A ListOrders cursor: base64url of "<created_at to the microsecond>_<id>". */
export function orderCursor(at: string, id: string): string {
  return Buffer.from(`${at}_${id}`, "utf8").toString("base64url");
}

function parseOrderCursor(cursor: string): { at: string; id: string } {
  const [at, id, extra] = Buffer.from(cursor, "base64url").toString("utf8").split("_");
  if (extra !== undefined || !at || !id || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(at) || !isUuid(id)) {
    throw fieldError("cursor", "is not a cursor this service gave");
  }
  return { at, id: id.toLowerCase() };
}

/** CountOrders' filter. */
export function validateCountOrders(request: Pick<CountOrdersRequest, "status">): { status?: OrderStatus } {
  return { status: statusFilter(request.status) };
}

// Bank reconciliation (docs/reconciliation.md).

export { MAX_MUTATIONS_PER_CALL, MAX_MUTATION_AMOUNT } from "../../common/bank-mutations.js";
export const DEFAULT_MUTATION_LIST_LIMIT = 100;

export interface ValidMutation {
  id: string;
  amount: number;
  type: "credit" | "debit";
  occurredAt: Date;
  description: string;
}

/** A mutation id: 1–100 characters, taken as given (the bank's spelling is the key). */
export function requireMutationId(value: string, field: string): string {
  const problem = mutationIdProblem(value);
  if (problem) throw fieldError(field, problem);
  return value;
}

/**
 * Every mutation of a ReconcileMutations request, checked before any is applied
 * (common/bank-mutations.ts has the rules); every failure is reported, each naming
 * `mutations[i].field`.
 */
export function validateReconcileMutations(request: Pick<ReconcileMutationsRequest, "mutations">): ValidMutation[] {
  const count = request.mutations.length;
  const problems: FieldProblem[] = [];
  if (count < 1 || count > MAX_MUTATIONS_PER_CALL) problems.push({ field: "mutations", description: `must have 1 to ${MAX_MUTATIONS_PER_CALL} mutations` });
  for (const p of findMutationProblems(request.mutations, MAX_FIELD_VIOLATIONS)) {
    problems.push({ field: `mutations[${p.index}].${p.field}`, description: p.message });
  }
  throwFieldProblems(problems);
  return request.mutations.map(
    (m): ValidMutation => ({ id: m.id, amount: Number(m.amount), type: m.type as ValidMutation["type"], occurredAt: parseRfc3339(m.occurredAt)!, description: m.description }),
  );
}

/** ListMutations: `limit` 1–500, 0 for the default (100). */
export function validateListMutations(request: Pick<ListMutationsRequest, "review" | "limit">): { review: boolean; limit: number } {
  if (request.limit === 0) return { review: request.review, limit: DEFAULT_MUTATION_LIST_LIMIT };
  if (request.limit < 1 || request.limit > MAX_MUTATION_LIST_LIMIT) {
    throw fieldError("limit", `must be an integer from 1 to ${MAX_MUTATION_LIST_LIMIT} (0 for ${DEFAULT_MUTATION_LIST_LIMIT})`);
  }
  return { review: request.review, limit: request.limit };
}

export type OrderKey = { orderId: string } | { paymentReference: string };

/** AssignMutation's order: exactly one of `order_id` (a UUID) or `payment_reference` (any letter case). */
export function validateOrderKey(request: Pick<AssignMutationRequest, "orderId" | "paymentReference">): OrderKey {
  const byId = request.orderId !== "";
  const byReference = request.paymentReference !== "";
  if (byId === byReference) throw fieldError("order_id", "give exactly one of order_id or payment_reference");
  if (byId) return { orderId: requireUuid(request.orderId, "order_id") };
  const reference = request.paymentReference.toUpperCase();
  if (!isPaymentReference(reference)) throw fieldError("payment_reference", "must be a payment reference such as SO-ABCDEFGH2345");
  return { paymentReference: reference };
}

/** A refund request's own fields (docs/refunds.md), every failing one reported; the amount's bound against the order is refunds.ts's. */
export function validateRefundOrder(request: Pick<RefundOrderRequest, "amount" | "reason" | "reference" | "idempotencyKey">) {
  const problems: FieldProblem[] = [];
  const text = (value: string, field: string, min: number, max: number) => {
    const problem = textProblem(value);
    const length = [...value].length;
    if (problem) problems.push({ field, description: problem });
    else if (length < min || length > max) problems.push({ field, description: min > 0 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters` });
    return value;
  };
  let amount: number | undefined;
  if (request.amount !== undefined) {
    if (request.amount < 1n || request.amount > BigInt(Number.MAX_SAFE_INTEGER)) problems.push({ field: "amount", description: "must be a positive integer" });
    else amount = Number(request.amount);
  }
  const reason = text(request.reason.trim(), "reason", 1, MAX_REFUND_REASON_LENGTH);
  const reference = request.reference === undefined || request.reference === "" ? undefined : text(request.reference, "reference", 0, MAX_REFUND_REFERENCE_LENGTH);
  if (request.idempotencyKey !== undefined) text(request.idempotencyKey, "Idempotency-Key", 1, MAX_IDEMPOTENCY_KEY_LENGTH);
  throwFieldProblems(problems);
  return { amount, reason, reference, idempotencyKey: request.idempotencyKey };
}
