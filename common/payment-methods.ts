// Our payment method codes, their display names, and what each means to Midtrans Snap
// (docs/api.md#payment-methods: the codes are ours, and the adapter translates them into Snap's enabled_payments).

export interface GatewayMethod {
  code: string;
  name: string;
  /** Snap's `enabled_payments` value, also the `payment_type` its notifications carry. */
  snap: string;
}

export const BANK_TRANSFER = { code: "bank_transfer", name: "Bank Transfer" } as const;

export const GATEWAY_METHODS: readonly GatewayMethod[] = [
  { code: "qris", name: "QRIS", snap: "other_qris" },
  { code: "gopay", name: "GoPay", snap: "gopay" },
  { code: "shopeepay", name: "ShopeePay", snap: "shopeepay" },
  { code: "bca_va", name: "BCA Virtual Account", snap: "bca_va" },
  { code: "bni_va", name: "BNI Virtual Account", snap: "bni_va" },
  { code: "bri_va", name: "BRI Virtual Account", snap: "bri_va" },
  { code: "permata_va", name: "Permata Virtual Account", snap: "permata_va" },
  { code: "credit_card", name: "Credit Card", snap: "credit_card" },
];

/** The method of a free order (docs/api.md#pricing, "total 0"). */
export const NO_PAYMENT = { code: "none", name: "No payment needed" } as const;

/** A method code as a person reads it; an unknown code as itself. */
export function methodName(code: string): string {
  if (code === BANK_TRANSFER.code) return BANK_TRANSFER.name;
  if (code === NO_PAYMENT.code) return NO_PAYMENT.name;
  return GATEWAY_METHODS.find((method) => method.code === code)?.name ?? code;
}

export function snapPaymentType(code: string): string | undefined {
  return GATEWAY_METHODS.find((method) => method.code === code)?.snap;
}
