// Why an order has no webhook deliveries, in the words its page uses: the store may have
// no endpoint, none enabled, none taking the events this order has had so far (a pending
// order has had no order.paid yet), or endpoints that took them only after they happened.

/** An endpoint as this decision needs it: `eventTypes` empty means every type. */
export interface EndpointSubscription {
  enabled: boolean;
  eventTypes: readonly string[];
}

export type NoDeliveries =
  | { kind: "no-endpoint" }
  | { kind: "none-enabled"; endpoints: number }
  | { kind: "no-events" }
  /** The order's events so far, none of which an enabled endpoint takes; what they do take. */
  | { kind: "not-subscribed"; events: string[]; subscribed: string[] }
  /** An enabled endpoint takes some of these events, but was added or enabled after them. */
  | { kind: "not-delivered"; events: string[] };

/** Why the order has no deliveries, from the store's endpoints (of the order's mode) and the types of the order's events so far. */
export function whyNoDeliveries(endpoints: readonly EndpointSubscription[], orderEvents: readonly string[]): NoDeliveries {
  if (endpoints.length === 0) return { kind: "no-endpoint" };
  const enabled = endpoints.filter((endpoint) => endpoint.enabled);
  if (enabled.length === 0) return { kind: "none-enabled", endpoints: endpoints.length };
  const events = [...new Set(orderEvents)];
  if (events.length === 0) return { kind: "no-events" };
  const takes = (type: string) => enabled.some((endpoint) => endpoint.eventTypes.length === 0 || endpoint.eventTypes.includes(type));
  if (events.some(takes)) return { kind: "not-delivered", events: events.filter(takes) };
  return { kind: "not-subscribed", events, subscribed: [...new Set(enabled.flatMap((endpoint) => endpoint.eventTypes))].sort() };
}
