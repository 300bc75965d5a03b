// How "this payment link takes no orders" travels from the order service to the gateway
// (docs/payments.md#payment-links): FAILED_PRECONDITION with a google.rpc.ErrorInfo whose
// reason is PAYMENT_LINK_CLOSED and whose metadata says the link's state, so the gateway
// tells it apart from OUT_OF_STOCK (the other FAILED_PRECONDITION of an order) and says why.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import type { LinkState } from "../common/payment-links.js";

export const PAYMENT_LINK_CLOSED = "PAYMENT_LINK_CLOSED";

const WHY: Record<Exclude<LinkState, "open">, string> = {
  inactive: "this payment link was deactivated",
  expired: "this payment link has expired",
  used_up: "this payment link has reached its usage limit",
};

export function linkClosedError(state: Exclude<LinkState, "open">): ConnectError {
  return new ConnectError(WHY[state], Code.FailedPrecondition, undefined, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: PAYMENT_LINK_CLOSED, domain: "order", metadata: { state } }) },
  ]);
}

/** The closed link's state when the error is PAYMENT_LINK_CLOSED; undefined for any other error. */
export function linkClosedState(error: ConnectError): Exclude<LinkState, "open"> | undefined {
  const info = error.findDetails(ErrorInfoSchema).find((detail) => detail.reason === PAYMENT_LINK_CLOSED);
  const state = info?.metadata.state;
  return state === "inactive" || state === "expired" || state === "used_up" ? state : undefined;
}

/** The refusal of a link with too many orders waiting for payment: the buyer may try again later. */
export function linkBusyError(): ConnectError {
  return new ConnectError("this payment link has too many orders waiting for payment; try again later", Code.ResourceExhausted);
}
