// A sandbox payment gateway for the order service's in-memory tests: every session and
// refund succeeds, and it counts the sessions it made.
import type { PaymentGateway } from "../../services/order/payment-gateways/types.js";

export function fakeGateway(base = "https://shop.example"): PaymentGateway & { sessions: number } {
  const gateway = {
    provider: "sandbox" as const,
    snapScriptUrl: `${base}/sandbox/snap.js`,
    clientKey: "client-key",
    sessions: 0,
    async createSession() {
      gateway.sessions++;
      return { token: `tok-${gateway.sessions}`, redirectUrl: `${base}/sandbox/pay/tok-${gateway.sessions}` };
    },
    async refund() {
      return { kind: "succeeded" as const };
    },
  };
  return gateway;
}
