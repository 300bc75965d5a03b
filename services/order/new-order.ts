// What a new order row holds before it is written (docs/api.md#creating-an-order): the buyer, the chosen
// method, the seller's bank details as they are now, the redirect URLs with their
// defaults, the expiry, and a payment reference. Pure: the caller supplies the id and
// the clock reading.
import { randomBytes } from "node:crypto";
import type { Store } from "../../gen/catalog/v1/catalog_pb.js";
import type { Buyer, CreateOrderRequest } from "../../gen/order/v1/order_pb.js";
import type { PaymentKind, PaymentMethodInfo } from "./payment-methods.js";
import type { NewOrder, OrderRow } from "./db/orders.js";

/** A new order without what the insert decides: reference, unique code, amount. */
export type OrderDraft = Omit<NewOrder, "payment_reference" | "unique_amount_code" | "amount"> & { id: string };

export interface RedirectUrls {
  successUrl: string;
  returnUrl: string;
  errorUrl: string;
}

/**
 * What the client asked for, as CreateOrder carries it once validation.ts has passed it
 * (a buyer is there); its items are priced apart. draftOrder reads the order's own fields
 * from it, so a field a client sends is named here and in validation.ts, not on the way.
 */
export type OrderRequest = Omit<CreateOrderRequest, "items" | "buyer"> & { buyer: Buyer };

export interface DraftInput {
  id: string;
  request: OrderRequest;
  /** One clock reading for both, so expires_at is exactly created_at + the window. */
  now: Date;
  paymentWindowMs: number;
  checkoutUrl: string;
  kind: PaymentKind;
  method?: PaymentMethodInfo;
  subtotal: number;
  store: Pick<Store, "name" | "bankAccount" | "redirects">;
  /** The catalog held units for the order (docs/orders.md#stock). */
  holdsStock: boolean;
}

/** Each URL: the request's, else the store's, else the order's checkout page. */
export function redirectsFor(requested: RedirectUrls | undefined, storeDefaults: RedirectUrls | undefined, checkoutUrl: string): RedirectUrls {
  const pick = (mine: string | undefined, theirs: string | undefined) => mine || theirs || checkoutUrl;
  return {
    successUrl: pick(requested?.successUrl, storeDefaults?.successUrl),
    returnUrl: pick(requested?.returnUrl, storeDefaults?.returnUrl),
    errorUrl: pick(requested?.errorUrl, storeDefaults?.errorUrl),
  };
}

export function draftOrder(input: DraftInput): OrderDraft {
  const { request } = input;
  const bank = input.kind === "bank_transfer" ? input.store.bankAccount! : undefined;
  const redirect = redirectsFor(request.redirect, input.store.redirects, input.checkoutUrl);
  return {
    id: input.id,
    store_id: request.storeId,
    payment_kind: input.kind,
    payment_method: input.method?.code ?? "none",
    payment_provider: input.method?.provider ?? "none",
    settlement_channel: input.method?.settlement_channel ?? "none",
    subtotal: input.subtotal,
    buyer_name: request.buyer.name.trim(),
    buyer_email: request.buyer.email,
    buyer_phone: request.buyer.phone,
    bank_name: bank ? bank.bankName : null,
    bank_code: bank ? bank.bankCode : null,
    account_number: bank ? bank.accountNumber : null,
    account_holder: bank ? bank.accountHolder : null,
    store_name: input.store.name,
    success_url: redirect.successUrl,
    return_url: redirect.returnUrl,
    error_url: redirect.errorUrl,
    external_id: request.externalId ?? null,
    metadata: { ...request.metadata },
    expires_at: new Date(input.now.getTime() + input.paymentWindowMs),
    created_at: input.now,
    updated_at: input.now,
    // Set by the caller for a gateway order whose gateway can be asked (gateway-checks.ts).
    next_status_check_at: null,
    // A test key's order (docs/keys.md#test-mode); a caller that does not say makes a live one.
    livemode: !request.testMode,
    holds_stock: input.holdsStock,
  };
}

/** The row to insert: a fresh reference, and `amount = subtotal + code` (code null: no code). */
export function withReference(draft: OrderDraft, uniqueAmountCode: number | null): NewOrder & { id: string } {
  return {
    ...draft,
    payment_reference: newPaymentReference(),
    unique_amount_code: uniqueAmountCode,
    amount: draft.subtotal + (uniqueAmountCode ?? 0),
  };
}

/** Every amount is in rupiah. */
export const CURRENCY = "IDR";

/** The order row as insertNewOrder writes it: pending, in rupiah. */
export function pendingRow(order: NewOrder & { id: string }): OrderRow {
  return { ...order, status: "pending", currency: CURRENCY, refunded_amount: 0, status_checks: 0, gateway_expire_at: null, paid_at: null };
}

const REFERENCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** "SO-" and 12 characters that cannot be misread (no O/0, I/1). */
export function newPaymentReference(bytes: Uint8Array = randomBytes(12)): string {
  let out = "SO-";
  for (const byte of bytes) out += REFERENCE_ALPHABET[byte % 32];
  return out;
}
