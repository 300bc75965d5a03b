import { jakartaWallClock } from "../../../common/jakarta-time.js";
import { snapPaymentType } from "../../../common/payment-methods.js";
import {
  GatewayUnavailable,
  type ExpireAnswer,
  type PaymentGateway,
  type RefundAnswer,
  type RefundRequest,
  type SessionRequest,
  type StatusAnswer,
} from "./types.js";

export { defaultMidtransApiBaseUrl } from "../../../common/midtrans.js";
import { defaultMidtransApiBaseUrl } from "../../../common/midtrans.js";

/** What the Core API said: the body's `status_code` (Midtrans' own code) and the parsed body. */
interface CoreAnswer {
  statusCode: string;
  body: Record<string, unknown>;
}

const nonEmpty = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * The Midtrans adapter.
 *
 * Snap: `POST {baseUrl}/snap/v1/transactions` with the server key as Basic auth. Item
 * details are sent so they sum to `gross_amount`, as Snap requires.
 *
 * Core API (`apiBaseUrl`, MIDTRANS_API_BASE_URL): `POST /v2/{order_id}/refund`,
 * `GET /v2/{order_id}/status`, `POST /v2/{order_id}/expire`, same Basic auth.
 * Per Midtrans' API reference ("Status Codes", "Get Transaction Status", "Refund
 * Transaction", "Expire Transaction"), these answer mostly with HTTP 200 whatever
 * happened and carry the outcome in the body's `status_code` string ("200" success,
 * "201" pending, "404" no such transaction, "407" expired, "412" the transaction's status
 * cannot be changed, "5xx" Midtrans' own trouble); some errors also come with the same
 * HTTP status (an unknown transaction has been seen both as HTTP 200 and as HTTP 404 with
 * `{"status_code":"404","status_message":"Transaction doesn't exist."}`), so the body's
 * code is what is read, the HTTP status only when the body has none.
 */
