// Walking the merchant dashboard in a real browser (docs/dashboard.md): a signed-in member,
// controls found by their accessible names, tables read by their headers, and the
// page's CSP violations collected. Shared by the browser tests of the dashboard.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { ExecutionContext } from "ava";
import { ARTIFACTS } from "./browser.js";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import type { Stack } from "./stack.js";

export const DASHBOARD_PASSWORD = "kopi-tubruk-2026!";

export interface DashboardPage {
  context: BrowserContext;
  page: Page;
  /** CSP violations the browser reported on any page visited. */
  cspViolations: string[];
}

/** A desktop-sized context, closed at the test's end; its waits allow for a loaded CI machine. */
export async function newDashboardPage(t: ExecutionContext, browser: Browser): Promise<DashboardPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(30_000);
  t.teardown(() => context.close());
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(`${page.url()}: ${message.text()}`);
  });
  return { context, page, cspViolations };
}

/** Clicks something that loads a new document (a link, a form's button) and waits for it. */
export async function follow(page: Page, target: Locator, timeout?: number): Promise<void> {
  await Promise.all([page.waitForEvent("load", { timeout }), target.click({ timeout })]);
}

export const button = (page: Page, name: string) => page.getByRole("button", { name, exact: true });
export const link = (page: Page, name: string) => page.getByRole("link", { name, exact: true });

export async function bodyText(page: Page): Promise<string> {
  return (await page.locator("body").innerText()).replace(/\u00a0/g, " ");
}

/**
 * Every table row of the page (or of `scope`), keyed by the lower-cased column headers,
 * whitespace collapsed; `links` holds the row's link targets.
 */
export async function tableRows(page: Page, scope?: Locator): Promise<(Record<string, string> & { links: string })[]> {
  return (scope ?? page.locator("body")).evaluate((root: any) => {
    const out: any[] = [];
    for (const table of root.querySelectorAll("table")) {
      const headers = [...table.querySelectorAll("thead th")].map((th: any) => th.textContent.replace(/\s+/g, " ").trim().toLowerCase());
      for (const tr of table.querySelectorAll("tbody tr")) {
        const row: any = {};
        [...tr.querySelectorAll("td,th")].forEach((cell: any, i: number) => {
          row[headers[i] ?? String(i)] = cell.textContent.replace(/\u00a0/g, " ").replace(/\s+/g, " ").trim();
        });
        row.links = [...tr.querySelectorAll("a[href]")].map((a: any) => a.getAttribute("href")).join(" ");
        out.push(row);
      }
    }
    return out;
  });
}

/** The dashboard URL of a store's page. */
export const dashboardUrl = (stack: Pick<Stack, "baseUrl">, storeId: string, rest = "overview") => `${stack.baseUrl}/dashboard/stores/${storeId}/${rest}`;

/** Accepts an invitation to the store in the browser, which signs the member in on its overview. */
export async function acceptInvitation(stack: Pick<Stack, "accounts" | "baseUrl">, page: Page, storeId: string, email: string): Promise<void> {
  const { invitationToken } = await stack.accounts.inviteMember({ storeId, email });
  await page.goto(`${stack.baseUrl}/dashboard/invite/${invitationToken}`);
  await page.getByLabel("New password", { exact: true }).fill(DASHBOARD_PASSWORD);
  await page.getByLabel("Confirm password", { exact: true }).fill(DASHBOARD_PASSWORD);
  await follow(page, button(page, "Set password"), 30_000);
  if (page.url() !== dashboardUrl(stack, storeId)) throw new Error(`accepting the invitation ended at ${page.url()}: ${await bodyText(page)}`);
}

/** Where the dashboard's screenshots go (CI lists them as artifacts). */
export const DASHBOARD_SHOTS = path.join(ARTIFACTS, "dashboard");

