import test, { type ExecutionContext } from "ava";
import { api, type ApiResponse } from "../helpers/http.js";
import { capturingLogger } from "../helpers/logs.js";
import { createStore, startStack, type Stack } from "../helpers/stack.js";

const RATE = 5;

let stack: Stack;
/** What the gateway logged: the request lines say each call's mode. */
const lines: Record<string, any>[] = [];
test.before(async () => {
  stack = await startStack({ ratePerMinute: RATE, logger: capturingLogger(lines) });
});
test.after.always(async () => {
  await stack?.close();
});

const list = (key: string) => api(stack.baseUrl, "/v1/products", { key });

/** The parsed RateLimit header, after checking both rate headers are well-formed. */
function rateHeaders(t: ExecutionContext, response: ApiResponse): { r: number; t: number } {
  t.is(response.headers.get("ratelimit-policy"), `"store";q=${RATE};w=60`);
  const match = /^"store";r=(\d+);t=(\d+)$/.exec(response.headers.get("ratelimit") ?? "");
  t.truthy(match, `RateLimit: ${response.headers.get("ratelimit")}`);
  return { r: Number(match?.[1]), t: Number(match?.[2]) };
}

function assertLimited(t: ExecutionContext, response: ApiResponse) {
  t.is(response.status, 429, response.text);
  t.false(response.body?.success);
  t.is(response.body?.error?.code, "RATE_LIMITED");
  t.regex(response.headers.get("content-type") ?? "", /^application\/json/);
  const retryAfter = response.headers.get("retry-after");
  t.regex(retryAfter ?? "", /^\d+$/, `Retry-After: ${retryAfter}`);
  t.true(Number(retryAfter) >= 1);
  t.true(Number(retryAfter) <= 60);
  const headers = rateHeaders(t, response);
  t.is(headers.r, 0);
  t.true(headers.t >= 1 && headers.t <= 60);
}

test("five requests pass with RateLimit counting down, the sixth is 429", async (t) => {
  const { key } = await createStore(stack);
  const remaining: number[] = [];
  for (let n = 0; n < RATE; n++) {
    const response = await list(key);
    t.is(response.status, 200, `request ${n + 1}: ${response.text}`);
    const headers = rateHeaders(t, response);
    remaining.push(headers.r);
    t.true(headers.t >= 1 && headers.t <= 60, `t=${headers.t}`);
  }
  t.deepEqual(remaining, [4, 3, 2, 1, 0]);
  assertLimited(t, await list(key));
  // Still limited on the next try: a refused request does not reset anything.
  assertLimited(t, await list(key));
});

test("the limit is per store: another store's key still passes", async (t) => {
  const busy = await createStore(stack, undefined, "Busy");
  const quiet = await createStore(stack, undefined, "Quiet");
  for (let n = 0; n < RATE; n++) t.is((await list(busy.key)).status, 200);
  assertLimited(t, await list(busy.key));

  const other = await list(quiet.key);
  t.is(other.status, 200, other.text);
  t.is(rateHeaders(t, other).r, RATE - 1);
});

test("all keys of one store share one bucket", async (t) => {
  const { storeId, key } = await createStore(stack, undefined, "Two Keys");
  const second = (await stack.stores.createApiKey({ storeId, name: "second" })).secret;
  const keys = [key, second, key, second, second];
  const remaining: number[] = [];
  for (const k of keys) {
    const response = await list(k);
    t.is(response.status, 200, response.text);
    remaining.push(rateHeaders(t, response).r);
  }
  t.deepEqual(remaining, [4, 3, 2, 1, 0]);
  assertLimited(t, await list(key));
  assertLimited(t, await list(second));

  // A key created after the bucket ran dry is in the same bucket.
  const third = (await stack.stores.createApiKey({ storeId, name: "third" })).secret;
  assertLimited(t, await list(third));
});

test("the rate limit comes after authentication: bad keys do not spend a store's bucket", async (t) => {
  const { key } = await createStore(stack, undefined, "Guarded");
  for (let n = 0; n < RATE + 2; n++) {
    const response = await api(stack.baseUrl, "/v1/products", {
      key: "sk_live_" + "Z".repeat(39) + String(n),
    });
    t.is(response.status, 401);
    t.is(response.headers.get("ratelimit"), null);
  }
  const response = await list(key);
  t.is(response.status, 200);
  t.is(rateHeaders(t, response).r, RATE - 1);
});

test("a test key's traffic has its own bucket of the same size: emptying it leaves the store's live key answered, and the log says each call's mode", async (t) => {
  const { storeId, key: live } = await createStore(stack, undefined, "Test Suite Store");
  const testKey = (await stack.stores.createApiKey({ storeId, name: "CI", testMode: true })).secret;
  t.regex(testKey, /^sk_test_/);
  const remaining: number[] = [];
  for (let n = 0; n < RATE; n++) {
    const response = await list(testKey);
    t.is(response.status, 200, response.text);
    remaining.push(rateHeaders(t, response).r);
  }
  t.deepEqual(remaining, [4, 3, 2, 1, 0], "the test bucket is as large as the live one");
  assertLimited(t, await list(testKey));

  const answered = await list(live);
  t.is(answered.status, 200, answered.text);
  t.is(rateHeaders(t, answered).r, RATE - 1, "the live bucket is untouched");

  const requests = lines.filter((line) => line.msg === "request" && line.storeId === storeId);
  t.is(requests.filter((line) => line.livemode === false).length, RATE + 1);
  t.is(requests.filter((line) => line.livemode === true).length, 1);
});
