import { createHash, timingSafeEqual } from "node:crypto";

// Midtrans' notification signature (docs/payments.md#notifications), for the order service that checks it
// and the sandbox pages that make it.

export interface SignedFields {
  order_id: string;
  status_code: string;
  gross_amount: string;
}

/** SHA-512 hex of order_id + status_code + gross_amount + server key. */
export function midtransSignature(fields: SignedFields, serverKey: string): string {
  return createHash("sha512").update(fields.order_id + fields.status_code + fields.gross_amount + serverKey, "utf8").digest("hex");
}

export function verifyMidtransSignature(fields: SignedFields & { signature_key: string }, serverKey: string): boolean {
  const expected = Buffer.from(midtransSignature(fields, serverKey), "utf8");
  const given = Buffer.from(fields.signature_key.toLowerCase(), "utf8");
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * The Core API host that goes with a Snap host: Midtrans serves Snap at
 * app[.sandbox].midtrans.com and the Core API (status, refund, expire…) at
 * api[.sandbox].midtrans.com. Any other host (a local fake) is taken to serve both.
 */
export function defaultMidtransApiBaseUrl(snapBaseUrl: string): string {
  const base = snapBaseUrl.replace(/\/+$/, "");
  try {
    const url = new URL(base);
    if (url.hostname === "app.midtrans.com" || url.hostname === "app.sandbox.midtrans.com") {
      url.hostname = `api${url.hostname.slice("app".length)}`;
      return url.toString().replace(/\/+$/, "");
    }
  } catch {
    // not a URL: left as given, the calls will fail as unreachable
  }
  return base;
}
