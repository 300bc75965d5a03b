// The dashboard's order search (docs/dashboard.md#orders): one box that takes a payment reference,
// an external id or a buyer email. Pure: what a search text can match; db/order-lists.ts looks
// it up (the email's letter case is folded there, by the same lower() its index uses).
import { isPaymentReference } from "../../common/ids.js";
import type { OrderFilter } from "./db/order-lists.js";

export function searchFilter(text: string): NonNullable<OrderFilter["search"]> {
  // ASCII letters only: references are [A-Z0-9-], and a full Unicode case mapping would
  // let a dotless "ı" stand for "I". Text that cannot be a reference skips that lookup.
  const upper = text.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
  return isPaymentReference(upper) ? { text, reference: upper } : { text };
}
