// The one-time flash of the dashboard (docs/dashboard.md#after-a-change): what a changing
// form has to say after its 303 (a confirmation, and where needed a secret shown once
// or an import's results) rides to the page it redirects to in a cookie, and the GET of
// that page takes it and clears it, so a reload or Back shows the page without it.
//
// The cookie holds AES-256-GCM ciphertext under a key derived (HKDF) from the
// browser's own secret (the session token, or before sign-in the double-submit CSRF
// token). Nothing is kept on the server, so any gateway instance can show it, and no
// server-side store, log or URL ever holds the secret in clear; the server never
// stores the session token either, so it cannot read a flash it did not just get.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { Context } from "koa";
import { appendCookie, readCookie, serializeCookie } from "./session-cookie.js";

/** What a page shows once after a change. */
export interface FlashPayload {
  /** The confirmation at the top of the page. */
  message?: string;
  /** Something shown once beside it (a new key, a secret, an import's results); `kind` names its shape. */
  shown?: { kind: string } & Record<string, unknown>;
}

/** Long enough to follow a redirect on a slow phone; short enough that a forgotten one is soon gone. */
export const FLASH_MAX_AGE_SECONDS = 120;

/** The cookie's value at most, in characters: with its name and attributes under the 4 KiB every browser keeps. */
export const MAX_FLASH_CHARS = 3500;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_INFO = "dashboard flash v1";

interface Envelope {
  /** The path (no query) of the page that shows it. */
  p: string;
  /** The store it belongs to ("" outside a store). */
  s: string;
  /** Expiry, epoch milliseconds. */
  e: number;
  d: FlashPayload;
}

export function flashCookieName(secure: boolean): string {
  return secure ? "__Host-flash" : "flash";
}

function keyFor(browserSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", browserSecret, "", HKDF_INFO, 32));
}

/** The path part of a redirect's location. */
export function pathOf(location: string): string {
  const end = location.search(/[?#]/);
  return end < 0 ? location : location.slice(0, end);
}

function sealedLength(plaintextBytes: number): number {
  return Math.ceil(((IV_BYTES + plaintextBytes + TAG_BYTES) * 4) / 3);
}

/** Whether a flash for `path` fits in the cookie. */
export function flashFits(path: string, storeId: string, payload: FlashPayload): boolean {
  const envelope: Envelope = { p: path, s: storeId, e: Number.MAX_SAFE_INTEGER, d: payload };
  return sealedLength(Buffer.byteLength(JSON.stringify(envelope))) <= MAX_FLASH_CHARS;
}

/**
 * The payload made of as many of `items` (from the first) as fit, `make` being told
 * how many were left out; a list's first rows and "and N more".
 */
export function fitList<T>(path: string, storeId: string, items: readonly T[], make: (shown: T[], more: number) => FlashPayload): FlashPayload {
  let low = 0;
  let high = items.length;
  // The largest count that fits (fitting is monotonic in the count).
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (flashFits(path, storeId, make(items.slice(0, mid), items.length - mid))) low = mid;
    else high = mid - 1;
  }
  return make(items.slice(0, low), items.length - low);
}

/** The cookie value: base64url of IV ‖ ciphertext ‖ tag. */
export function sealFlash(browserSecret: string, flash: { path: string; storeId: string; payload: FlashPayload }, now = Date.now()): string {
  const envelope: Envelope = { p: flash.path, s: flash.storeId, e: now + FLASH_MAX_AGE_SECONDS * 1000, d: flash.payload };
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFor(browserSecret), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(envelope), "utf8"), cipher.final()]);
  const sealed = Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
  if (sealed.length > MAX_FLASH_CHARS) throw new Error(`a flash of ${sealed.length} characters is over the cookie's ${MAX_FLASH_CHARS}`);
  return sealed;
}

/**
 * The payload of a flash for this page, or undefined: another page's, expired,
 * another browser secret's (another session), or altered.
 */
export function openFlash(browserSecret: string, sealed: string, page: { path: string; storeId: string }, now = Date.now()): FlashPayload | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(sealed) || sealed.length > MAX_FLASH_CHARS) return undefined;
  const bytes = Buffer.from(sealed, "base64url");
  if (bytes.length < IV_BYTES + TAG_BYTES + 2) return undefined;
  let envelope: Envelope;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFor(browserSecret), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
    envelope = JSON.parse(text) as Envelope;
  } catch {
    return undefined;
  }
  if (envelope.p !== page.path || envelope.s !== page.storeId || !(envelope.e > now)) return undefined;
  return envelope.d;
}

/** Sets the flash for the page at `location` (its path), replacing any earlier one. */
export function setFlash(ctx: Context, options: { secure: boolean; browserSecret: string; location: string; storeId: string; payload: FlashPayload }): void {
  const sealed = sealFlash(options.browserSecret, { path: pathOf(options.location), storeId: options.storeId, payload: options.payload });
  appendCookie(ctx, serializeCookie(flashCookieName(options.secure), sealed, options.secure, FLASH_MAX_AGE_SECONDS));
  // The redirect carries a secret in its cookie: no cache may keep it.
  ctx.set("Cache-Control", "no-store");
}

/** The flash for this page (ctx.path), cleared from the browser as it is taken; another page's is left alone. */
export function takeFlash(ctx: Context, options: { secure: boolean; browserSecret: string | undefined; storeId: string }): FlashPayload | undefined {
  const name = flashCookieName(options.secure);
  const sealed = readCookie(ctx, name, MAX_FLASH_CHARS);
  if (!sealed || !options.browserSecret) return undefined;
  const payload = openFlash(options.browserSecret, sealed, { path: ctx.path, storeId: options.storeId });
  if (payload) appendCookie(ctx, serializeCookie(name, "", options.secure, 0));
  return payload;
}

/**
 * Takes back the clearing of a flash taken by a page that then failed (a service away,
 * 503): the browser keeps it, so trying again shows it, a new key or secret included.
 */
export function keepFlash(ctx: Context, secure: boolean): void {
  const existing = ctx.response.get("Set-Cookie") as unknown as string[] | string | undefined;
  if (!existing) return;
  const clearing = `${flashCookieName(secure)}=;`;
  const kept = (Array.isArray(existing) ? existing : [existing]).filter((cookie) => !cookie.startsWith(clearing));
  if (kept.length === 0) ctx.remove("Set-Cookie");
  else ctx.set("Set-Cookie", kept);
}
