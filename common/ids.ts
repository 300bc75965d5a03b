// Identifier shapes the whole system agrees on.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in any letter case (ids are stored and compared in lower case). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

// Every payment reference has this shape; the orders table's check constraint says the same.
export const PAYMENT_REFERENCE = /^[A-Z0-9-]{8,40}$/;

export function isPaymentReference(value: string): boolean {
  return PAYMENT_REFERENCE.test(value);
}
