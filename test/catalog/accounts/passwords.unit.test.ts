// Dashboard passwords (docs/dashboard.md#sign-in): scrypt at N = 2^17 with a random salt, its
// parameters in the stored string, verified in constant time; hashes of older
// parameters still verify and ask to be replaced; the length rule; tokens as SHA-256.
// Pure functions, no database.
import test from "ava";
import { scryptSync } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  DUMMY_HASH,
  hashPassword,
  isPlausiblePassword,
  needsRehash,
  requirePassword,
  SCRYPT_MAXMEM,
  SCRYPT_PARAMS,
  spendVerification,
  verifyPassword,
} from "../../../services/catalog/accounts/passwords.js";
import { TEST_SCRYPT } from "../../helpers/scrypt.js";
import { generateToken, hashToken, isWellFormedToken } from "../../../services/catalog/accounts/tokens.js";

const PASSWORD = "correct horse battery staple";
/** PASSWORD as the service stored it in its first release: scrypt at N = 2^15. */
const OLD_HASH = "scrypt$32768$8$1$czWZVhZcR770fPfO4VWLtA$ijKOojZvnTW-Nr97oiJi_ytlaa7at_UBIbZvtGUfiyA";

test("the parameters are OWASP's minimum for scrypt, N = 2^17, r = 8, p = 1, within the memory given to scrypt", (t) => {
  t.deepEqual({ ...SCRYPT_PARAMS }, { N: 2 ** 17, r: 8, p: 1 });
  t.true(128 * SCRYPT_PARAMS.N * SCRYPT_PARAMS.r < SCRYPT_MAXMEM, "scrypt is given room for them (Node's default, 32 MiB, is not)");
  t.true(DUMMY_HASH.startsWith("scrypt$131072$8$1$"), "an unknown email costs as much as a real hash");
  t.false(needsRehash(DUMMY_HASH));
});

test("a hash is scrypt$N$r$p$salt$hash with the current parameters, and the password is not in it", async (t) => {
  const stored = await hashPassword(PASSWORD);
  const [scheme, N, r, p, salt, key, ...rest] = stored.split("$");
  t.is(scheme, "scrypt");
  t.deepEqual([Number(N), Number(r), Number(p)], [2 ** 17, 8, 1]);
  t.is(Buffer.from(salt!, "base64url").length, 16);
  t.is(Buffer.from(key!, "base64url").length, 32);
  t.deepEqual(rest, []);
  t.false(stored.includes(PASSWORD));
  // The stored key is really scrypt of the password under that salt, not some other KDF.
  const expected = scryptSync(PASSWORD, Buffer.from(salt!, "base64url"), 32, { N: Number(N), r: Number(r), p: Number(p), maxmem: 256 * 1024 * 1024 });
  t.deepEqual(Buffer.from(key!, "base64url"), expected);
});

test("the right password verifies; a wrong one, another case or one character more does not", async (t) => {
  const stored = await hashPassword(PASSWORD, TEST_SCRYPT);
  t.true(await verifyPassword(PASSWORD, stored));
  t.false(await verifyPassword("correct horse battery stapl", stored));
  t.false(await verifyPassword("Correct horse battery staple", stored));
  t.false(await verifyPassword(`${PASSWORD} `, stored));
  t.false(await verifyPassword("", stored));
});

test("each hash has its own salt: one password twice gives two strings, both verify", async (t) => {
  const [a, b] = await Promise.all([hashPassword(PASSWORD, TEST_SCRYPT), hashPassword(PASSWORD, TEST_SCRYPT)]);
  t.not(a, b);
  t.true(await verifyPassword(PASSWORD, a));
  t.true(await verifyPassword(PASSWORD, b));
});

test("the parameters are read from the stored string: a hash made with others still verifies", async (t) => {
  const cheaper = await hashPassword(PASSWORD, { N: 2 ** 12, r: 8, p: 1 });
  t.true(cheaper.startsWith("scrypt$4096$8$1$"));
  t.true(await verifyPassword(PASSWORD, cheaper));
  t.false(await verifyPassword("wrong password!!", cheaper));
});

