// API key format (docs/keys.md#format): `sk_live_` or `sk_test_` and at least 32 base62 characters; only a
// SHA-256 hash is stored; listings show a short prefix. Pure functions, no I/O.
import test from "ava";
import { createHash } from "node:crypto";
import { API_KEY_PATTERN, generateApiKey, hashApiKey, keyName, keyPrefix } from "../../services/catalog/api-keys.js";

test("a key is sk_live_ and 40 base62 characters, and matches the accepted pattern", (t) => {
  for (let n = 0; n < 200; n++) {
    const key = generateApiKey();
    t.regex(key, /^sk_live_[0-9A-Za-z]{40}$/);
    t.regex(key, API_KEY_PATTERN);
  }
});

test("keys are random: no repeats, and every base62 character turns up", (t) => {
  const keys = Array.from({ length: 2_000 }, generateApiKey);
  t.is(new Set(keys).size, keys.length);
  const seen = new Set(keys.join("").replaceAll("sk_live_", ""));
  t.is(seen.size, 62);
});

test("a test key is sk_test_ and 40 base62 characters, its prefix sk_test_ and 4 more", (t) => {
  const key = generateApiKey("test");
  t.regex(key, /^sk_test_[0-9A-Za-z]{40}$/);
  t.regex(key, API_KEY_PATTERN);
  t.regex(keyPrefix(key), /^sk_test_[0-9A-Za-z]{4}$/);
});

test("the accepted pattern: sk_live_ or sk_test_ and 32 to 128 base62 characters, nothing else", (t) => {
  t.regex(`sk_live_${"a".repeat(32)}`, API_KEY_PATTERN);
  t.regex(`sk_live_${"Z9".repeat(64)}`, API_KEY_PATTERN);
  t.notRegex(`sk_live_${"a".repeat(31)}`, API_KEY_PATTERN);
  t.notRegex(`sk_live_${"a".repeat(129)}`, API_KEY_PATTERN);
  t.regex(`sk_test_${"a".repeat(40)}`, API_KEY_PATTERN);
  t.notRegex(`sk_prod_${"a".repeat(40)}`, API_KEY_PATTERN);
  t.notRegex(`sk_test_${"a".repeat(31)}`, API_KEY_PATTERN);
  t.notRegex(`SK_LIVE_${"a".repeat(40)}`, API_KEY_PATTERN);
  t.notRegex(`sk_live_${"a".repeat(39)}-`, API_KEY_PATTERN);
  t.notRegex(`sk_live_${"a".repeat(39)}_`, API_KEY_PATTERN);
  t.notRegex(` sk_live_${"a".repeat(40)}`, API_KEY_PATTERN);
  t.notRegex(`sk_live_${"a".repeat(40)}\n`, API_KEY_PATTERN);
});

test("the stored hash is SHA-256 of the whole key: 32 bytes, the same every time, different per key", (t) => {
  const key = generateApiKey();
  const hash = hashApiKey(key);
  t.is(hash.length, 32);
  t.deepEqual(hash, createHash("sha256").update(key).digest());
  t.deepEqual(hashApiKey(key), hash);
  t.notDeepEqual(hashApiKey(generateApiKey()), hash);
  t.false(hash.toString("latin1").includes(key.slice(8)), "the hash does not hold the key");
});

test("the prefix shown in listings is sk_live_ and 4 characters, never enough to use the key", (t) => {
  const key = generateApiKey();
  const prefix = keyPrefix(key);
  t.is(prefix, key.slice(0, 12));
  t.regex(prefix, /^sk_live_[0-9A-Za-z]{4}$/);
  t.notRegex(prefix, API_KEY_PATTERN);
});

test("a key's name is trimmed and cut at 100 characters", (t) => {
  t.is(keyName("  server  "), "server");
  t.is(keyName(""), "");
  t.is(keyName("x".repeat(150)).length, 100);
});
