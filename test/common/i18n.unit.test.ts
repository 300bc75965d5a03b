// The buyer's two catalogues (docs/payments.md#language): a key missing from one is a
// page that shows English to an Indonesian buyer, or nothing at all.
import test from "ava";
import { en } from "../../common/i18n/en.js";
import { id } from "../../common/i18n/id.js";
import { LANGUAGES, messagesFor, methodIn, statusIn, thingIn, wibIn } from "../../common/i18n/index.js";

/** Every path to a leaf: "status.pending", "months.0", "payNow()" with its arity. */
function shape(value: unknown, at = ""): string[] {
  if (typeof value === "function") return [`${at}(${value.length})`];
  if (value && typeof value === "object") return Object.entries(value).flatMap(([key, inner]) => shape(inner, at ? `${at}.${key}` : key));
  return [at];
}

test("both catalogues have the same messages, each taking the same arguments", (t) => {
  t.deepEqual(shape(id).sort(), shape(en).sort());
  t.deepEqual(
    LANGUAGES.map((language) => messagesFor(language).lang),
    [...LANGUAGES],
  );
});

test("no message is empty or left untranslated where the words differ", (t) => {
  const leaves = (value: unknown): unknown[] => (value && typeof value === "object" ? Object.values(value).flatMap(leaves) : [value]);
  for (const text of [...leaves(id), ...leaves(en)]) {
    if (typeof text === "string") t.not(text.trim(), "");
  }
  // Words that are the same in both (brand names, "Bank", "Total") are fine; sentences are not.
  const same = Object.keys(en).filter((key) => typeof en[key as keyof typeof en] === "string" && en[key as keyof typeof en] === id[key as keyof typeof id]);
  t.deepEqual(same.sort(), ["bank", "checkout", "subtotal", "total"]);
});

test("times read in WIB with the buyer's month names; amounts are written alike", (t) => {
  t.is(wibIn("id", "2026-12-21T10:40:00Z"), "21 Desember 2026, 17:40 WIB");
  t.is(wibIn("en", "2026-12-21T10:40:00Z"), "21 December 2026, 17:40 WIB");
  t.is(wibIn("id", "2027-01-31T17:05:00Z"), "1 Februari 2027, 00:05 WIB", "past midnight in Jakarta is the next day");
  t.is(wibIn("id", "not a time"), "not a time");
  t.is(messagesFor("id").payNow("Rp 85.660"), "Bayar Rp 85.660 sekarang");
  t.is(messagesFor("en").payNow("Rp 85.660"), "Pay Rp 85.660 now");
});

test("statuses, method names and what a page names are in the buyer's language", (t) => {
  t.is(statusIn("id", "pending"), "Menunggu pembayaran");
  t.is(statusIn("en", "pending"), "Awaiting payment");
  t.is(statusIn("id", "something-new"), "something-new");
  t.is(methodIn("id", "bank_transfer"), "Transfer Bank");
  t.is(methodIn("en", "bank_transfer"), "Bank Transfer");
  t.is(methodIn("id", "qris"), "QRIS", "a brand stays itself");
  t.is(messagesFor("id").notFoundTitle(thingIn("id", "payment page")), "Halaman pembayaran ini tidak ditemukan");
  t.is(messagesFor("en").notFoundTitle(thingIn("en", "payment page")), "This payment page was not found");
});
