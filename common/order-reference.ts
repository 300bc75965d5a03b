// An order as a person names it: its id (a UUID) or its payment reference (SO-…), in any
// letter case, the way the dashboard's search takes it (docs/cli.md#how-it-runs). One
// reading for the CLI's --order and the dashboard's Events filter.
import type { ListOrdersRequest, ListOrdersResponse } from "../gen/order/v1/order_pb.js";
import { isPaymentReference, isUuid } from "./ids.js";

export type OrderKey = { orderId: string } | { paymentReference: string };

/** The id (lower case) or the reference (upper case) that `text` names; undefined when it is neither. */
export function orderKeyOf(text: string): OrderKey | undefined {
  const trimmed = text.trim();
  if (isUuid(trimmed)) return { orderId: trimmed.toLowerCase() };
  const reference = trimmed.toUpperCase();
  return isPaymentReference(reference) ? { paymentReference: reference } : undefined;
}

/**
 * The id of the order `key` names in the store, through ListOrders' search (which finds a
 * reference in any letter case); undefined when no order of the store has that reference.
 * An id is returned as it is: the call that uses it says whether the store has it.
 */
export async function orderIdOf(
  listOrders: (request: Pick<ListOrdersRequest, "storeId" | "search" | "limit">) => Promise<Pick<ListOrdersResponse, "orders">>,
  storeId: string,
  key: OrderKey,
): Promise<string | undefined> {
  if ("orderId" in key) return key.orderId;
  const { orders } = await listOrders({ storeId, search: key.paymentReference, limit: 10 });
  // The search also matches an external id or an email equal to the text: only a reference counts.
  const found = orders.find((order) => order.paymentReference === key.paymentReference);
  return found?.id;
}
