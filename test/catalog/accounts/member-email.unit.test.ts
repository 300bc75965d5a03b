// A member's email as stored and compared (docs/dashboard.md#accounts): trimmed, Unicode NFC, then
// lower-cased, so one mailbox is one member however it is typed. Pure functions.
import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { normalizeEmail, requireEmail } from "../../../services/catalog/accounts/member-email.js";

const COMPOSED = "jos\u00e9@caf\u00e9.example"; // é as one code point
const DECOMPOSED = "jose\u0301@cafe\u0301.example"; // e followed by a combining acute accent

test("é typed precomposed or as e + combining accent is one address, stored precomposed", (t) => {
  t.not(COMPOSED, DECOMPOSED);
  t.is(normalizeEmail(COMPOSED), COMPOSED);
  t.is(normalizeEmail(DECOMPOSED), COMPOSED);
  t.is(requireEmail(DECOMPOSED, "email"), COMPOSED);
});

test("NFC before lower-casing: case, spaces and composition all fold to one form, and normalizing again changes nothing", (t) => {
  const typings = [COMPOSED, DECOMPOSED, ` ${DECOMPOSED.toUpperCase()} `, "JOSE\u0301@CAF\u00c9.EXAMPLE", "Jos\u00e9@Cafe\u0301.Example"];
  for (const typed of typings) {
    const email = normalizeEmail(typed);
    t.is(email, COMPOSED, JSON.stringify(typed));
    t.is(normalizeEmail(email!), email, "idempotent");
  }
  // Other scripts too: Hangul jamo compose into one syllable.
  t.is(normalizeEmail("\u1100\u1161@example.com"), "\uac00@example.com");
});

test("what is not an address is still refused, in either form", (t) => {
  for (const value of ["", "jose\u0301", "jose\u0301@", "@cafe\u0301.example", "jose\u0301@cafe\u0301", "a b@example.com"]) {
    t.is(normalizeEmail(value), undefined, JSON.stringify(value));
    const error = ConnectError.from(t.throws(() => requireEmail(value, "email")));
    t.is(error.code, Code.InvalidArgument);
    t.regex(error.rawMessage, /^email must be an email address/);
  }
});
