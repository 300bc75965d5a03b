// Which language a hosted page speaks (docs/payments.md#language): `?lang=` when the buyer
// picked one on the page (then kept in a cookie for the visit), else that cookie, else
// the browser's Accept-Language when it prefers English over Indonesian, else Indonesian.
import type { Context } from "koa";
import { DEFAULT_LANGUAGE, isLanguage, LANGUAGES, type Language } from "../../common/i18n/index.js";

/** The cookie that keeps the buyer's pick for the visit (no expiry: gone when the browser closes). */
export const LANGUAGE_COOKIE = "buyer_lang";

export function pageLanguage(ctx: Context): Language {
  // The answer depends on these, so a cache in between never serves one buyer's language to another.
  ctx.vary("Accept-Language");
  ctx.vary("Cookie");
  const picked = ctx.query.lang;
  if (isLanguage(picked)) {
    ctx.cookies.set(LANGUAGE_COOKIE, picked, { httpOnly: true, sameSite: "lax", secure: ctx.secure, overwrite: true });
    return picked;
  }
  const kept = ctx.cookies.get(LANGUAGE_COOKIE);
  if (isLanguage(kept)) return kept;
  const preferred = ctx.acceptsLanguages([...LANGUAGES]);
  return isLanguage(preferred) ? preferred : DEFAULT_LANGUAGE;
}
