// Test mode's rules in the order service (docs/keys.md#test-mode): which payment gateway an
// order uses, which sandbox pages open, what a simulation does. A test order moves no
// money, so it never reaches a real gateway: it is the sandbox's, whatever PAYMENT_GATEWAY
// says, and nothing asks a gateway about it.
import { SIMULATED_OUTCOMES } from "../../common/test-orders.js";
import { fieldError } from "../../platform/field-errors.js";
import type { PaymentGateway } from "./payment-gateways/types.js";
import type { OrderStatus } from "./status-machine.js";

/** The gateways of a service: PAYMENT_GATEWAY's for live orders, and the sandbox for test orders. */
export interface Gateways {
  gateway: PaymentGateway;
  testGateway: PaymentGateway;
}

/** The gateway an order of this mode pays through. */
export function gatewayFor(gateways: Gateways, livemode: boolean): PaymentGateway {
  return livemode ? gateways.gateway : gateways.testGateway;
}

/**
 * Whether the sandbox's pages may show (and pay) an order. With PAYMENT_GATEWAY=sandbox
 * they serve every order, as they always have; with a real gateway only test orders: a
 * live order's payment is the real gateway's alone.
 */
export function sandboxServes(order: { livemode: boolean }, liveProvider: PaymentGateway["provider"]): boolean {
  return liveProvider === "sandbox" || !order.livemode;
}

/**
 * Whether the gateway is asked about this order (status checks, confirming a
 * notification, expiring a transaction): only a live order of a gateway that can be
 * asked. A test order's sandbox notifications count on their own word, as the sandbox's do.
 */
export function asksGateway(order: { livemode: boolean }, gateway: Pick<PaymentGateway, "status">): boolean {
  return order.livemode && gateway.status !== undefined;
}


/** The history cause of a simulated change (its outcome goes in the detail). */
export const SIMULATED_CAUSE = "simulated";

/** The status an outcome moves the order to; INVALID_ARGUMENT naming `outcome` for anything else. */
export function simulatedStatus(outcome: string): OrderStatus {
  const found = SIMULATED_OUTCOMES.find((known) => known === outcome);
  if (!found) throw fieldError("outcome", `must be one of ${SIMULATED_OUTCOMES.join(", ")}`);
  return found;
}
