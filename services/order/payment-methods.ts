// The payment methods a store offers, and which one an order uses (docs/api.md#payment-methods). Pure.
import { BANK_TRANSFER, GATEWAY_METHODS } from "../../common/payment-methods.js";
import { fieldError } from "../../platform/field-errors.js";

export type PaymentProvider = "sandbox" | "midtrans";

export interface PaymentMethodInfo {
  code: string;
  name: string;
  kind: "bank_transfer" | "gateway";
  provider: string;
  settlement_channel: "seller_bank" | "gateway";
}

export function paymentMethodsFor(store: { hasBankAccount: boolean }, provider: PaymentProvider): PaymentMethodInfo[] {
  const methods: PaymentMethodInfo[] = [];
  if (store.hasBankAccount) {
    methods.push({
      code: BANK_TRANSFER.code,
      name: BANK_TRANSFER.name,
      kind: "bank_transfer",
      provider: "manual",
      settlement_channel: "seller_bank",
    });
  }
  for (const method of GATEWAY_METHODS) {
    methods.push({ code: method.code, name: method.name, kind: "gateway", provider, settlement_channel: "gateway" });
  }
  return methods;
}

export type PaymentKind = "none" | "bank_transfer" | "gateway";

/**
 * How an order of `subtotal` is paid: nothing to pay (kind "none", and a named method
 * must still be one the store offers), else the requested method, which is then
 * required and must be offered.
 */
export function choosePaymentMethod(
  subtotal: number,
  requested: string,
  offered: PaymentMethodInfo[],
): { kind: PaymentKind; method?: PaymentMethodInfo } {
  if (subtotal === 0) {
    if (requested !== "" && !offered.some((m) => m.code === requested)) {
      throw fieldError("payment_method", "is not offered by this store");
    }
    return { kind: "none" };
  }
  if (requested === "") throw fieldError("payment_method", "is required when the total is above 0");
  const method = offered.find((m) => m.code === requested);
  if (!method) throw fieldError("payment_method", "is not offered by this store");
  return { kind: method.kind, method };
}
