import test, { type ExecutionContext } from "ava";
import { api, waitFor, type ApiResponse } from "../helpers/http.js";
import { createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A key of the right shape that no store ever issued. */
function wellFormedUnknownKey(): string {
  let out = "sk_live_";
  for (let n = 0; n < 40; n++) out += BASE62[Math.floor(Math.random() * 62)];
  return out;
}

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.close();
});

function products(authorization?: string, query = ""): Promise<ApiResponse> {
  return api(stack.baseUrl, `/v1/products${query}`, {
    headers: authorization === undefined ? {} : { authorization },
  });
}

function assertUnauthorized(t: ExecutionContext, response: ApiResponse) {
  t.is(response.status, 401, response.text);
  t.false(response.body?.success);
  t.is(response.body?.error?.code, "UNAUTHORIZED");
  t.regex(response.headers.get("www-authenticate") ?? "", /^Bearer\b/);
  t.regex(response.headers.get("content-type") ?? "", /^application\/json/);
}

function assertPlanRequired(t: ExecutionContext, response: ApiResponse) {
  t.is(response.status, 403, response.text);
  t.false(response.body?.success);
  t.is(response.body?.error?.code, "PLAN_REQUIRED");
  t.regex(response.headers.get("content-type") ?? "", /^application\/json/);
}

function assertOk(t: ExecutionContext, response: ApiResponse) {
  t.is(response.status, 200, response.text);
  t.true(response.body?.success);
  t.true(Array.isArray(response.body?.data?.items));
}

test("a missing Authorization header is 401", async (t) => {
  assertUnauthorized(t, await products());
  assertUnauthorized(t, await products(""));
});

test("a scheme other than Bearer is 401", async (t) => {
  const { key } = await createStore(stack);
  assertUnauthorized(t, await products(`Basic ${Buffer.from(`${key}:`).toString("base64")}`));
  assertUnauthorized(t, await products(`Basic ${key}`));
  assertUnauthorized(t, await products(`Token ${key}`));
  assertUnauthorized(t, await products(key)); // the key alone, no scheme
  assertUnauthorized(t, await products("Bearer")); // the scheme alone
  assertUnauthorized(t, await products(`Bearer ${key} extra`));
});

test("an unknown well-formed key is 401", async (t) => {
  const key = wellFormedUnknownKey();
  t.regex(key, /^sk_live_[0-9A-Za-z]{40}$/);
  assertUnauthorized(t, await products(`Bearer ${key}`));
});

test("a malformed key is 401", async (t) => {
  const { key } = await createStore(stack);
  for (const bad of [
    "nope",
    "sk_live_",
    "sk_live_short",
    "sk_test_" + key.slice("sk_live_".length),
    key.slice(0, -1) + "!",
    key + "-",
    key.toUpperCase(),
    "sk_live_" + "a".repeat(500),
  ]) {
    assertUnauthorized(t, await products(`Bearer ${bad}`));
  }
});

test("the scheme word is case-insensitive: lowercase bearer works", async (t) => {
  const { key } = await createStore(stack);
  assertOk(t, await products(`bearer ${key}`));
  assertOk(t, await products(`BEARER ${key}`));
  assertOk(t, await products(`Bearer ${key}`));
});

test("a key revoked before its first use fails at once", async (t) => {
  const { storeId, keyId, key } = await createStore(stack);
  await stack.stores.revokeApiKey({ storeId, keyId });
  assertUnauthorized(t, await products(`Bearer ${key}`));
});

test("a key used and then revoked fails within 5 seconds", async (t) => {
  const { storeId, keyId, key } = await createStore(stack);
  assertOk(t, await products(`Bearer ${key}`)); // now known to the gateway
  assertOk(t, await products(`Bearer ${key}`));
  await stack.stores.revokeApiKey({ storeId, keyId });
  const started = Date.now();
  let last: ApiResponse | undefined;
  await waitFor(async () => {
    last = await products(`Bearer ${key}`);
    return last.status !== 200;
  }, 5_000);
  const elapsed = Date.now() - started;
  t.true(elapsed < 5_000, `revocation took ${elapsed} ms`);
  assertUnauthorized(t, last!);
  // And it stays revoked.
  assertUnauthorized(t, await products(`Bearer ${key}`));
});

test("revoking one key leaves the store's other keys working", async (t) => {
  const { storeId, keyId, key } = await createStore(stack);
  const second = await stack.stores.createApiKey({ storeId, name: "second" });
  await stack.stores.revokeApiKey({ storeId, keyId });
  assertUnauthorized(t, await products(`Bearer ${key}`));
  assertOk(t, await products(`Bearer ${second.secret}`));
});

