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

/** What the order service needs of a payment gateway, whichever it is. */
export interface PaymentGateway {
  readonly provider: "sandbox" | "midtrans";
  /** URL of the gateway's client script, for `payment.snap.snap_script_url`. */
  readonly snapScriptUrl: string;
  readonly clientKey: string;
  createSession(request: SessionRequest): Promise<Session>;
}

export class GatewayUnavailable extends Error {}