/**
 * What a phone user would see as broken at the page's current width: anything reaching
 * past the viewport's right edge (the page scrolling sideways, or a column pushed out
 * of a table's own scroll box), and a word in a table cell, heading, button, list item
 * or detail broken over two lines because its box is narrower than the word. Words
 * longer than 24 characters (URLs, ids, long emails) may wrap, since no phone column
 * holds them whole, but only after @ . / - or _ ("kusumaningrum." + "wijayakusuma@…",
 * never "kusumaning" + "rum"); a <wbr> joins the parts of one word.
 */
export async function layoutFaults(page: Page): Promise<string[]> {
  // A string, not a function: the test loader would wrap named helpers in a call the page lacks.
  return page.evaluate(LAYOUT_FAULTS);
}

const LAYOUT_FAULTS = `(() => {
  const width = innerWidth;
  const faults = [];
  const describe = (el) => "<" + el.tagName.toLowerCase() + (el.className ? " class=" + JSON.stringify(String(el.className)) : "") + "> " + JSON.stringify((el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 40));
  // Content clipped away for screen readers only (a list's column names on a phone) is not seen.
  const clipped = (el) => { for (let a = el; a; a = a.parentElement) if (getComputedStyle(a).clip !== "auto") return true; return false; };
  const pageOverflow = document.documentElement.scrollWidth - width;
  if (pageOverflow > 0) faults.push("the page scrolls sideways by " + pageOverflow + "px");
  for (const el of document.body.querySelectorAll("*")) {
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0 || el.closest("pre") || clipped(el)) continue;
    if (rect.right > width + 0.5) faults.push(describe(el) + " reaches " + Math.round(rect.right) + "px of " + width + "px");
  }
  // Text nodes one word may span: those a <wbr> (Breakable) separates.
  const groups = (el) => {
    const out = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let group = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest("pre") || clipped(node.parentElement)) continue;
      const last = group[group.length - 1];
      const joined = last && last.nextSibling && last.nextSibling.nodeName === "WBR" && last.nextSibling.nextSibling === node;
      if (!joined && group.length) { out.push(group); group = []; }
      group.push(node);
    }
    if (group.length) out.push(group);
    return out;
  };
  const top = (node, offset) => {
    const range = document.createRange();
    range.setStart(node, offset);
    range.setEnd(node, offset + 1);
    const rect = [...range.getClientRects()].find((r) => r.width > 0);
    return rect ? Math.round(rect.top) : undefined;
  };
  for (const el of document.body.querySelectorAll("td,th,h1,h2,h3,button,.button,nav a,.badge,dt,dd,li,strong")) {
    for (const group of groups(el)) {
      const chars = [];
      for (const node of group) for (let i = 0; i < node.textContent.length; i++) chars.push([node, i]);
      const text = group.map((node) => node.textContent).join("");
      for (const match of text.matchAll(/\\S+/g)) {
        const word = match[0];
        const tops = [];
        for (let i = match.index; i < match.index + word.length; i++) tops.push(top(chars[i][0], chars[i][1]));
        const lines = new Set(tops.filter((t) => t !== undefined)).size;
        if (lines <= 1) continue;
        if (word.length <= 24 && group.length === 1) {
          faults.push(describe(el) + ": " + JSON.stringify(word) + " is broken over " + lines + " lines");
          continue;
        }
        let before;
        for (let i = 0; i < word.length; i++) {
          if (tops[i] === undefined) continue;
          if (before !== undefined && tops[i] > before && !"@./-_".includes(word[i - 1])) {
            faults.push(describe(el) + ": " + JSON.stringify(word) + " breaks after " + JSON.stringify(word.slice(0, i)) + ", not after @ . / - _");
          }
          before = tops[i];
        }
      }
    }
  }
  return [...new Set(faults)].slice(0, 15);
})()`;

/** Screenshots at 360 px and 1280 px wide, each width free of layout faults. */
export async function shoot(t: ExecutionContext, page: Page, name: string): Promise<void> {
  await mkdir(DASHBOARD_SHOTS, { recursive: true });
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    const faults = await layoutFaults(page);
    t.deepEqual(faults, [], `${name} at ${width} px:\n${faults.join("\n")}`);
    await page.screenshot({ path: path.join(DASHBOARD_SHOTS, `${name}-${width}.png`), fullPage: true });
  }
}