test("a starter-plan store gets 403 PLAN_REQUIRED", async (t) => {
  const { key } = await createStore(stack, Plan.STARTER);
  assertPlanRequired(t, await products(`Bearer ${key}`));
  const growth = await createStore(stack, Plan.GROWTH);
  assertOk(t, await products(`Bearer ${growth.key}`));
  const scale = await createStore(stack, Plan.SCALE);
  assertOk(t, await products(`Bearer ${scale.key}`));
});

test("plan changes take effect within 5 seconds, both ways", async (t) => {
  const { storeId, key } = await createStore(stack, Plan.GROWTH);
  assertOk(t, await products(`Bearer ${key}`));

  await stack.stores.setStorePlan({ storeId, plan: Plan.STARTER });
  let started = Date.now();
  let last: ApiResponse | undefined;
  await waitFor(async () => {
    last = await products(`Bearer ${key}`);
    return last.status !== 200;
  }, 5_000);
  let elapsed = Date.now() - started;
  t.true(elapsed < 5_000, `downgrade took ${elapsed} ms`);
  assertPlanRequired(t, last!);

  await stack.stores.setStorePlan({ storeId, plan: Plan.SCALE });
  started = Date.now();
  await waitFor(async () => {
    last = await products(`Bearer ${key}`);
    return last.status !== 403;
  }, 5_000);
  elapsed = Date.now() - started;
  t.true(elapsed < 5_000, `upgrade took ${elapsed} ms`);
  assertOk(t, last!);
});

test("authentication and plan are checked before validation", async (t) => {
  const starter = await createStore(stack, Plan.STARTER);
  assertPlanRequired(t, await products(`Bearer ${starter.key}`, "?limit=0"));
  assertPlanRequired(t, await products(`Bearer ${starter.key}`, "?limit=abc&offset=-1"));
  assertUnauthorized(t, await products(undefined, "?limit=0"));
  assertUnauthorized(t, await products(`Bearer ${wellFormedUnknownKey()}`, "?limit=0"));
  const growth = await createStore(stack, Plan.GROWTH);
  const invalid = await products(`Bearer ${growth.key}`, "?limit=0");
  t.is(invalid.status, 400);
  t.is(invalid.body.error.code, "INVALID_REQUEST");
});

test("failed authentications are limited per client address", async (t) => {
  const limited = await startStack({ authFailuresPerMinute: 5 });
  t.teardown(() => limited.close());
  const { key } = await createStore(limited);
  const call = (authorization?: string) =>
    api(limited.baseUrl, "/v1/products", { headers: authorization === undefined ? {} : { authorization } });

  // A valid key before any failure is fine and does not count against the limit.
  assertOk(t, await call(`Bearer ${key}`));
  for (let n = 0; n < 5; n++) assertUnauthorized(t, await call(`Bearer ${wellFormedUnknownKey()}`));

  for (const authorization of [`Bearer ${key}`, `Bearer ${wellFormedUnknownKey()}`, undefined]) {
    const blocked = await call(authorization);
    t.is(blocked.status, 429, blocked.text);
    t.false(blocked.body?.success);
    t.is(blocked.body?.error?.code, "RATE_LIMITED");
    const retryAfter = blocked.headers.get("retry-after");
    t.regex(retryAfter ?? "", /^\d+$/);
    t.true(Number(retryAfter) >= 1);
  }
  // With no TRUST_PROXY, a forwarded-for header from the peer is not believed.
  const spoofed = await api(limited.baseUrl, "/v1/products", { headers: { authorization: `Bearer ${key}`, "x-forwarded-for": "198.51.100.23" } });
  t.is(spoofed.status, 429, "a made-up X-Forwarded-For does not escape the limit");
});

test("behind a trusted proxy (TRUST_PROXY), one client's failed guesses never lock out another", async (t) => {
  // The test's own loopback connection plays the proxy; X-Forwarded-For names the clients.
  const proxied = await startStack({ authFailuresPerMinute: 5, env: { TRUST_PROXY: "127.0.0.0/8,::1" } });
  t.teardown(() => proxied.close());
  const { key } = await createStore(proxied);
  const from = (client: string, authorization: string) =>
    api(proxied.baseUrl, "/v1/products", { headers: { authorization, "x-forwarded-for": client } });
  const guesser = "203.0.113.7";
  const neighbour = "198.51.100.9";

  for (let n = 0; n < 5; n++) assertUnauthorized(t, await from(guesser, `Bearer ${wellFormedUnknownKey()}`));
  t.is((await from(guesser, `Bearer ${key}`)).status, 429, "the guesser is limited");
  // Whatever a client prepends, the proxy's own entry (the right-most) is who it is.
  t.is((await from(`${neighbour}, ${guesser}`, `Bearer ${key}`)).status, 429, "prepending another address does not help");

  assertOk(t, await from(neighbour, `Bearer ${key}`));
  assertUnauthorized(t, await from(neighbour, `Bearer ${wellFormedUnknownKey()}`));
  assertOk(t, await from(`${guesser}, ${neighbour}`, `Bearer ${key}`));
});