test("a hash of the old parameters (N = 2^15) verifies and asks to be replaced; a new one does not", async (t) => {
  t.true(await verifyPassword(PASSWORD, OLD_HASH));
  t.false(await verifyPassword("wrong password!!", OLD_HASH));
  t.true(needsRehash(OLD_HASH));
  const fresh = await hashPassword(PASSWORD);
  t.false(needsRehash(fresh));
  // Any parameter other than the target asks, higher or lower; a string that does not parse verifies nothing and does not.
  t.true(needsRehash(fresh, { N: 2 ** 16, r: 8, p: 1 }));
  t.true(needsRehash(fresh, { ...SCRYPT_PARAMS, r: 16 }));
  t.false(needsRehash(await hashPassword(PASSWORD, { N: 2 ** 12, r: 8, p: 1 }), { N: 2 ** 12, r: 8, p: 1 }));
  t.false(needsRehash("plain-text-password"));
});

test("a damaged or foreign stored string is a mismatch, never an exception or a huge allocation", async (t) => {
  const good = await hashPassword(PASSWORD);
  const parts = good.split("$");
  const broken = [
    "",
    "plain-text-password",
    `bcrypt$${parts.slice(1).join("$")}`,
    parts.slice(0, 5).join("$"),
    ["scrypt", 2 ** 30, 8, 1, parts[4], parts[5]].join("$"),
    ["scrypt", 3000, 8, 1, parts[4], parts[5]].join("$"),
    // Within the bounds for N, but 1 GiB: more than scrypt is allowed.
    ["scrypt", 2 ** 20, 8, 1, parts[4], parts[5]].join("$"),
    ["scrypt", parts[1], 8, 1, "", parts[5]].join("$"),
    ["scrypt", parts[1], 8, 1, parts[4], "AA"].join("$"),
  ];
  for (const stored of broken) t.false(await verifyPassword(PASSWORD, stored), stored);
});

test("verification runs off the event loop: timers keep firing while passwords are checked", async (t) => {
  const stored = await hashPassword(PASSWORD);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  await Promise.all([verifyPassword(PASSWORD, stored), verifyPassword("x".repeat(12), stored), spendVerification(PASSWORD)]);
  clearInterval(timer);
  t.true(ticks > 0);
});

test("the length rule: 12 to 1024 characters, counted as characters, not bytes", (t) => {
  const rejected = (password: string) => {
    const error = t.throws(() => requirePassword(password));
    const connectError = ConnectError.from(error);
    t.is(connectError.code, Code.InvalidArgument);
    t.regex(connectError.rawMessage, /^password must be 12 to 1024 characters$/);
  };
  rejected("");
  rejected("elevenchars");
  rejected("x".repeat(1025));
  // Eleven emoji are 44 UTF-8 bytes and 22 UTF-16 units, but eleven characters.
  rejected("🔑".repeat(11));
  t.is(requirePassword("twelve chars"), "twelve chars");
  t.is(requirePassword("🔑".repeat(12)), "🔑".repeat(12));
  t.is(requirePassword("x".repeat(1024)).length, 1024);
  t.true(isPlausiblePassword("twelve chars"));
  t.false(isPlausiblePassword("short"));
});

test("the same password in another Unicode normalization verifies", async (t) => {
  const composed = "kata sandi café ok";
  const decomposed = composed.normalize("NFD");
  t.not(composed, decomposed);
  t.true(await verifyPassword(decomposed, await hashPassword(composed, TEST_SCRYPT)));
});

test("tokens: 43 base64url characters, random, stored as SHA-256", (t) => {
  const tokens = Array.from({ length: 500 }, generateToken);
  t.is(new Set(tokens).size, tokens.length);
  for (const token of tokens) {
    t.regex(token, /^[A-Za-z0-9_-]{43}$/);
    t.true(isWellFormedToken(token));
  }
  t.false(isWellFormedToken(""));
  t.false(isWellFormedToken(`${tokens[0]}=`));
  t.false(isWellFormedToken(tokens[0]!.slice(1)));
  t.false(isWellFormedToken(`${tokens[0]!.slice(1)}+`));
  t.is(hashToken(tokens[0]!).length, 32);
  t.deepEqual(hashToken(tokens[0]!), hashToken(tokens[0]!));
  t.notDeepEqual(hashToken(tokens[0]!), hashToken(tokens[1]!));
});
