// The dashboard's one-time flash (gateway/dashboard/flash.ts), without a server: what
// survives a redirect in the cookie, and what is refused.
import test from "ava";
import type { Context } from "koa";
import { fitList, FLASH_MAX_AGE_SECONDS, MAX_FLASH_CHARS, keepFlash, openFlash, sealFlash, setFlash, takeFlash } from "../../gateway/dashboard/flash.js";

const session = "s".repeat(43);
const page = { path: "/dashboard/stores/0b6f3c1e-2f4a-4c2b-9d7e-0a1b2c3d4e5f/api-keys", storeId: "0b6f3c1e-2f4a-4c2b-9d7e-0a1b2c3d4e5f" };
const payload = { message: "Key created.", shown: { kind: "api_key", secret: "sk_live_abcdef0123456789" } };

/** Just enough of a Koa context for the cookie helpers. */
function fakeContext(path: string, cookieHeader = "") {
  const headers: Record<string, unknown> = {};
  return {
    headers,
    ctx: {
      path,
      get: (name: string) => (name.toLowerCase() === "cookie" ? cookieHeader : ""),
      set: (name: string, value: unknown) => (headers[name] = value),
      remove: (name: string) => delete headers[name],
      response: { get: (name: string) => headers[name] },
    } as unknown as Context,
  };
}

test("a flash sealed for a page opens on that page with the same session", (t) => {
  const sealed = sealFlash(session, { ...page, payload });
  t.deepEqual(openFlash(session, sealed, page), payload);
  // The secret is not readable in the cookie.
  t.false(Buffer.from(sealed, "base64url").toString("latin1").includes("sk_live_"));
  t.false(sealed.includes("sk_live_"));
});

test("an altered cookie is ignored", (t) => {
  const sealed = sealFlash(session, { ...page, payload });
  const bytes = Buffer.from(sealed, "base64url");
  for (const at of [0, 14, bytes.length - 1]) {
    const altered = Buffer.from(bytes);
    altered[at] = altered[at]! ^ 1;
    t.is(openFlash(session, altered.toString("base64url"), page), undefined, `byte ${at}`);
  }
  t.is(openFlash(session, sealed.slice(0, -4), page), undefined);
  t.is(openFlash(session, "not a flash", page), undefined);
});

test("another session (another member, or signed in again) cannot open it", (t) => {
  const sealed = sealFlash(session, { ...page, payload });
  t.is(openFlash("t".repeat(43), sealed, page), undefined);
});

test("a flash for another page or store is not opened there", (t) => {
  const sealed = sealFlash(session, { ...page, payload });
  t.is(openFlash(session, sealed, { ...page, path: `${page.path}/other` }), undefined);
  t.is(openFlash(session, sealed, { ...page, storeId: "1b6f3c1e-2f4a-4c2b-9d7e-0a1b2c3d4e5f" }), undefined);
});

test("a flash expires after its Max-Age", (t) => {
  const now = Date.parse("2026-11-28T10:00:00Z");
  const sealed = sealFlash(session, { ...page, payload }, now);
  t.deepEqual(openFlash(session, sealed, page, now + FLASH_MAX_AGE_SECONDS * 1000 - 1), payload);
  t.is(openFlash(session, sealed, page, now + FLASH_MAX_AGE_SECONDS * 1000), undefined);
});

test("the page it is for takes it and clears the cookie; another page leaves it alone", (t) => {
  const set = fakeContext("/dashboard/stores/x/webhooks");
  setFlash(set.ctx, { secure: true, browserSecret: session, location: `${page.path}?mode=test`, storeId: page.storeId, payload });
  const [cookie] = set.headers["Set-Cookie"] as string[];
  t.regex(cookie!, new RegExp(`^__Host-flash=[A-Za-z0-9_-]+; Path=/; Max-Age=${FLASH_MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax; Secure$`));
  t.is(set.headers["Cache-Control"], "no-store");
  const value = cookie!.slice("__Host-flash=".length, cookie!.indexOf(";"));

  const elsewhere = fakeContext(`${page.path}/other`, `__Host-session=${session}; __Host-flash=${value}`);
  t.is(takeFlash(elsewhere.ctx, { secure: true, browserSecret: session, storeId: page.storeId }), undefined);
  t.is(elsewhere.headers["Set-Cookie"], undefined);

  const there = fakeContext(page.path, `__Host-session=${session}; __Host-flash=${value}`);
  t.deepEqual(takeFlash(there.ctx, { secure: true, browserSecret: session, storeId: page.storeId }), payload);
  t.deepEqual(there.headers["Set-Cookie"], ["__Host-flash=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure"]);
});

test("a long list keeps the first rows that fit and counts the rest", (t) => {
  const rows = Array.from({ length: 500 }, (_, i) => ({ id: `mutation-${i}`, result: "unmatched", reason: "no order with this amount" }));
  const fitted = fitList(page.path, page.storeId, rows, (shown, more) => ({ shown: { kind: "rows", rows: shown, more } }));
  const shown = fitted.shown as unknown as { rows: typeof rows; more: number };
  t.true(shown.rows.length > 10);
  t.is(shown.rows.length + shown.more, 500);
  t.deepEqual(shown.rows, rows.slice(0, shown.rows.length));
  const sealed = sealFlash(session, { ...page, payload: fitted });
  t.true(sealed.length <= MAX_FLASH_CHARS);
  // One more row would not have fitted.
  t.throws(() => sealFlash(session, { ...page, payload: { shown: { kind: "rows", rows: rows.slice(0, shown.rows.length + 1), more: shown.more - 1 } } }));
});

test("a page that fails after taking its flash keeps it for the next try; other cookies stay as set", (t) => {
  const sealed = sealFlash(session, { ...page, payload });
  const { ctx, headers } = fakeContext(page.path, `flash=${sealed}`);
  headers["Set-Cookie"] = ["session=abc; Path=/"];
  t.deepEqual(takeFlash(ctx, { secure: false, browserSecret: session, storeId: page.storeId }), payload);
  t.true((headers["Set-Cookie"] as string[]).some((cookie) => cookie.startsWith("flash=;")), "taking it clears it");
  keepFlash(ctx, false);
  t.deepEqual(headers["Set-Cookie"], ["session=abc; Path=/"], "the clearing is taken back, nothing else");
  const alone = fakeContext(page.path, `flash=${sealed}`);
  takeFlash(alone.ctx, { secure: false, browserSecret: session, storeId: page.storeId });
  keepFlash(alone.ctx, false);
  t.is(alone.headers["Set-Cookie"], undefined);
});

