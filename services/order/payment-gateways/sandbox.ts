import { randomBytes } from "node:crypto";
import type { PaymentGateway, RefundAnswer } from "./types.js";

/**
 * Sessions made locally: the "payment page" is the gateway's own sandbox page, whose
 * Pay and Fail buttons send Midtrans-format notifications to the real endpoint.
 * Refunds succeed at once (no money moved, so none to give back). There is no `status`
 * or `expire`: the sandbox has no word of its own beyond the notifications its pages send.
 */
export function createSandboxGateway(options: { publicBaseUrl: string; clientKey: string }): PaymentGateway {
  return {
    provider: "sandbox",
    snapScriptUrl: `${options.publicBaseUrl}/sandbox/snap.js`,
    clientKey: options.clientKey,
    async createSession() {
      const token = `sbx-${randomBytes(18).toString("base64url")}`;
      return { token, redirectUrl: `${options.publicBaseUrl}/sandbox/pay/${token}` };
    },
    async refund(): Promise<RefundAnswer> {
      return { kind: "succeeded" };
    },
  };
}
