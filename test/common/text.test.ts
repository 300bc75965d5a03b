// The text rule of docs/api.md#robustness as one function: what it refuses, what it lets through,
// and how it names the field a client must fix.
import test from "ava";
import { findTextViolation, textProblem } from "../../common/text.js";

const FORBIDDEN: [string, string][] = [
  ["NUL", "a\u0000b"],
  ["U+0001", "a\u0001b"],
  ["a tab", "a\tb"],
  ["a line feed", "a\nb"],
  ["U+001F", "\u001f"],
  ["DEL (U+007F)", "budi\u007f@example.co.id"],
  ["a lone high surrogate", "\ud800"],
  ["a lone low surrogate", "x\udc00y"],
  ["a high surrogate at the end", "abc\ud83d"],
];

for (const [name, text] of FORBIDDEN) {
  test(`${name} is refused`, (t) => {
    t.truthy(textProblem(text));
  });
}

test("ordinary text, Indonesian names, emoji, RTL and U+0080 pass", (t) => {
  for (const text of ["Budi Santoso", "Kopi Susu Gula Aren — 250 ml", "🍜 Mie Ayam", "مرحبا", "é\u0080", "", " "]) {
    t.is(textProblem(text), undefined, JSON.stringify(text));
  }
});

test("a control character is named as such, a lone surrogate as broken Unicode", (t) => {
  t.regex(textProblem("\u0000")!, /control characters/);
  t.regex(textProblem("\ud800")!, /Unicode/);
});

test("findTextViolation names the path as a client writes it", (t) => {
  const body = {
    items: [{ product_id: "ok" }, { product_id: "also ok", note: ["fine", "bad\u0000"] }],
    buyer: { name: "Budi", email: "b\u007f@x.id" },
  };
  t.deepEqual(findTextViolation(body), { field: "items[1].note[1]", message: "must not contain control characters" });
  t.deepEqual(findTextViolation({ buyer: { name: "Budi", email: "b\u007f@x.id" } }), {
    field: "buyer.email",
    message: "must not contain control characters",
  });
  t.is(findTextViolation({ a: 1, b: null, c: [true, 2.5], d: { e: "fine" } }), undefined);
  t.deepEqual(findTextViolation("\ud800"), { field: "body", message: "must be valid Unicode (it holds a lone surrogate)" });
});

test("a forbidden field name is reported with the name escaped", (t) => {
  const found = findTextViolation({ buyer: { ["na\u0000me"]: "Budi" } });
  t.is(found?.field, "buyer.na\\u0000me");
  t.regex(found!.message, /^field name /);
});

test("a value nested deeper than the limit is refused, however deep, without exhausting the stack", (t) => {
  const deep = JSON.parse("[".repeat(30_000) + "]".repeat(30_000));
  t.deepEqual(findTextViolation(deep), { field: "[0]".repeat(64), message: "is nested more than 64 levels deep" });
  const within = JSON.parse(`{"a":${"[".repeat(60)}"ok"${"]".repeat(60)}}`);
  t.is(findTextViolation(within), undefined);
});

test("the first violation in document order is the one reported", (t) => {
  t.is(findTextViolation({ a: "ok", b: ["fine", "x\u0001"], c: "\u0000" })?.field, "b[1]");
  t.is(findTextViolation({ ["k\u0001"]: 1, z: "\u0000" })?.field, "k\\u0001");
});
