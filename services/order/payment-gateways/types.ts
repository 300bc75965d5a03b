export interface SessionRequest {
  /** Our payment_reference: the gateway's order id. */
  orderId: string;
  amount: number;
  method: string;
  items: { id: string; name: string; price: number; quantity: number }[];
  buyer: { name: string; email: string; phone: string };
  /** When the payment page must stop taking payment. */
  expiresAt: Date;
  /** Where the gateway sends the buyer after paying. */
  finishUrl: string;
}

export interface Session {
  token: string;
  redirectUrl: string;
}

export interface RefundRequest {
  /** Our payment_reference: the gateway's order id. */
  orderId: string;
  /** Our refund's id: the same key on every retry, so the gateway refunds once. */
  refundKey: string;
  amount: number;
  reason: string;
}

/** The gateway's answer to a refund; a gateway that is away throws GatewayUnavailable instead. */
export type RefundAnswer = { kind: "succeeded"; gatewayRefundId?: string } | { kind: "refused"; message: string };

/**
 * The gateway's own word on a transaction (Midtrans `GET /v2/{id}/status`): `found`
 * carries the answer's fields, which are a notification's (order_id, status_code,
 * gross_amount, signature_key, transaction_status, fraud_status, refunds…);
 * `not_found` when the gateway has no transaction for the order (the buyer never
 * reached the payment page).
 */
export type StatusAnswer = { kind: "found"; fields: Record<string, unknown> } | { kind: "not_found" };

/**
 * The gateway's answer to "expire this transaction": `expired` (or it already was),
 * `not_found` (nothing to expire), or `refused` (it is past that: paid, say).
 */
export type ExpireAnswer = { kind: "expired" } | { kind: "not_found" } | { kind: "refused"; message: string };

/** What the order service needs of a payment gateway, whichever it is. */
export interface PaymentGateway {
  readonly provider: "sandbox" | "midtrans";
  /** URL of the gateway's client script, for `payment.snap.snap_script_url`. */
  readonly snapScriptUrl: string;
  readonly clientKey: string;
  createSession(request: SessionRequest): Promise<Session>;
  /** Gives money back on a paid transaction. Throws GatewayUnavailable when the gateway is away. */
  refund(request: RefundRequest): Promise<RefundAnswer>;
  /**
   * Asks the gateway about a transaction. Absent when the gateway has no word of its
   * own (the sandbox: its pages send notifications, so there is nothing to ask).
   * Throws GatewayUnavailable when the gateway is away.
   */
  status?(orderId: string): Promise<StatusAnswer>;
  /** Stops a transaction from taking payment. Absent with `status`. Throws GatewayUnavailable when away. */
  expire?(orderId: string): Promise<ExpireAnswer>;
}

export class GatewayUnavailable extends Error {}
