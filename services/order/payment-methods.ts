// The payment methods a store offers (CONTRACT §4).

export type PaymentProvider = "sandbox" | "midtrans";

export interface PaymentMethodInfo {
  code: string;
  name: string;
  kind: "bank_transfer" | "gateway";
  provider: string;
  settlement_channel: "seller_bank" | "gateway";
}

/** Our method codes and the Snap `enabled_payments` value each maps onto. */
export const GATEWAY_METHODS: readonly { code: string; name: string; snap: string }[] = [
  { code: "qris", name: "QRIS", snap: "other_qris" },
  { code: "gopay", name: "GoPay", snap: "gopay" },
  { code: "shopeepay", name: "ShopeePay", snap: "shopeepay" },
  { code: "bca_va", name: "BCA Virtual Account", snap: "bca_va" },
  { code: "bni_va", name: "BNI Virtual Account", snap: "bni_va" },
  { code: "bri_va", name: "BRI Virtual Account", snap: "bri_va" },
  { code: "permata_va", name: "Permata Virtual Account", snap: "permata_va" },
  { code: "credit_card", name: "Credit Card", snap: "credit_card" },
];

export function paymentMethodsFor(store: { hasBankAccount: boolean }, provider: PaymentProvider): PaymentMethodInfo[] {
  const methods: PaymentMethodInfo[] = [];
  if (store.hasBankAccount) {
    methods.push({
      code: "bank_transfer",
      name: "Bank Transfer",
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

export function snapPaymentType(code: string): string | undefined {
  return GATEWAY_METHODS.find((method) => method.code === code)?.snap;
}
