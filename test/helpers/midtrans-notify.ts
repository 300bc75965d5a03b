import { createHash, randomUUID } from "node:crypto";
import { api, type ApiResponse } from "./http.js";

/** SHA-512 hex of order_id + status_code + gross_amount + server key, as Midtrans signs. */
export function midtransSignatureOf(orderId: string, statusCode: string, grossAmount: string, serverKey: string): string {
  return createHash("sha512").update(orderId + statusCode + grossAmount + serverKey).digest("hex");
}

export interface NotificationFields {
  transaction_status: string;
  fraud_status?: string;
  status_code?: string;
  gross_amount?: string;
}

/** A Midtrans HTTP notification for `reference`, signed with `serverKey` unless overridden. */
export function midtransNotification(
  reference: string,
  amount: number,
  fields: NotificationFields,
  serverKey: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const statusCode = fields.status_code ?? (["settlement", "capture", "refund"].includes(fields.transaction_status) ? "200" : fields.transaction_status === "pending" ? "201" : "202");
  const grossAmount = fields.gross_amount ?? `${amount}.00`;
  return {
    transaction_time: "2026-01-02 10:11:12",
    transaction_status: fields.transaction_status,
    transaction_id: randomUUID(),
    status_message: "midtrans payment notification",
    status_code: statusCode,
    signature_key: midtransSignatureOf(reference, statusCode, grossAmount, serverKey),
    payment_type: "qris",
    order_id: reference,
    merchant_id: "G000000000",
    gross_amount: grossAmount,
    fraud_status: fields.fraud_status ?? "accept",
    currency: "IDR",
    ...overrides,
  };
}

/** POSTs a notification body to the gateway's public notification endpoint. */
export function postNotification(baseUrl: string, body: unknown): Promise<ApiResponse> {
  return api(baseUrl, "/v1/payments/notifications/midtrans", { method: "POST", json: body });
}

/** The text a browser shows for an HTML page: tags dropped, entities decoded, spaces collapsed. */
export function visibleText(html: string): string {
  return html
    .replace(/<(script|style|title)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<\/?(?:div|p|li|ul|dl|dt|dd|table|tr|td|th|section|header|footer|main|h\d|form|button|br)\b[^>]*>/gi, " ")
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, "`")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}
