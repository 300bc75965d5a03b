// The payment link rules (docs/payments.md#payment-links) as a pure function: when a link
// still takes orders, and why not.
import test from "ava";
import { linkRefusal, linkState, MAX_PENDING_LINK_ORDERS, type LinkFacts } from "../../common/payment-links.js";

const now = new Date("2026-11-28T10:00:00Z");
const open: LinkFacts = { active: true, expires_at: null, usage_limit: null, paid_count: 0, pending_count: 0 };

test("a link is open until deactivated, past its expiry, or paid as often as its usage limit", (t) => {
  t.is(linkState(open, now), "open");
  t.is(linkState({ ...open, active: false }, now), "inactive");
  t.is(linkState({ ...open, expires_at: now }, now), "expired", "expires at the instant");
  t.is(linkState({ ...open, expires_at: new Date(now.getTime() + 1) }, now), "open");
  t.is(linkState({ ...open, usage_limit: 2, paid_count: 1, pending_count: 5 }, now), "open", "pending orders do not use it up");
  t.is(linkState({ ...open, usage_limit: 2, paid_count: 2 }, now), "used_up");
  t.is(linkState({ ...open, active: false, expires_at: now, usage_limit: 1, paid_count: 1 }, now), "inactive", "deactivated says so first");
  t.is(linkState({ ...open, expires_at: now, usage_limit: 1, paid_count: 1 }, now), "expired");
});

test("an open link refuses a new order only at its cap of orders waiting for payment", (t) => {
  t.is(linkRefusal({ ...open, pending_count: MAX_PENDING_LINK_ORDERS - 1 }, now), undefined);
  t.deepEqual(linkRefusal({ ...open, pending_count: MAX_PENDING_LINK_ORDERS }, now), { busy: true });
  t.deepEqual(linkRefusal({ ...open, active: false, pending_count: MAX_PENDING_LINK_ORDERS }, now), { closed: "inactive" });
  t.deepEqual(linkRefusal({ ...open, usage_limit: 1, paid_count: 1 }, now), { closed: "used_up" });
});
