import test from "ava";
import { AUDIT_ACTIONS } from "../../common/audit.js";
import { AUDIT_ACTION_CHOICES, auditActorText, auditSentence, auditSentenceText } from "../../common/audit-text.js";

const entry = (action: string, target: string, targetLabel = "") => ({ action, target, targetLabel });

test("an order marked paid reads with its SO- reference between the verb and the outcome", (t) => {
  t.is(auditSentenceText(entry("order.marked_paid", "order:0b1c2d3e-0000-4000-8000-000000000001", "SO-7LJP4Q2M9XKA")), "Marked SO-7LJP4Q2M9XKA as paid");
  t.deepEqual(auditSentence(entry("order.marked_paid", "order:0b1c2d3e-0000-4000-8000-000000000001", "SO-7LJP4Q2M9XKA")).target, {
    kind: "order",
    id: "0b1c2d3e-0000-4000-8000-000000000001",
    name: "SO-7LJP4Q2M9XKA",
  });
});

test("a target written before labels were kept is named by its kind and a short id", (t) => {
  t.is(auditSentenceText(entry("key.revoked", "key:67c3b5f6-466c-4dec-976a-c2d99075a68b")), "Revoked API key 67c3b5f6…");
  t.is(auditSentenceText(entry("member.invited", "member:dewi@toko.example")), "Invited dewi@toko.example");
  t.is(auditSentenceText(entry("order.cancelled", "order:0b1c2d3e-0000-4000-8000-000000000001")), "Cancelled order 0b1c2d3e…");
});

test("actions about the store itself need no target in the sentence", (t) => {
  const sentence = auditSentence(entry("store.settings_changed", "store:0b1c2d3e-0000-4000-8000-000000000001", "Toko Kemeja"));
  t.is(sentence.target, undefined);
  t.is(auditSentenceText(entry("store.settings_changed", "store:x")), "Changed the settings of the store");
});

test("an action this version does not know reads as its name, never as nothing", (t) => {
  t.is(auditSentenceText(entry("order.teleported", "order:x", "SO-1")), "order.teleported SO-1");
});

test("every recorded action has a sentence and a filter choice", (t) => {
  for (const action of AUDIT_ACTIONS) t.notRegex(auditSentenceText(entry(action, "order:x", "L")), /^[a-z_]+\.[a-z_]+/, action);
  t.deepEqual(
    AUDIT_ACTION_CHOICES.map((c) => c.action),
    [...AUDIT_ACTIONS],
  );
});

test("actors read as people: members by email, the CLI as the operator, keys by a short id", (t) => {
  t.is(auditActorText("dewi@toko.example"), "dewi@toko.example");
  t.is(auditActorText("operator"), "Operator (store-admin)");
  t.is(auditActorText("system"), "System");
  t.is(auditActorText("key:67c3b5f6-466c-4dec-976a-c2d99075a68b"), "API key 67c3b5f6…");
});
