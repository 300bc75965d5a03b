// What the dashboard says, decided without a page: where a long email or URL may break
// on a phone, why an order has no webhook deliveries, and who is a store's last owner.
import test from "ava";
import { isLastOwner } from "../../common/roles.js";
import { whyNoDeliveries } from "../../gateway/dashboard/pages/orders/deliveries-empty.js";
import { breakParts } from "../../gateway/html/format.js";

test("an email or URL splits after @ . / - _ only, and the parts join to the text", (t) => {
  t.deepEqual(breakParts("kusumaningrum.wijayakusuma@example.co.id"), ["kusumaningrum.", "wijayakusuma@", "example.", "co.", "id"]);
  t.deepEqual(breakParts("https://hooks.toko-kopi.example/orders_in"), ["https://", "hooks.", "toko-", "kopi.", "example/", "orders_", "in"]);
  t.deepEqual(breakParts("budi"), ["budi"]);
  t.deepEqual(breakParts(""), []);
  for (const text of ["a@b.c", "x..y//z", ".start", "end/"]) t.is(breakParts(text).join(""), text);
});

const paidOnly = { enabled: true, eventTypes: ["order.paid"] };

test("a pending order with an enabled endpoint taking order.paid: not 'none is subscribed', but that it has had only order.created so far", (t) => {
  t.deepEqual(whyNoDeliveries([paidOnly], ["order.created"]), { kind: "not-subscribed", events: ["order.created"], subscribed: ["order.paid"] });
});

test("no endpoint at all, or none enabled, is said as such before the order's events count", (t) => {
  t.deepEqual(whyNoDeliveries([], ["order.created"]), { kind: "no-endpoint" });
  t.deepEqual(whyNoDeliveries([{ ...paidOnly, enabled: false }, { enabled: false, eventTypes: [] }], ["order.created"]), { kind: "none-enabled", endpoints: 2 });
});

test("an enabled endpoint that takes an event the order has had, with no delivery, took it only after it happened", (t) => {
  t.deepEqual(whyNoDeliveries([paidOnly, { enabled: true, eventTypes: [] }], ["order.created", "order.paid"]), {
    kind: "not-delivered",
    events: ["order.created", "order.paid"],
  });
  t.deepEqual(whyNoDeliveries([paidOnly], ["order.created", "order.paid"]), { kind: "not-delivered", events: ["order.paid"] });
});

test("an order with no event in the log yet says so", (t) => {
  t.deepEqual(whyNoDeliveries([paidOnly], []), { kind: "no-events" });
});

test("the last owner is the one owner of the team; with two owners neither is", (t) => {
  const team = [
    { id: "a", role: "owner" },
    { id: "b", role: "developer" },
  ];
  t.true(isLastOwner(team, "a"));
  t.false(isLastOwner(team, "b"));
  t.false(isLastOwner([...team, { id: "c", role: "owner" }], "a"));
});
