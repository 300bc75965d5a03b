import type { OrderStatus } from "./status-machine.js";

export interface MidtransNotification {
  order_id: string;
  status_code: string;
  gross_amount: string;
  signature_key: string;
  transaction_status: string;
  fraud_status?: string;
}

/** "150000.00" → 150000; anything that is not a whole rupiah amount → undefined. */
export function parseGrossAmount(text: string): number | undefined {
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  if (match[2] && Number(match[2]) !== 0) return undefined;
  return Number(match[1]);
}

/** What a Midtrans transaction status means for the order; undefined = no change. */
export function statusFromMidtrans(n: Pick<MidtransNotification, "transaction_status" | "fraud_status">): OrderStatus | undefined {
  switch (n.transaction_status) {
    case "settlement":
      return "paid";
    case "capture":
      return n.fraud_status === undefined || n.fraud_status === "accept" ? "paid" : undefined;
    case "deny":
    case "failure":
      return "failed";
    case "cancel":
      return "cancelled";
    case "expire":
      return "expired";
    case "refund":
      return "refunded";
    default:
      return undefined; // "pending", "authorize", anything new: nothing to do yet
  }
}

/** Parses a notification body; undefined when a required field is missing. */
export function parseMidtransNotification(body: Uint8Array): MidtransNotification | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const n = value as Record<string, unknown>;
  const text = (field: string) => (typeof n[field] === "string" ? (n[field] as string) : undefined);
  const orderId = text("order_id");
  const statusCode = text("status_code");
  const gross = typeof n.gross_amount === "number" ? String(n.gross_amount) : text("gross_amount");
  const signature = text("signature_key");
  const status = text("transaction_status");
  if (!orderId || !statusCode || !gross || !signature || !status) return undefined;
  return {
    order_id: orderId,
    status_code: statusCode,
    gross_amount: gross,
    signature_key: signature,
    transaction_status: status,
    fraud_status: text("fraud_status"),
  };
}
