// The orders export (docs/dashboard.md#orders-export): one CSV for the dashboard's "Export CSV" and
// `store-admin order export`, streamed page by page over ListOrders' keyset cursor, so
// it never holds more than a page and costs the same for the millionth order as for the
// first. A header row, amounts as integers (rupiah), times in ISO 8601 UTC. csv-stringify
// does the quoting (RFC 4180); a cell that a spreadsheet would run as a formula gets a
// leading apostrophe (OWASP's CSV injection advice), since buyer names come from anyone.
import { stringify } from "csv-stringify/sync";
import type { ListOrdersRequest, ListOrdersResponse, Order } from "../gen/order/v1/order_pb.js";

export const ORDER_CSV_COLUMNS = [
  "id",
  "payment_reference",
  "external_id",
  "status",
  "amount",
  "subtotal",
  "refunded_amount",
  "currency",
  "payment_method",
  "buyer_name",
  "buyer_email",
  "buyer_phone",
  "items",
  "created_at",
  "expires_at",
] as const;

/** Rows per ListOrders call of an export. */
export const EXPORT_PAGE = 500;

const FORMULA = /^[=+\-@\t\r]/;
const safe = (text: string) => (FORMULA.test(text) ? `'${text}` : text);

export function orderCsvRow(order: Order): string[] {
  return [
    order.id,
    order.paymentReference,
    safe(order.externalId ?? ""),
    order.status,
    String(order.amount),
    String(order.subtotal),
    String(order.refundedAmount),
    order.currency,
    order.paymentMethod,
    safe(order.buyer?.name ?? ""),
    safe(order.buyer?.email ?? ""),
    safe(order.buyer?.phone ?? ""),
    String(order.items.reduce((count, item) => count + item.quantity, 0)),
    order.createdAt,
    order.expiresAt,
  ];
}

export const csvLine = (cells: readonly string[]) => stringify([cells], { record_delimiter: "windows" });

/** The export as CSV text, page by page: the header, then each page's rows as they come. */
export async function* orderCsv(
  listOrders: (request: Pick<ListOrdersRequest, "storeId" | "limit" | "offset" | "status" | "search" | "cursor">) => Promise<Pick<ListOrdersResponse, "orders" | "hasMore" | "nextCursor">>,
  filter: { storeId: string; status?: string; search?: string },
): AsyncGenerator<string> {
  const pageAfter = (cursor: string) =>
    // The first page is an ordinary one (ListOrders allows 50 without a cursor).
    listOrders({ storeId: filter.storeId, status: filter.status ?? "", search: filter.search ?? "", offset: 0, limit: cursor ? EXPORT_PAGE : 50, cursor });
  // The first page is asked for before anything is written: a refused filter or an
  // outage fails the export whole, not after its header.
  let page = await pageAfter("");
  yield csvLine(ORDER_CSV_COLUMNS);
  for (;;) {
    if (page.orders.length > 0) yield stringify(page.orders.map(orderCsvRow), { record_delimiter: "windows" });
    if (!page.hasMore || !page.nextCursor) return;
    page = await pageAfter(page.nextCursor);
  }
}
