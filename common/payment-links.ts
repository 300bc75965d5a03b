// The rules of a payment link (docs/payments.md#payment-links), pure: whether it still
// takes orders, and why not. The order service applies them with the link locked; the
// public page and the dashboard show the same state.

/** "open" takes orders; the others answer 410 on the public page. */
export type LinkState = "open" | "inactive" | "expired" | "used_up";

/** At most this many of a link's orders wait for payment at once (an abandoned checkout holds stock). */
export const MAX_PENDING_LINK_ORDERS = 100;

/** A usage limit is counted in paid orders: 1 to this. */
export const MAX_USAGE_LIMIT = 1_000_000;

export interface LinkFacts {
  active: boolean;
  expires_at: Date | null;
  usage_limit: number | null;
  /** Orders made through it that were paid (refunded ones still count). */
  paid_count: number;
  /** Orders made through it still waiting for payment. */
  pending_count: number;
}

/**
 * What the link is now. Deactivated wins over expired, expired over used up; the usage
 * limit counts PAID orders, so orders pending when it is reached may still be paid.
 */
export function linkState(link: LinkFacts, now: Date): LinkState {
  if (!link.active) return "inactive";
  if (link.expires_at !== null && link.expires_at.getTime() <= now.getTime()) return "expired";
  if (link.usage_limit !== null && link.paid_count >= link.usage_limit) return "used_up";
  return "open";
}

/**
 * Why a buyer may not make an order through the link now: the link is closed (410), or
 * it already has MAX_PENDING_LINK_ORDERS waiting for payment (429, try later); undefined: go on.
 */
export function linkRefusal(link: LinkFacts, now: Date): { closed: Exclude<LinkState, "open"> } | { busy: true } | undefined {
  const state = linkState(link, now);
  if (state !== "open") return { closed: state };
  if (link.pending_count >= MAX_PENDING_LINK_ORDERS) return { busy: true };
  return undefined;
}
