// A key's mode read from what the dashboard and the CLI see of it: its shown prefix.
import test from "ava";
import { keyMode, KEY_MODE_NAMES } from "../../common/key-mode.js";
import { generateApiKey, keyPrefix } from "../../services/catalog/api-keys.js";

test("a key made today and its shown prefix are live", (t) => {
  const key = generateApiKey();
  t.is(keyMode(key), "live");
  t.is(keyMode(keyPrefix(key)), "live");
  t.is(KEY_MODE_NAMES[keyMode(keyPrefix(key))!], "Live");
});

test("sk_test_ is test; anything else is no mode", (t) => {
  t.is(keyMode("sk_test_AbCd"), "test");
  for (const other of ["", "sk_", "pk_live_AbCd", "SK_LIVE_AbCd", "whsec_AbCd"]) t.is(keyMode(other), undefined, other);
});
