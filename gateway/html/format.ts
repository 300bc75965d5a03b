// How the hosted pages and the dashboard show money, times and statuses: one set of
// rules for every page.
import { en } from "../../common/i18n/en.js";
import { jakartaDisplay } from "../../common/jakarta-time.js";

// One definition for pages and mail.
export { groupDigits, rupiah } from "../../common/rupiah.js";

/** "21 November 2026, 17:40 WIB"; the input as given when it is not a time. */
export const wib = jakartaDisplay;

/** Only http(s) URLs may become links; anything else (javascript:, data:) is dropped. */
export function safeHttpUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An order status as every page names it (badge, filter, history): the buyer's English
 * words (common/i18n/en.ts), so the two never disagree; an unknown one as itself.
 */
export function statusLabel(status: string): string {
  return (en.status as Record<string, string>)[status] ?? status;
}

/**
 * Where an email, URL or other long name may break on a narrow screen: after `@`, `.`,
 * `/`, `-` and `_`, so "kusumaningrum." stays whole on its line and never becomes
 * "kusumaning" + "rum". The text split after each such character (a run of them stays
 * together: "https://" breaks once, after the second slash); joined, the parts are the text.
 */
export function breakParts(text: string): string[] {
  return text.match(/[^@./_-]*[@./_-]*/g)!.filter((part) => part !== "");
}
