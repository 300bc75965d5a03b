// Walking the merchant dashboard in a real browser (CONTRACT §10): a signed-in member,
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

/** A desktop-sized context that fails fast, closed at the test's end. */
export async function newDashboardPage(t: ExecutionContext, browser: Browser): Promise<DashboardPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(10_000);
  t.teardown(() => context.close());
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(`${page.url()}: ${message.text()}`);
  });
  return { context, page, cspViolations };
}

/** Clicks something that loads a new document (a link, a form's button) and waits for it. */
export async function follow(page: Page, target: Locator): Promise<void> {
  await Promise.all([page.waitForEvent("load"), target.click()]);
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
  await follow(page, button(page, "Set password"));
  if (page.url() !== dashboardUrl(stack, storeId)) throw new Error(`accepting the invitation ended at ${page.url()}: ${await bodyText(page)}`);
}

/** Where the dashboard's screenshots go (CI lists them as artifacts). */
export const DASHBOARD_SHOTS = path.join(ARTIFACTS, "dashboard");

/** Screenshots at 360 px and 1280 px wide; at 360 px nothing may scroll sideways. */
export async function shoot(t: ExecutionContext, page: Page, name: string): Promise<void> {
  await mkdir(DASHBOARD_SHOTS, { recursive: true });
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    if (width === 360) {
      const overflow = await page.evaluate(() => {
        const g = globalThis as any;
        return g.document.documentElement.scrollWidth - g.innerWidth;
      });
      t.true(overflow <= 0, `${name}: at 360 px the page scrolls sideways by ${overflow}px`);
    }
    await page.screenshot({ path: path.join(DASHBOARD_SHOTS, `${name}-${width}.png`), fullPage: true });
  }
}
