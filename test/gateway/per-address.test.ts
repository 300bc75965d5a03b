// Limits per client address through the real gateway: a burst of wrong keys, wrong
// passwords or reset requests from one client arriving at once is cut at the budget
// (a token is taken before the work), IPv6 clients are counted per /64, and a burst of
// good keys or right passwords is never refused. The test's loopback connection plays
// a trusted proxy, so X-Forwarded-For names a fresh client for each case.
import test, { type ExecutionContext } from "ava";
import { api } from "../helpers/http.js";
import { createStore, startStack, type Stack } from "../helpers/stack.js";

const LIMIT = 5;
const PASSWORD = "a long enough password";

let stack: Stack;
test.before(async () => {
  stack = await startStack({ authFailuresPerMinute: LIMIT, env: { TRUST_PROXY: "127.0.0.0/8,::1" } });
});
test.after.always(async () => {
  await stack?.close();
});

const unknownKey = () => `sk_live_${"x".repeat(30)}${Math.random().toString(36).slice(2, 12).padEnd(10, "0")}`;
const products = (client: string, key: string) => api(stack.baseUrl, "/v1/products", { key, headers: { "x-forwarded-for": client } });
const times = <T>(n: number, run: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => run(i)));
const count = (responses: { status: number }[], status: number) => responses.filter((r) => r.status === status).length;

function assertRetryAfter(t: ExecutionContext, response: { headers: Headers }) {
  const retryAfter = response.headers.get("retry-after") ?? "";
  t.regex(retryAfter, /^\d+$/);
  t.true(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After: ${retryAfter}`);
}

/** A form post as the sign-in page's browser sends it (the pre-session CSRF token is double-submitted). */
function postForm(client: string, path: string, fields: Record<string, string>) {
  return api(stack.baseUrl, path, {
    method: "POST",
    headers: { "x-forwarded-for": client, cookie: "csrf=per-address-test-token", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf: "per-address-test-token", ...fields }),
  });
}

async function member(name: string) {
  const store = await createStore(stack, undefined, name);
  const email = `${name.replace(/\W/g, "").toLowerCase()}@merchant.example`;
  const { invitationToken } = await stack.accounts.inviteMember({ storeId: store.storeId, email });
  await stack.accounts.acceptInvitation({ token: invitationToken, password: PASSWORD });
  return { ...store, email };
}

test("20 wrong keys at once from one client: no more than the limit are looked at, the rest are 429 with Retry-After", async (t) => {
  const { key } = await createStore(stack);
  const guesses = await times(20, () => products("203.0.113.20", unknownKey()));
  t.true(count(guesses, 401) <= LIMIT, `${count(guesses, 401)} wrong keys were looked at`);
  t.is(count(guesses, 429), 20 - count(guesses, 401), guesses.map((g) => g.status).join(","));
  for (const refused of guesses.filter((g) => g.status === 429)) {
    t.is(refused.body?.error?.code, "RATE_LIMITED");
    assertRetryAfter(t, refused);
  }
  t.is((await products("203.0.113.20", key)).status, 429, "the spent budget stops the good key too");
  // Another client's burst of the good key: each success hands its token back.
  const good = await times(20, () => products("198.51.100.20", key));
  t.deepEqual(good.map((r) => r.status), Array(20).fill(200));
});

test("IPv6 clients are counted per /64: other addresses of the same /64 are the same client", async (t) => {
  const { key } = await createStore(stack);
  for (let n = 1; n <= LIMIT; n++) t.is((await products(`2001:db8:a:b::${n}`, unknownKey())).status, 401);
  const sameNetwork = await products("2001:db8:a:b:ffff:1234:5678:9abc", key);
  t.is(sameNetwork.status, 429, "a fresh address in the same /64 is still the guesser");
  assertRetryAfter(t, sameNetwork);
  t.is((await products("2001:db8:a:c::1", key)).status, 200, "the next /64 is someone else");
});

test("20 wrong passwords at once from one client: no more than the limit are checked, the rest get the try-later page", async (t) => {
  const { email } = await member("Sign In Burst");
  const tries = await times(20, () => postForm("203.0.113.30", "/dashboard/login", { email, password: "not the password" }));
  t.true(count(tries, 401) <= LIMIT, `${count(tries, 401)} wrong passwords were checked`);
  t.is(count(tries, 429), 20 - count(tries, 401), tries.map((r) => r.status).join(","));
  for (const refused of tries.filter((r) => r.status === 429)) {
    t.regex(refused.text, /Too many attempts\. Wait a minute, then try again\./);
    t.notRegex(refused.text, /Invalid email or password/);
    assertRetryAfter(t, refused);
  }
  t.is((await postForm("203.0.113.30", "/dashboard/login", { email, password: PASSWORD })).status, 429, "the spent budget stops the right password too");

  // Right passwords from another client, more at once than the budget: all signed in,
  // and the email is not locked (only the few checked failures counted against it).
  const right = await times(8, () => postForm("198.51.100.30", "/dashboard/login", { email, password: PASSWORD }));
  t.deepEqual(right.map((r) => r.status), Array(8).fill(303));
});

test("password-reset requests are counted per client before the catalog is asked; past the limit a try-later page", async (t) => {
  const requests = await times(20, (i) => postForm("2001:db8:40::1", "/dashboard/forgot-password", { email: `nobody${i}@example.co.id` }));
  t.is(count(requests, 303), LIMIT, requests.map((r) => r.status).join(","));
  t.is(count(requests, 429), 20 - LIMIT);
  for (const refused of requests.filter((r) => r.status === 429)) {
    t.regex(refused.text, /Too many attempts\. Wait a minute, then try again\./);
    assertRetryAfter(t, refused);
  }
  t.is((await postForm("2001:db8:40::ffff", "/dashboard/forgot-password", { email: "someone@example.co.id" })).status, 429, "the whole /64 is one client");
  t.is((await postForm("2001:db8:41::1", "/dashboard/forgot-password", { email: "someone@example.co.id" })).status, 303);
});
