// How the hosted pages and the dashboard show money, times and statuses: one set of
// rules for every page.
import { jakartaDisplay } from "../../common/jakarta-time.js";

/** 435228 → "435.228" (Indonesian digit grouping). */
export function groupDigits(amount: bigint | number): string {
  const text = BigInt(amount).toString();
  const negative = text.startsWith("-");
  const digits = negative ? text.slice(1) : text;
  return (negative ? "-" : "") + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ".");
}

/** 435228 → "Rp 435.228". */
export function rupiah(amount: bigint | number): string {
  return `Rp ${groupDigits(amount)}`;
}

/** "21 November 2026, 17:40 WIB"; the input as given when it is not a time. */
export const wib = jakartaDisplay;

/** Only http(s) URLs may become links; anything else (javascript:, data:) is dropped. */
export function safeHttpUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

export const STATUS_LABELS: Record<string, string> = {
  pending: "Awaiting payment",
  paid: "Paid",
  failed: "Payment failed",
  expired: "Expired",
  cancelled: "Cancelled",
  refunded: "Refunded",
};
