// What a test order's payment may be simulated as (docs/payments.md#test-orders): the
// gateway's body schema and the order service's check read this one list.

export const SIMULATED_OUTCOMES = ["paid", "failed", "expired"] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];
