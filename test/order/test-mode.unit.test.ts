// Test mode's rules in the order service (services/order/test-mode.ts, docs/keys.md#test-mode).
import test from "ava";
import { ConnectError } from "@connectrpc/connect";
import { fieldViolations } from "../../platform/field-errors.js";
import { asksGateway, gatewayFor, sandboxServes, simulatedStatus } from "../../services/order/test-mode.js";
import { fakeGateway } from "../helpers/fake-payment-gateway.js";

const sandbox = fakeGateway();
const midtrans = { ...fakeGateway(), provider: "midtrans" as const, status: async () => ({ kind: "not_found" as const }) };

test("a live order pays through PAYMENT_GATEWAY's gateway, a test order through the sandbox", (t) => {
  t.is(gatewayFor({ gateway: midtrans, testGateway: sandbox }, true), midtrans);
  t.is(gatewayFor({ gateway: midtrans, testGateway: sandbox }, false), sandbox);
});

test("the sandbox pages serve every order in sandbox mode, only test orders with a real gateway", (t) => {
  t.true(sandboxServes({ livemode: true }, "sandbox"));
  t.true(sandboxServes({ livemode: false }, "sandbox"));
  t.true(sandboxServes({ livemode: false }, "midtrans"));
  t.false(sandboxServes({ livemode: true }, "midtrans"));
});

test("only a live order of a gateway that can be asked is asked about", (t) => {
  t.true(asksGateway({ livemode: true }, midtrans));
  t.false(asksGateway({ livemode: false }, midtrans));
  t.false(asksGateway({ livemode: true }, sandbox));
});

test("a simulation's outcome is its status; anything else is INVALID_ARGUMENT naming outcome", (t) => {
  t.is(simulatedStatus("paid"), "paid");
  t.is(simulatedStatus("failed"), "failed");
  t.is(simulatedStatus("expired"), "expired");
  for (const bad of ["", "cancelled", "PAID", "refunded"]) {
    const error = t.throws(() => simulatedStatus(bad), { instanceOf: ConnectError });
    t.is(fieldViolations(error)[0]?.field, "outcome");
  }
});
