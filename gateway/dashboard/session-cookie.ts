// The dashboard's cookies and CSRF tokens (docs/dashboard.md#sessions): who is signed in is a
// server-side session (the catalog service keeps it, accounts/member-sessions.ts) named
// by an HttpOnly cookie; every form carries a CSRF token, derived from that cookie once
// signed in and double-submitted in a cookie of its own before.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Context } from "koa";
import type { ServiceClients } from "../clients.js";
import { isRole, type Role } from "../../common/roles.js";

export interface Member {
  id: string;
  email: string;
  /** The member's stores, each with the role they hold there (docs/team.md#roles). */
  stores: { id: string; name: string; role: Role }[];
  /** The token in the cookie; forms' CSRF tokens are derived from it. */
  token: string;
}

/** A cookie name with the `__Host-` prefix when served over https: the browser then insists on Secure, Path=/ and no Domain. */
export function cookieNames(secure: boolean) {
  return { session: secure ? "__Host-session" : "session", csrf: secure ? "__Host-csrf" : "csrf" };
}

const SESSION_MAX_AGE_SECONDS = 7 * 24 * 3600;

export function serializeCookie(name: string, value: string, secure: boolean, maxAgeSeconds: number): string {
  return [`${name}=${value}`, "Path=/", `Max-Age=${maxAgeSeconds}`, "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])].join("; ");
}

/** Reads one cookie from the request (a well-formed token only: 16 to `maxLength` base64url characters). */
export function readCookie(ctx: Context, name: string, maxLength = 128): string | undefined {
  for (const part of (ctx.get("cookie") || "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value.length >= 16 && value.length <= maxLength && /^[A-Za-z0-9_-]+$/.test(value) ? value : undefined;
  }
  return undefined;
}

/** Adds a Set-Cookie header, keeping those already set by this response. */
export function appendCookie(ctx: Context, cookie: string) {
  const existing = ctx.response.get("Set-Cookie") as unknown as string[] | string | undefined;
  const list = Array.isArray(existing) ? existing : existing ? [existing] : [];
  ctx.set("Set-Cookie", [...list, cookie]);
}

export function createSessionCookies(deps: { clients: ServiceClients; secure: boolean }) {
  const names = cookieNames(deps.secure);
  return {
    names,
    /** Whether the cookies are Secure (the public origin is https). */
    secure: deps.secure,
    /** Gives the browser the session cookie (after a sign-in). */
    start(ctx: Context, token: string) {
      appendCookie(ctx, serializeCookie(names.session, token, deps.secure, SESSION_MAX_AGE_SECONDS));
    },
    clear(ctx: Context) {
      appendCookie(ctx, serializeCookie(names.session, "", deps.secure, 0));
    },
    /** The signed-in member, or undefined (no cookie, or the session ended or expired). */
    async resolve(ctx: Context): Promise<Member | undefined> {
      const token = readCookie(ctx, names.session);
      if (!token) return undefined;
      try {
        const resolved = await deps.clients.accounts.resolveSession({ token });
        return {
          id: resolved.member!.id,
          email: resolved.member!.email,
          // A role this gateway does not know (a newer catalog) gives no permission at all.
          stores: resolved.stores.filter((store) => isRole(store.role)).map((store) => ({ id: store.id, name: store.name, role: store.role as Role })),
          token,
        };
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.Unauthenticated) return undefined;
        throw error;
      }
    },
    /** The token for forms before sign-in (double-submit: a cookie and the same value in the form). */
    preSessionCsrf(ctx: Context): string {
      return doubleSubmitToken(ctx, deps.secure);
    },
  };
}

export type SessionCookies = ReturnType<typeof createSessionCookies>;

/**
 * The token of a form shown to someone not signed in (the sign-in form, the public
 * payment link page): double-submitted, in an HttpOnly cookie and the same value in the
 * form. Another site can neither read the cookie nor set it, so it cannot post the form.
 */
export function doubleSubmitToken(ctx: Context, secure: boolean): string {
  const name = cookieNames(secure).csrf;
  const existing = readCookie(ctx, name);
  if (existing) return existing;
  const fresh = randomBytes(24).toString("base64url");
  appendCookie(ctx, serializeCookie(name, fresh, secure, 3600));
  return fresh;
}

/** Whether a posted double-submitted token matches its cookie. */
export function doubleSubmitOk(ctx: Context, secure: boolean, given: string): boolean {
  const cookie = readCookie(ctx, cookieNames(secure).csrf);
  return cookie !== undefined && sameToken(given, cookie);
}

/** A signed-in member's CSRF token: derived from the HttpOnly session token, which another site can neither read nor set. */
export function csrfTokenFor(sessionToken: string): string {
  return createHash("sha256").update("csrf\0").update(sessionToken).digest("base64url");
}

export function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
