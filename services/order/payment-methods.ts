// The payment methods a store offers (CONTRACT §4).
import { BANK_TRANSFER, GATEWAY_METHODS } from "../../common/payment-methods.js";

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
