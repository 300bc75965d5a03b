// A receiver's answer as the attempt records it (docs/webhooks.md#recording-attempts): any bytes, stored as text
// that PostgreSQL and the pages can hold, escaped where they are not plain UTF-8.
import test from "ava";
import { excerptText } from "../../services/webhook/sender.js";

const bytes = (...values: number[]) => Buffer.from(values);

test("UTF-8 text, tabs and line breaks are kept as they are", (t) => {
  const text = "Terima kasih 🙏\tOK\r\n{\"ok\":true}";
  t.is(excerptText(Buffer.from(text, "utf8")), text);
});

test("NUL and the other control characters are escaped as \\xNN", (t) => {
  t.is(excerptText(Buffer.from("a\u0000b\u0001c\u001bd\u007f", "utf8")), "a\\x00b\\x01c\\x1bd\\x7f");
});

test("bytes that are not UTF-8 are escaped one by one: stray, overlong, surrogate, cut short", (t) => {
  t.is(excerptText(bytes(0x6f, 0x6b, 0xff, 0xfe)), "ok\\xff\\xfe");
  t.is(excerptText(bytes(0xc0, 0x80)), "\\xc0\\x80", "an overlong NUL");
  t.is(excerptText(bytes(0xed, 0xa0, 0x80)), "\\xed\\xa0\\x80", "a UTF-16 surrogate");
  t.is(excerptText(Buffer.concat([Buffer.from("é", "utf8"), bytes(0xe2, 0x82)])), "é\\xe2\\x82", "a sequence cut off at the end");
});

test("only the first 1024 bytes are read, and the result never holds a NUL", (t) => {
  const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256));
  const excerpt = excerptText(binary);
  t.false(excerpt.includes("\u0000"));
  t.true(excerpt.startsWith("\\x00\\x01"));
  t.is(excerptText(Buffer.alloc(5000, "a")).length, 1024);
});
