// The dashboard's cookie and CSRF rules (docs/dashboard.md#sessions), without a server: what the
// browser is told to store, and which form tokens are accepted.
import test from "ava";
import type { Context } from "koa";
import type { ServiceClients } from "../../gateway/clients.js";
import { createSessionCookies, csrfTokenFor, readCookie, sameToken } from "../../gateway/dashboard/session-cookie.js";

/** Just enough of a Koa context for the cookie helpers. */
function fakeContext(cookieHeader = "") {
  const headers: Record<string, unknown> = {};
  return {
    headers,
    ctx: {
      get: (name: string) => (name.toLowerCase() === "cookie" ? cookieHeader : ""),
      set: (name: string, value: unknown) => (headers[name] = value),
      response: { get: (name: string) => headers[name] },
    } as unknown as Context,
  };
}

const clients = {} as ServiceClients;

test("over https the session cookie is __Host-, Secure, HttpOnly, SameSite=Lax, for 7 days", (t) => {
  const { ctx, headers } = fakeContext();
  createSessionCookies({ clients, secure: true }).start(ctx, "tok_" + "a".repeat(40));
  t.deepEqual(headers["Set-Cookie"], [`__Host-session=tok_${"a".repeat(40)}; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure`]);
});

test("over plain http (local development) the cookie is not Secure, so the browser keeps it", (t) => {
  const { ctx, headers } = fakeContext();
  const sessions = createSessionCookies({ clients, secure: false });
  sessions.start(ctx, "b".repeat(43));
  sessions.clear(ctx);
  t.deepEqual(headers["Set-Cookie"], [
    `session=${"b".repeat(43)}; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax`,
    "session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax",
  ]);
});

test("only a well-formed token is read from the Cookie header", (t) => {
  const token = "c".repeat(43);
  t.is(readCookie(fakeContext(`other=1; session=${token}`).ctx, "session"), token);
  t.is(readCookie(fakeContext(`session=${token}"; x=1`).ctx, "session"), undefined);
  t.is(readCookie(fakeContext("session=short").ctx, "session"), undefined);
  t.is(readCookie(fakeContext(`sessionx=${token}`).ctx, "session"), undefined);
});

test("a CSRF token belongs to one session and compares in constant time", (t) => {
  const a = csrfTokenFor("d".repeat(43));
  const b = csrfTokenFor("e".repeat(43));
  t.is(a, csrfTokenFor("d".repeat(43)), "stable for a session, so every open tab's forms work");
  t.not(a, b);
  t.true(sameToken(a, a));
  t.false(sameToken(b, a));
  t.false(sameToken(undefined, a));
  t.false(sameToken(a.slice(1), a));
});

test("the pre-sign-in CSRF cookie is made once and then reused", (t) => {
  const first = fakeContext();
  const sessions = createSessionCookies({ clients, secure: true });
  const token = sessions.preSessionCsrf(first.ctx);
  t.regex(String((first.headers["Set-Cookie"] as string[])[0]), /^__Host-csrf=[A-Za-z0-9_-]{32}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax; Secure$/);
  const again = fakeContext(`__Host-csrf=${token}`);
  t.is(sessions.preSessionCsrf(again.ctx), token);
  t.is(again.headers["Set-Cookie"], undefined);
});