export function createMidtransGateway(options: {
  /** Snap host, MIDTRANS_BASE_URL, e.g. https://app.sandbox.midtrans.com. */
  baseUrl: string;
  /**
   * Core API host, MIDTRANS_API_BASE_URL, e.g. https://api.sandbox.midtrans.com.
   * Defaults to `defaultMidtransApiBaseUrl(baseUrl)`.
   */
  apiBaseUrl?: string;
  serverKey: string;
  clientKey: string;
  timeoutMs?: number;
}): PaymentGateway {
  const base = options.baseUrl.replace(/\/+$/, "");
  const apiBase = (options.apiBaseUrl ?? defaultMidtransApiBaseUrl(base)).replace(/\/+$/, "");
  const authorization = `Basic ${Buffer.from(`${options.serverKey}:`).toString("base64")}`;
  const timeoutMs = options.timeoutMs ?? 5_000;

  /**
   * Calls the Core API for one transaction and reads the answer. Throws GatewayUnavailable
   * when Midtrans is away or its answer cannot be trusted to be about the transaction:
   * unreachable, timed out, HTTP 5xx, not a JSON object, a body `status_code` 5xx; also
   * "401" (the server key was not accepted: a configuration fault, not a verdict on the
   * transaction, and a retry after it is fixed will do) and "429" (rate limited: later).
   * Messages never carry the server key.
   */
  async function callCoreApi(method: "GET" | "POST", orderId: string, action: string, body?: unknown): Promise<CoreAnswer> {
    const what = `midtrans ${action}`;
    let response: Response;
    let raw: string;
    try {
      response = await fetch(`${apiBase}/v2/${encodeURIComponent(orderId)}/${action}`, {
        method,
        headers: {
          accept: "application/json",
          authorization,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "error",
      });
      raw = await response.text();
    } catch (error) {
      const reason = (error as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (error as Error).message;
      throw new GatewayUnavailable(`${what}: midtrans unreachable: ${reason}`);
    }
    if (response.status >= 500) {
      throw new GatewayUnavailable(`${what}: midtrans answered HTTP ${response.status}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new GatewayUnavailable(`${what}: midtrans answered HTTP ${response.status} with something other than JSON`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new GatewayUnavailable(`${what}: midtrans answered with something other than a JSON object`);
    }
    const answer = parsed as Record<string, unknown>;
    const bodyCode =
      typeof answer.status_code === "string" ? answer.status_code.trim() : typeof answer.status_code === "number" ? String(answer.status_code) : undefined;
    const statusCode = bodyCode ?? (response.status !== 200 ? String(response.status) : undefined);
    if (statusCode === undefined || !/^\d{3}$/.test(statusCode)) {
      throw new GatewayUnavailable(`${what}: midtrans answer lacks a status_code`);
    }
    const message = nonEmpty(answer.status_message) ?? "";
    if (statusCode.startsWith("5")) {
      throw new GatewayUnavailable(`${what}: midtrans answered status_code ${statusCode}${message ? `: ${message.slice(0, 200)}` : ""}`);
    }
    if (statusCode === "401" || statusCode === "429") {
      throw new GatewayUnavailable(`${what}: midtrans answered status_code ${statusCode}${message ? `: ${message.slice(0, 200)}` : ""}`);
    }
    return { statusCode, body: answer };
  }

  const refusal = (answer: CoreAnswer, action: string) =>
    nonEmpty(answer.body.status_message)?.slice(0, 500) ?? `midtrans refused the ${action} (status_code ${answer.statusCode})`;

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
          signal: AbortSignal.timeout(timeoutMs),
          redirect: "error",
        });
      } catch (error) {
        throw new GatewayUnavailable(`midtrans unreachable: ${(error as Error).message}`);
      }
      const text = await response.text().catch(() => "");
      if (response.status !== 201 && response.status !== 200) {
        throw new GatewayUnavailable(`midtrans answered ${response.status}: ${text.slice(0, 200)}`);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new GatewayUnavailable("midtrans answered with something other than JSON");
      }
      // JSON's null or a bare value has no fields: the same answer as one that lacks them.
      const parsed = (typeof json === "object" && json !== null ? json : {}) as { token?: unknown; redirect_url?: unknown };
      if (typeof parsed.token !== "string" || typeof parsed.redirect_url !== "string") {
        throw new GatewayUnavailable("midtrans answer lacks token or redirect_url");
      }
      return { token: parsed.token, redirectUrl: parsed.redirect_url };
    },

    /**
     * `POST /v2/{order_id}/refund` with `{refund_key, amount, reason}`. Midtrans' Refund
     * Transaction reference: `refund_key` is the merchant's refund id, and a retry with
     * the same key is the same refund (it is not made twice); success is status_code
     * "200" with `transaction_status` "refund" or "partial_refund", this refund's
     * `refund_amount` and a numeric `refund_chargeback_id`. A transaction that is not
     * settled, or has too little left, answers "412" (the status cannot be changed); a
     * "202" is a refund denied by the bank or provider. Anything else that is neither a
     * success nor a refusal is taken as "away": the retry carries the same key.
     */
    async refund(request: RefundRequest): Promise<RefundAnswer> {
      const answer = await callCoreApi("POST", request.orderId, "refund", {
        refund_key: request.refundKey,
        amount: request.amount,
        reason: request.reason,
      });
      // "201" is Midtrans' "pending": not made yet. Asked again with the same key later.
      if (answer.statusCode === "201") throw new GatewayUnavailable("midtrans refund is pending at the gateway");
      if (answer.statusCode === "200") {
        const id = answer.body.refund_chargeback_id;
        const gatewayRefundId = typeof id === "number" || (typeof id === "string" && id !== "") ? String(id) : undefined;
        return gatewayRefundId === undefined ? { kind: "succeeded" } : { kind: "succeeded", gatewayRefundId };
      }
      if (answer.statusCode.startsWith("4") || answer.statusCode === "202") {
        return { kind: "refused", message: refusal(answer, "refund") };
      }
      throw new GatewayUnavailable(`midtrans refund: unexpected status_code ${answer.statusCode}`);
    },

    /**
     * `GET /v2/{order_id}/status`. Midtrans' Get Transaction Status reference: the answer
     * carries a notification's fields (order_id, status_code, gross_amount as "10000.00",
     * signature_key over those and the server key, transaction_status, fraud_status) and,
     * once refunded, `refund_amount` (the total) and a `refunds` array. "404" ("Transaction
     * doesn't exist.") also answers a Snap transaction whose buyer has not yet chosen a
     * payment method. An answer without a transaction_status is not a transaction's
     * status (a "400", say) and is treated as "away" rather than applied.
     */
    async status(orderId: string): Promise<StatusAnswer> {
      const answer = await callCoreApi("GET", orderId, "status");
      if (answer.statusCode === "404") return { kind: "not_found" };
      if (nonEmpty(answer.body.transaction_status) === undefined) {
        throw new GatewayUnavailable(`midtrans status: status_code ${answer.statusCode} without a transaction_status`);
      }
      return { kind: "found", fields: answer.body };
    },

    /**
     * `POST /v2/{order_id}/expire`. Midtrans' Expire Transaction reference: success is
     * status_code "407" with transaction_status "expire"; a transaction past pending
     * (paid, cancelled…) answers "412" "Merchant cannot modify the status of the
     * transaction"; "404" when there is no transaction.
     */
    async expire(orderId: string): Promise<ExpireAnswer> {
      const answer = await callCoreApi("POST", orderId, "expire");
      if (answer.statusCode === "404") return { kind: "not_found" };
      if (answer.statusCode === "407" || answer.statusCode === "200" || answer.body.transaction_status === "expire") {
        return { kind: "expired" };
      }
      if (answer.statusCode.startsWith("4")) return { kind: "refused", message: refusal(answer, "expiry") };
      throw new GatewayUnavailable(`midtrans expire: unexpected status_code ${answer.statusCode}`);
    },
  };
}
