import { jakartaWallClock } from "../../../common/jakarta-time.js";
import { snapPaymentType } from "../../../common/payment-methods.js";
import { GatewayUnavailable, type PaymentGateway, type SessionRequest } from "./types.js";

/**
 * The Midtrans Snap adapter: `POST {base}/snap/v1/transactions` with the server key as
 * Basic auth. Item details are sent so they sum to `gross_amount`, as Snap requires.
 */
export function createMidtransGateway(options: {
  baseUrl: string;
  serverKey: string;
  clientKey: string;
  timeoutMs?: number;
}): PaymentGateway {
  const base = options.baseUrl.replace(/\/+$/, "");
  const authorization = `Basic ${Buffer.from(`${options.serverKey}:`).toString("base64")}`;
  return {
    provider: "midtrans",
    snapScriptUrl: `${base}/snap/snap.js`,
    clientKey: options.clientKey,
    async createSession(request: SessionRequest) {
      const now = Date.now();
      const minutes = Math.max(1, Math.floor((request.expiresAt.getTime() - now) / 60_000));
      const payment = snapPaymentType(request.method);
      const body = {
        transaction_details: { order_id: request.orderId, gross_amount: request.amount },
        item_details: request.items.map((item) => ({
          id: item.id,
          price: item.price,
          quantity: item.quantity,
          name: item.name.slice(0, 50),
        })),
        customer_details: { first_name: request.buyer.name, email: request.buyer.email, phone: request.buyer.phone },
        ...(payment ? { enabled_payments: [payment] } : {}),
        callbacks: { finish: request.finishUrl },
        expiry: { start_time: `${jakartaWallClock(new Date(now))} +0700`, unit: "minute", duration: minutes },
      };
      let response: Response;
      try {
        response = await fetch(`${base}/snap/v1/transactions`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", authorization },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
          redirect: "error",
        });
      } catch (error) {
        throw new GatewayUnavailable(`midtrans unreachable: ${(error as Error).message}`);
      }
      const text = await response.text().catch(() => "");
      if (response.status !== 201 && response.status !== 200) {
        throw new GatewayUnavailable(`midtrans answered ${response.status}: ${text.slice(0, 200)}`);
      }
      let parsed: { token?: unknown; redirect_url?: unknown };
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new GatewayUnavailable("midtrans answered with something other than JSON");
      }
      if (typeof parsed.token !== "string" || typeof parsed.redirect_url !== "string") {
        throw new GatewayUnavailable("midtrans answer lacks token or redirect_url");
      }
      return { token: parsed.token, redirectUrl: parsed.redirect_url };
    },
  };
}
