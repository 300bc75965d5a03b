// The merchant dashboard (docs/dashboard.md) end to end: a real browser against the whole
// stack, walking what a merchant does — accept an invitation, manage API keys and
// webhook endpoints, mark orders paid or cancel them, change settings — and checking
// each change where it matters (the public API, a real webhook receiver, the audit
// log). Controls are addressed by the accessible names docs/dashboard.md fixes.
// Its tests run one at a time (test.serial): each drives browser pages of its own, and
// all of them at once beside another file's crowded two cores past the pages' waits.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import type { Role } from "../../common/roles.js";
import { SCOPES } from "../../common/scopes.js";
import { launchBrowser } from "../helpers/browser.js";
import { bodyText, button, DASHBOARD_PASSWORD, follow, link, shoot, tableRows } from "../helpers/dashboard-browser.js";
import { api, waitFor } from "../helpers/http.js";
import { startReceiver, type Received } from "../helpers/receiver.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";
import { settled, verify } from "../helpers/webhooks.js";

const PASSWORD = DASHBOARD_PASSWORD;
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

let stack: Stack;
let browser: Browser;
test.before(async () => {
  [stack, browser] = await Promise.all([startStack({ webhooks: { bus: "nats", disableSweepEveryMs: 500 } }), launchBrowser()]);
});
test.after.always(async () => {
  await browser?.close();
  await stack?.close();
});

// ---------------------------------------------------------------------------------
// Helpers

const uid = () => randomUUID().slice(0, 8);
const storeUrl = (storeId: string, rest = "overview") => `${stack.baseUrl}/dashboard/stores/${storeId}/${rest}`;

/** A desktop-sized browser context that fails fast and records CSP violations. */
async function newBrowserPage(t: ExecutionContext) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(30_000);
  t.teardown(() => context.close());
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(`${page.url()}: ${message.text()}`);
  });
  cspViolations.set(page, violations);
  return { context, page };
}

const cspViolations = new WeakMap<Page, string[]>();

/** No page visited broke its own Content-Security-Policy (what the browser reported). */
function assertNoCspViolations(t: ExecutionContext, page: Page): void {
  t.deepEqual(cspViolations.get(page), [], "no page breaks its own Content-Security-Policy");
}

/** Follows a link of the store's navigation. */
async function nav(page: Page, name: string): Promise<void> {
  await follow(page, page.getByRole("navigation").getByRole("link", { name, exact: true }).first());
}

/** Every time on the page reads "… HH:MM WIB" in Jakarta time, with the exact instant in `datetime`/`title`. */
async function assertWibTimes(t: ExecutionContext, page: Page, where: string, atLeast = 1): Promise<void> {
  const times = await page.locator("time").evaluateAll((elements: any[]) =>
    elements.map((el) => ({ text: el.textContent.replace(/\u00a0/g, " ").trim(), iso: el.getAttribute("datetime") || el.getAttribute("title") || "" })),
  );
  t.true(times.length >= atLeast, `${where}: at least ${atLeast} time(s) shown (found ${times.length})`);
  for (const time of times) {
    t.regex(time.text, /WIB$/, `${where}: "${time.text}" is in WIB`);
    t.regex(time.iso, /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/, `${where}: the exact ISO time is given`);
    const hhmm = new Date(time.iso).toLocaleTimeString("en-GB", { timeZone: "Asia/Jakarta", hour: "2-digit", minute: "2-digit", hour12: false });
    t.true(time.text.replace(/\./g, ":").includes(hhmm), `${where}: "${time.text}" is ${time.iso} in Jakarta (${hhmm})`);
  }
}

/**
 * Runs sign-ins one at a time across the file's concurrent tests: each costs a scrypt
 * in the catalog service, and several at once only make each other slow on two cores.
 */
let signInQueue: Promise<unknown> = Promise.resolve();
function oneSignInAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = signInQueue.then(work, work);
  signInQueue = run.catch(() => undefined);
  return run;
}

interface SignedIn {
  storeId: string;
  keyId: string;
  key: string;
  email: string;
  context: BrowserContext;
  page: Page;
}

/** A growth store with a member who has just accepted the invitation in a browser. */
async function signedInMember(t: ExecutionContext, storeName: string, role?: Role): Promise<SignedIn> {
  const store = await createStore(stack, Plan.GROWTH, storeName);
  const email = `member-${uid()}@merchant.example`;
  const { invitationToken } = await stack.accounts.inviteMember({ storeId: store.storeId, email, role });
  const { context, page } = await newBrowserPage(t);
  await page.goto(`${stack.baseUrl}/dashboard/invite/${invitationToken}`);
  await page.getByLabel("New password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Confirm password", { exact: true }).fill(PASSWORD);
  // Hashing the password is made slow on purpose; on a busy machine it takes seconds.
  await oneSignInAtATime(() => follow(page, button(page, "Set password"), 30_000));
  if (page.url() !== storeUrl(store.storeId)) throw new Error(`accepting the invitation ended at ${page.url()}: ${await bodyText(page)}`);
  return { ...store, email, context, page };
}

/** The audit log as the page shows it. */
async function auditLog(page: Page) {
  await nav(page, "Audit log");
  return tableRows(page);
}

/**
 * The audit log has a row by `who` (as shown: an email, "System") whose sentence
 * matches, and, when given, links to `href` (a target's page, ending with its id).
 */
function assertAudited(t: ExecutionContext, rows: (Record<string, string> & { links: string })[], who: string, sentence: RegExp, href?: string): void {
  const matches = (row: Record<string, string>) => row.who === who && sentence.test(row.what ?? "") && (!href || (row.links ?? "").split(" ").some((link) => link.endsWith(href)));
  t.true(rows.some(matches), `the audit log reads "${sentence.source}"${href ? ` linking …${href}` : ""} by ${who}`);
}

/** The one <option> whose value or text is `wanted` (case-insensitive), selected. */
async function choose(select: Locator, wanted: string): Promise<void> {
  const options: { value: string; text: string }[] = await select
    .locator("option")
    .evaluateAll((els: any[]) => els.map((el) => ({ value: el.value, text: el.textContent.trim() })));
  const option = options.find((o) => o.value.toLowerCase() === wanted || o.text.toLowerCase() === wanted) ??
    options.find((o) => o.value.toLowerCase().includes(wanted) || o.text.toLowerCase().includes(wanted));
  if (!option) throw new Error(`no option "${wanted}" in the select (has ${options.map((o) => `${o.value}/${o.text}`).join(", ")})`);
  await select.selectOption(option.value);
}

/** The ids of the orders linked from the page (`…/orders/{id}`). */
async function linkedOrderIds(page: Page): Promise<string[]> {
  const hrefs: string[] = await page.locator("main a[href]").evaluateAll((els: any[]) => els.map((a) => a.getAttribute("href")));
  const ids = hrefs.map((href) => new RegExp(`/orders/(${UUID})$`).exec(href)?.[1]).filter((id): id is string => !!id);
  return [...new Set(ids)].sort();
}

async function createApiOrder(key: string, json: Record<string, unknown>) {
  const response = await api(stack.baseUrl, "/v1/orders", { method: "POST", key, json: { buyer, ...json } });
  if (response.status !== 201) throw new Error(`POST /v1/orders: ${response.status} ${response.text}`);
  return response.body.data as { order: any; payment: any; redirect: any };
}

async function apiOrder(key: string, id: string) {
  return (await api(stack.baseUrl, `/v1/orders/${id}`, { key })).body.data.order;
}

/** Marks an order paid through the order page and its confirmation. */
async function markPaid(t: ExecutionContext, m: SignedIn, orderId: string, before = "pending"): Promise<void> {
  await m.page.goto(storeUrl(m.storeId, `orders/${orderId}`));
  await follow(m.page, link(m.page, "Mark as paid"));
  t.not(new URL(m.page.url()).pathname, `/dashboard/stores/${m.storeId}/orders/${orderId}`, "Mark as paid first asks to confirm");
  t.is((await apiOrder(m.key, orderId)).status, before, "nothing changes before the confirmation");
  await follow(m.page, button(m.page, "Mark as paid"));
}

// ---------------------------------------------------------------------------------

test.serial("an invited member sets a password, is signed in with safe cookies, signs out for real, and a wrong password says only that", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Toko Dashboard Akun");
  const email = `owner-${uid()}@merchant.example`;
  const { invitationToken } = await stack.accounts.inviteMember({ storeId: store.storeId, email });
  const { context, page } = await newBrowserPage(t);

  // Every cookie the dashboard sets: HttpOnly, SameSite=Lax, and not Secure over http.
  const setCookies: string[] = [];
  page.on("response", async (response) => {
    if (!response.url().startsWith(`${stack.baseUrl}/dashboard`)) return;
    setCookies.push(...(await response.headerValues("set-cookie").catch(() => [])));
  });

  await page.goto(`${stack.baseUrl}/dashboard/invite/${invitationToken}`);
  await shoot(t, page, "invitation");

  // The server holds the 12-character minimum even when the browser's check is bypassed.
  await page.locator("input").evaluateAll((inputs: any[]) => inputs.forEach((input) => input.removeAttribute("minlength")));
  await page.getByLabel("New password", { exact: true }).fill("short-11chr");
  await page.getByLabel("Confirm password", { exact: true }).fill("short-11chr");
  await follow(page, button(page, "Set password"), 30_000);
  t.regex(new URL(page.url()).pathname, /^\/dashboard\/invite\//, "an 11-character password is refused");
  t.false((await bodyText(page)).includes("Sign out"), "and nobody is signed in");

  await page.goto(`${stack.baseUrl}/dashboard/invite/${invitationToken}`);
  await page.getByLabel("New password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Confirm password", { exact: true }).fill(PASSWORD);
  await oneSignInAtATime(() => Promise.all([page.waitForURL(storeUrl(store.storeId), { timeout: 30_000 }), button(page, "Set password").click()]));
  t.true((await bodyText(page)).includes("Toko Dashboard Akun"), "the overview names the store");
  t.regex(await bodyText(page), /growth/i, "and its plan");
  t.true(await button(page, "Sign out").isVisible());

  // The navigation of every page.
  const sections: [string, string][] = [
    ["Overview", "overview"],
    ["Orders", "orders"],
    ["API keys", "api-keys"],
    ["Webhooks", "webhooks"],
    ["Events", "events"],
    ["Bank mutations", "bank-mutations"],
    ["Settings", "settings"],
    ["Audit log", "audit-log"],
  ];
  for (const [name, slug] of sections) {
    const href = await page.getByRole("navigation").getByRole("link", { name, exact: true }).first().getAttribute("href");
    t.is(href && new URL(href, stack.baseUrl).pathname, `/dashboard/stores/${store.storeId}/${slug}`, `navigation link "${name}"`);
  }
  await shoot(t, page, "overview");

  // Cookie flags, as sent and as the browser keeps them.
  t.true(setCookies.length > 0, "the dashboard set cookies");
  for (const line of setCookies) {
    const attributes = line.split(";").map((part) => part.trim().toLowerCase());
    t.true(attributes.includes("httponly"), `HttpOnly: ${line}`);
    t.true(attributes.includes("samesite=lax"), `SameSite=Lax: ${line}`);
    t.false(attributes.includes("secure"), `not Secure over http: ${line}`);
  }
  const cookies = await context.cookies(stack.baseUrl);
  t.true(cookies.length > 0);
  for (const cookie of cookies) {
    t.true(cookie.httpOnly, `${cookie.name} is HttpOnly`);
    t.is(cookie.sameSite, "Lax", `${cookie.name} is SameSite=Lax`);
    t.false(cookie.secure, `${cookie.name} is not Secure (the stack is http)`);
  }

  // "Sign out" ends the session on the server: the old cookie no longer signs anyone in.
  const cookieHeader = cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
  const replay = () => fetch(storeUrl(store.storeId), { headers: { cookie: cookieHeader }, redirect: "manual" });
  t.is((await replay()).status, 200, "the cookie works before signing out");
  await Promise.all([page.waitForURL(/\/dashboard\/login(\?|$)/), button(page, "Sign out").click()]);
  await page.waitForLoadState("load");
  t.is(await page.getByRole("status").innerText(), "You are signed out.");
  t.is(page.url(), `${stack.baseUrl}/dashboard/login`, "with nothing in the URL");
  await page.reload();
  t.is(await page.getByRole("status").count(), 0, "said once: a reload shows the sign-in page without it");
  const after = await replay();
  t.true(after.status >= 300 && after.status < 400, `the replayed old cookie is redirected (got ${after.status})`);
  t.is(new URL(after.headers.get("location") ?? "", stack.baseUrl).pathname, "/dashboard/login");
  await page.goto(storeUrl(store.storeId));
  t.is(new URL(page.url()).pathname, "/dashboard/login", "the browser is signed out too");
  await shoot(t, page, "login");

  // A wrong password, or an unknown email, says only "Invalid email or password".
  for (const [who, password] of [
    [email, "not-the-right-password"],
    [`nobody-${uid()}@merchant.example`, PASSWORD],
  ] as const) {
    await page.getByLabel("Email", { exact: true }).fill(who);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await oneSignInAtATime(() => follow(page, button(page, "Sign in"), 30_000));
    const text = await bodyText(page);
    t.true(text.includes("Invalid email or password"), `refused sign-in of ${who} says "Invalid email or password" (the page says: ${text})`);
    t.false(/locked|not found|unknown|no such/i.test(text), "and nothing more");
    t.false(await button(page, "Sign out").isVisible());
  }
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await oneSignInAtATime(() => Promise.all([page.waitForURL(storeUrl(store.storeId), { timeout: 30_000 }), button(page, "Sign in").click()]));

  const rows = await auditLog(page);
  t.true(rows.filter((row) => row.who === email && row.what === `Signed in as ${email}`).length >= 2, "both sign-ins are in the audit log");
  assertNoCspViolations(t, page);
});

test.serial("a viewer's dashboard: no API keys or Settings in the navigation, at 360 and 1280 px; API keys answers 403 saying what the role may not do", async (t) => {
  const m = await signedInMember(t, "Toko Dashboard Viewer", "viewer");
  const { page } = m;
  t.deepEqual(await page.locator("nav.main a").allTextContents(), ["Overview", "Orders", "Products", "Payment links", "Webhooks", "Events", "Bank mutations", "Audit log"]);
  await shoot(t, page, "overview-viewer");

  const refused = await page.goto(storeUrl(m.storeId, "api-keys"));
  t.is(refused?.status(), 403);
  const text = await bodyText(page);
  t.regex(text, /The viewer role may not manage API keys and webhook endpoints/);
  t.false(await button(page, "Create key").isVisible(), "no form of the page it may not use");
  await shoot(t, page, "forbidden-viewer");
  assertNoCspViolations(t, page);
});

test.serial("a viewer sees a tokenised endpoint URL as its origin only: on Webhooks, the endpoint, its delivery, an order's deliveries, Events and the audit log", async (t) => {
  const m = await signedInMember(t, "Toko Token Tersembunyi", "viewer");
  const { page } = m;
  const product = await createProduct(stack, m.storeId, "Kopi Gayo", 60_000);
  // Set up by the operator (a viewer may not manage endpoints): created, then moved to another tokenised URL.
  const { endpoint } = await stack.webhooks!.createEndpoint({ storeId: m.storeId, url: "https://hooks.example:8443/T0K3N-A/in?key=R4HASIA" });
  await stack.webhooks!.updateEndpoint({ storeId: m.storeId, endpointId: endpoint!.id, url: "https://hooks.example:8443/T0K3N-B/in?key=R4HASIA" });
  const { order } = await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 1 }], payment_method: "bank_transfer" });
  let deliveryId = "";
  await waitFor(async () => {
    deliveryId = (await stack.webhooks!.listDeliveries({ storeId: m.storeId, orderId: order.id })).deliveries[0]?.id ?? "";
    return deliveryId !== "";
  }, 15_000);

  const origin = "https://hooks.example:8443";
  const pages: [string, string][] = [
    ["Webhooks", "webhooks"],
    ["the endpoint page", `webhooks/${endpoint!.id}`],
    ["the delivery page", `webhooks/${endpoint!.id}/deliveries/${deliveryId}`],
    ["the order's deliveries", `orders/${order.id}`],
    ["Events", "events"],
    ["the audit log", "audit-log"],
  ];
  for (const [name, path] of pages) {
    const answer = await page.goto(storeUrl(m.storeId, path));
    t.is(answer?.status(), 200, name);
    const html = await page.content();
    t.false(/T0K3N|R4HASIA/.test(html), `${name}: no path or query of the URL, not even in an attribute`);
    if (name !== "the order's deliveries" && name !== "Events") t.true((await bodyText(page)).includes(origin), `${name} shows the origin`);
  }
  // The audit log names the endpoint by its origin, and its change of URL from origin to origin.
  const rows = await auditLog(page);
  assertAudited(t, rows, "Operator (store-admin)", new RegExp(`Added webhook endpoint ${origin.replace(/[.]/g, "\\.")}`));
  await shoot(t, page, "audit-log-viewer-origins");
  assertNoCspViolations(t, page);
});

test.serial("API keys: a new key is shown once, works, shows its last use, and once revoked is refused; forms without CSRF and other stores change nothing", async (t) => {
  const m = await signedInMember(t, "Toko Kunci API");
  const { page } = m;
  await nav(page, "API keys");
  await page.getByLabel("Key name", { exact: true }).fill("ERP production");
  await follow(page, button(page, "Create key"));

  const shown = page.getByLabel("New API key", { exact: true });
  const secret = (await shown.innerText()).trim();
  t.regex(secret, /^sk_live_[0-9A-Za-z]{32,}$/, "the full key is shown");
  t.regex(await bodyText(page), /not be shown again/i, "with a warning that it will not be shown again");
  const created = (await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys.find((key) => key.name === "ERP production");
  t.truthy(created, "the key exists");
  t.is((await api(stack.baseUrl, "/v1/products", { key: secret })).status, 200, "the new key works on the public API");

  // Shown once: a later visit shows its row, never the key.
  const rowOf = async () => (await tableRows(page)).find((row) => row.name === "ERP production");
  await waitFor(async () => {
    await page.goto(storeUrl(m.storeId, "api-keys"));
    return /WIB$/.test((await rowOf())?.["last used"] ?? "");
  }, 8_000, 300).catch(() => undefined);
  t.false((await page.content()).includes(secret), "the key is not shown again");
  const row = await rowOf();
  t.truthy(row, "the key is listed");
  const prefix = (row?.prefix ?? "").replace(/[…\s]|\.\.\./g, "");
  t.true(prefix.length >= 8 && secret.startsWith(prefix) && prefix.length < secret.length / 2, `its prefix "${prefix}" is a short start of the key`);
  t.regex(row?.created ?? "", /WIB$/, "created is shown in WIB");
  t.regex(row?.["last used"] ?? "", /WIB$/, "last used is shown (within a minute of the use)");
  t.regex(row?.status ?? "", /active/i);
  await assertWibTimes(t, page, "api-keys", 3);
  await shoot(t, page, "api-keys");

  // No CSRF token, or a wrong one: 403 and nothing changes.
  const keysBefore = (await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys.length;
  const noToken = await page.request.post(storeUrl(m.storeId, "api-keys"), { form: { name: "sneaky" }, maxRedirects: 0 });
  t.is(noToken.status(), 403, "creating a key without a CSRF token is refused");
  const wrongToken = await page.request.post(storeUrl(m.storeId, "api-keys"), { form: { csrf: "A".repeat(43), name: "sneaky" }, maxRedirects: 0 });
  t.is(wrongToken.status(), 403, "creating a key with a wrong CSRF token is refused");
  const revokeNoToken = await page.request.post(storeUrl(m.storeId, `api-keys/${m.keyId}/revoke`), { form: {}, maxRedirects: 0 });
  t.is(revokeNoToken.status(), 403, "revoking without a CSRF token is refused");
  const keysAfter = (await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys;
  t.is(keysAfter.length, keysBefore, "no key was created");
  t.false(keysAfter.some((key) => key.name === "sneaky"));
  t.falsy(keysAfter.find((key) => key.id === m.keyId)?.revokedAt, "the other key is not revoked");
  await page.reload();
  t.false((await bodyText(page)).includes("sneaky"), "the list shows no new key");

  // Another store's pages are 404 (not 403), as is its key under our store.
  const other = await createStore(stack, Plan.GROWTH, "Toko Orang Lain");
  for (const url of [storeUrl(other.storeId), storeUrl(other.storeId, "api-keys"), storeUrl(other.storeId, "settings"), storeUrl(m.storeId, `api-keys/${other.keyId}/revoke`), storeUrl(randomUUID())]) {
    const response = await page.request.get(url, { maxRedirects: 0 });
    t.is(response.status(), 404, `${url.replace(stack.baseUrl, "")} is 404`);
  }
  const csrf = await page.locator('form input[name="csrf"]').first().inputValue();
  const foreign = await page.request.post(storeUrl(other.storeId, "api-keys"), { form: { csrf, name: "intruder" }, maxRedirects: 0 });
  t.is(foreign.status(), 404, "posting to another store's page is 404");
  t.is((await stack.stores.listApiKeys({ storeId: other.storeId })).apiKeys.length, 1, "and creates nothing there");

  // Revoke, confirmed: the key is refused from then on.
  await follow(page, link(page, "Revoke ERP production"));
  t.is((await api(stack.baseUrl, "/v1/products", { key: secret })).status, 200, "the confirmation page changes nothing yet");
  await follow(page, button(page, "Revoke key"));
  t.regex((await rowOf())?.status ?? "", /revoked/i, "the list shows it revoked");
  t.is(await link(page, "Revoke ERP production").count(), 0, "a revoked key has no Revoke link");
  await waitFor(async () => (await api(stack.baseUrl, "/v1/products", { key: secret })).status === 401, 6_000, 200);
  t.pass("the revoked key gets 401");

  const rows = await auditLog(page);
  assertAudited(t, rows, m.email, new RegExp(`^Signed in as ${m.email}$`), "/team");
  assertAudited(t, rows, m.email, /^Created API key ERP production\s*mode: \(empty\) → Live$/, "/api-keys");
  assertAudited(t, rows, m.email, /^Revoked API key ERP production$/, "/api-keys");
  t.false(rows.some((row) => /sneaky|intruder/.test(JSON.stringify(row))), "the refused posts left no trace");
  t.false((await page.content()).includes(secret));
  assertNoCspViolations(t, page);
});

test.serial("a reload, or Back then Forward, after Create key, Save endpoint, Add test endpoint or Send test event posts nothing again and shows the key, secret or confirmation no more", async (t) => {
  const m = await signedInMember(t, "Toko Muat Ulang");
  const { page } = m;
  const receiver = await startReceiver(() => ({ status: 200, body: "ok" }));
  t.teardown(() => receiver.close());
  // What each form's POST answered: 303, so the browser's page is the GET after it.
  const posts: number[] = [];
  page.on("response", (response) => {
    if (response.request().method() === "POST") posts.push(response.status());
  });
  /** Reload, then Back and Forward: each a GET of the page, none a POST. */
  const revisit = async (check: (when: string) => Promise<void>) => {
    const before = posts.length;
    await page.reload();
    await check("after a reload");
    await page.goBack();
    await page.goForward();
    await check("after Back and Forward");
    t.is(posts.length, before, "nothing was posted again");
  };

  // Create key: the key once, then never; the list keeps one row for it.
  await nav(page, "API keys");
  const keyRows = async () => (await tableRows(page)).length;
  const keysBefore = await keyRows();
  await page.getByLabel("Key name", { exact: true }).fill("Reload proof");
  await follow(page, button(page, "Create key"));
  t.deepEqual(posts, [303], "Create key answers 303");
  const secret = (await page.getByLabel("New API key", { exact: true }).innerText()).trim();
  t.regex(secret, /^sk_live_/);
  t.false(page.url().includes(secret), "the key is not in the URL");
  t.is(await keyRows(), keysBefore + 1);
  await revisit(async (when) => {
    t.is(await page.getByLabel("New API key", { exact: true }).count(), 0, `no key shown ${when}`);
    t.false((await page.content()).includes(secret), `the key is gone ${when}`);
    t.is(await keyRows(), keysBefore + 1, `one key more ${when}`);
  });
  t.is((await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys.filter((key) => key.name === "Reload proof").length, 1, "one key was made");

  // Save endpoint, live then in test mode: the secret once; one endpoint each.
  for (const testMode of [false, true]) {
    const list = storeUrl(m.storeId, testMode ? "webhooks?mode=test" : "webhooks");
    await page.goto(list);
    t.regex(await page.locator("main").innerText(), testMode ? /Add test endpoint/ : /Add endpoint/);
    await page.getByLabel("Endpoint URL", { exact: true }).fill(`${receiver.url}/${testMode ? "test" : "live"}`);
    const before = posts.length;
    await follow(page, button(page, "Save endpoint"));
    t.deepEqual(posts.slice(before), [303], `Save endpoint answers 303 (test mode: ${testMode})`);
    t.is(page.url(), list, "back on the list it was added from");
    const whsec = /whsec_[A-Za-z0-9+/=]+/.exec(await bodyText(page))?.[0];
    t.truthy(whsec, "the new secret is shown");
    t.is((await tableRows(page)).length, 1);
    await revisit(async (when) => {
      t.false((await page.content()).includes(whsec!), `the secret is gone ${when}`);
      t.is((await tableRows(page)).length, 1, `one endpoint listed ${when}`);
    });
    t.is((await stack.webhooks!.listEndpoints({ storeId: m.storeId, testMode })).endpoints.length, 1, `one endpoint was made (test mode: ${testMode})`);
  }

  // Send test event: the confirmation once; one test delivery.
  const [endpoint] = (await stack.webhooks!.listEndpoints({ storeId: m.storeId })).endpoints;
  await page.goto(storeUrl(m.storeId, `webhooks/${endpoint!.id}`));
  const before = posts.length;
  await follow(page, button(page, "Send test event"));
  t.deepEqual(posts.slice(before), [303], "Send test event answers 303");
  t.false(page.url().includes("?"), "no confirmation in the URL");
  t.regex(await bodyText(page), /The test event is (sent|queued)/);
  await page.getByText("200", { exact: true }).first().waitFor({ timeout: 15_000 });
  await revisit(async (when) => {
    t.notRegex(await bodyText(page), /The test event is/, `the confirmation is gone ${when}`);
  });
  const tests = (await stack.webhooks!.listDeliveries({ storeId: m.storeId, endpointId: endpoint!.id })).deliveries.filter((d) => d.eventType === "webhook.test");
  t.is(tests.length, 1, "one test event was sent");
  assertNoCspViolations(t, page);
});

/** The "Scopes" checkboxes of the Create key form: each one's name and whether it is ticked. */
async function scopeChoices(page: Page): Promise<[string, boolean][]> {
  const boxes = page.getByRole("group", { name: "Scopes", exact: true }).getByRole("checkbox");
  const out: [string, boolean][] = [];
  for (const box of await boxes.all()) {
    const label = (await box.evaluate((el: any) => el.labels[0].textContent)).trim();
    out.push([label, await box.isChecked()]);
  }
  return out;
}

test.serial("API keys: Create key offers every scope the role may grant, ticked; a key made with orders:read alone is listed with that scope, mode Live and its maker", async (t) => {
  const m = await signedInMember(t, "Toko Cakupan");
  const { page } = m;
  await nav(page, "API keys");
  t.deepEqual(await scopeChoices(page), SCOPES.map((scope) => [scope, true]), "an owner is offered all five, ticked");
  t.true(await page.getByRole("checkbox", { name: "payments:write", exact: true }).isVisible());

  // None ticked: the form says so, and nothing is made.
  const keysBefore = (await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys.length;
  for (const scope of SCOPES) await page.getByRole("checkbox", { name: scope, exact: true }).uncheck();
  await page.getByLabel("Key name", { exact: true }).fill("Nothing at all");
  const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), follow(page, button(page, "Create key"))]);
  t.is(refused.status(), 400);
  t.regex(await page.getByRole("alert").first().innerText(), /Scopes: tick at least one scope/);
  t.is((await stack.stores.listApiKeys({ storeId: m.storeId })).apiKeys.length, keysBefore, "no key was made");
  t.is(await page.getByLabel("Key name", { exact: true }).inputValue(), "Nothing at all", "the form keeps what was typed");

  await page.getByLabel("Key name", { exact: true }).fill("Shop sync");
  await page.getByRole("checkbox", { name: "orders:read", exact: true }).check();
  await follow(page, button(page, "Create key"));
  const secret = (await page.getByLabel("New API key", { exact: true }).innerText()).trim();
  t.deepEqual((await stack.stores.authenticateApiKey({ secret })).scopes, ["orders:read"], "the key may read orders, nothing else");

  await page.goto(storeUrl(m.storeId, "api-keys"));
  const rows = await tableRows(page);
  t.like(rows.find((row) => row.name === "Shop sync"), { scopes: "orders:read", mode: "Live", "created by": m.email });
  // The store's first key, made by the operator: every scope, each one whole.
  t.like(rows.find((row) => row.name !== "Shop sync"), { scopes: SCOPES.join(" "), mode: "Live", "created by": "Operator (store-admin)" });
  await shoot(t, page, "api-keys-scopes");
  assertNoCspViolations(t, page);
});

test.serial("API keys: a developer is offered the four scopes their role may grant, never payments:write", async (t) => {
  const m = await signedInMember(t, "Toko Cakupan Developer", "developer");
  const { page } = m;
  await nav(page, "API keys");
  t.deepEqual(await scopeChoices(page), SCOPES.filter((scope) => scope !== "payments:write").map((scope) => [scope, true]));
  t.is(await page.getByRole("checkbox", { name: "payments:write", exact: true }).count(), 0, "no way to grant payments:write");
  t.regex(await page.getByRole("group", { name: "Scopes", exact: true }).innerText(), /Your role \(Developer\) cannot grant payments:write/);

  await page.getByLabel("Key name", { exact: true }).fill("Developer default");
  await follow(page, button(page, "Create key"));
  const secret = (await page.getByLabel("New API key", { exact: true }).innerText()).trim();
  t.deepEqual((await stack.stores.authenticateApiKey({ secret })).scopes, ["catalog:read", "catalog:write", "orders:read", "orders:write"]);
  assertNoCspViolations(t, page);
});

test.serial("settings: a new bank account and redirect URLs are used by orders created afterwards, buyer mail is switched off and set to English; without CSRF nothing changes", async (t) => {
  const m = await signedInMember(t, "Toko Pengaturan");
  const { page } = m;
  const product = await createProduct(stack, m.storeId, "Tas Anyaman", 150_000);
  const values: Record<string, string> = {
    "Bank name": "Bank Negara Indonesia",
    "Bank code": "BNI",
    "Account number": "9876543210",
    "Account holder": "CV Anyaman Jaya",
    "Success URL": "https://anyaman.example/terima-kasih",
    "Return URL": "https://anyaman.example/keranjang",
    "Error URL": "https://anyaman.example/gagal",
  };

  // A post without a CSRF token changes nothing.
  const refused = await page.request.post(storeUrl(m.storeId, "settings"), {
    form: { bank_name: "Bank Jahat", bank_code: "JHT", account_number: "6666666666", account_holder: "Penipu" },
    maxRedirects: 0,
  });
  t.is(refused.status(), 403);
  t.is((await stack.stores.getStore({ id: m.storeId })).store?.bankAccount?.accountNumber, "0001112223", "the bank account is unchanged");

  await nav(page, "Settings");
  for (const [label, value] of Object.entries(values)) await page.getByLabel(label, { exact: true }).fill(value);
  // Buyers are mailed in Indonesian until the owner says otherwise.
  t.true(await page.getByLabel("Email buyers", { exact: true }).isChecked());
  t.is(await page.getByLabel("Buyer language", { exact: true }).inputValue(), "id");
  await page.getByLabel("Email buyers", { exact: true }).uncheck();
  await page.getByLabel("Buyer language", { exact: true }).selectOption({ label: "English" });
  await follow(page, button(page, "Save settings"));
  t.regex(new URL(page.url()).pathname, new RegExp(`/dashboard/stores/${m.storeId}/settings$`));
  for (const [label, value] of Object.entries(values)) t.is(await page.getByLabel(label, { exact: true }).inputValue(), value, `${label} is saved`);
  t.false(await page.getByLabel("Email buyers", { exact: true }).isChecked(), "Email buyers is saved");
  t.is(await page.getByLabel("Buyer language", { exact: true }).inputValue(), "en", "Buyer language is saved");
  t.like((await stack.stores.getStore({ id: m.storeId })).store, { emailBuyers: false, buyerLanguage: "en" });
  await shoot(t, page, "settings");

  // An order created afterwards uses them.
  const { payment, redirect } = await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 1 }], payment_method: "bank_transfer" });
  t.like(payment.seller_bank, { bank_name: "Bank Negara Indonesia", bank_code: "BNI", account_number: "9876543210", account_holder: "CV Anyaman Jaya" });
  t.deepEqual(redirect, { success_url: values["Success URL"], return_url: values["Return URL"], error_url: values["Error URL"] });

  await nav(page, "Bank mutations");
  t.regex(new URL(page.url()).pathname, new RegExp(`/dashboard/stores/${m.storeId}/bank-mutations$`));
  await shoot(t, page, "bank-mutations");

  const rows = await auditLog(page);
  // The bank account buyers pay into, before → after.
  assertAudited(t, rows, m.email, /^Changed the settings of the store.*account number: 0001112223 → 9876543210/);
  assertAudited(t, rows, m.email, /^Changed the settings of the store.*email buyers: on → off.*buyer language: id → en/);
  t.is(rows.filter((row) => /^Changed the settings/.test(row.what ?? "")).length, 1, "only the real change is logged");
  await assertWibTimes(t, page, "audit-log", 2);
  await shoot(t, page, "audit-log");
  assertNoCspViolations(t, page);
});

test.serial("orders: search and filter, an order's page, mark a bank transfer paid and cancel another — the API and webhooks see it", async (t) => {
  const m = await signedInMember(t, "Toko Kemeja");
  const { page } = m;
  const product = await createProduct(stack, m.storeId, "Kemeja Batik Cap", 85_000);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { secret } = await stack.webhooks!.setEndpoint({ storeId: m.storeId, url: receiver.url });

  const id = uid();
  const emails = { a: `ani-${id}@example.co.id`, b: `bayu-${id}@example.co.id`, c: `citra-${id}@example.co.id`, d: `dewi-${id}@example.co.id` };
  const items = [{ product_id: product.id, quantity: 2 }];
  const a = await createApiOrder(m.key, { items, payment_method: "bank_transfer", buyer: { ...buyer, email: emails.a } });
  const b = await createApiOrder(m.key, { items, payment_method: "bank_transfer", buyer: { ...buyer, email: emails.b } });
  const c = await createApiOrder(m.key, { items, payment_method: "qris", buyer: { ...buyer, email: emails.c }, external_id: `INV-${id}` });
  // A bank-transfer order whose payment window has passed: expired, and still markable as paid.
  const d = await createApiOrder(m.key, { items, payment_method: "bank_transfer", buyer: { ...buyer, email: emails.d } });
  await stack.orderSql`update orders set expires_at = now() - interval '1 minute' where id = ${d.order.id}`;
  const all = [a.order.id, b.order.id, c.order.id, d.order.id].sort();

  await page.reload();
  t.regex(await bodyText(page), /Pending orders\s*3\b/, "the overview counts three pending orders (not the overdue one)");

  await nav(page, "Orders");
  t.deepEqual(await linkedOrderIds(page), all, "every order is listed and linked");
  await assertWibTimes(t, page, "orders");
  await shoot(t, page, "orders");

  const search = async (text: string, status = "") => {
    await page.goto(storeUrl(m.storeId, "orders"));
    if (status) await choose(page.getByRole("combobox", { name: "Status", exact: true }), status);
    await page.getByLabel("Search", { exact: true }).fill(text);
    await follow(page, button(page, "Search"));
    return linkedOrderIds(page);
  };
  t.deepEqual(await search(a.order.payment_reference), [a.order.id], "search by payment reference");
  t.deepEqual(await search(`INV-${id}`), [c.order.id], "search by external id");
  t.deepEqual(await search(emails.b), [b.order.id], "search by buyer email");

  // The order's page: items, amounts, payment, history and deliveries.
  await settled(stack, [m.storeId]);
  await page.goto(storeUrl(m.storeId, "orders"));
  await follow(page, page.locator(`main a[href$="/orders/${a.order.id}"]`).first());
  let text = await bodyText(page);
  const rp = (amount: number) => new RegExp(`Rp ${amount.toLocaleString("id-ID").replace(/\./g, "\\.")}(?!\\d)`);
  t.true(text.includes("Kemeja Batik Cap"), "items");
  t.regex(text, rp(85_000), "unit price as Rp 85.000");
  t.regex(text, rp(170_000), "line total / subtotal");
  t.regex(text, rp(a.order.amount), `the amount to pay as Rp ${a.order.amount.toLocaleString("id-ID")}`);
  t.true(text.includes(a.order.payment_reference), "the payment reference");
  t.true(text.includes("Bank Central Asia") && text.includes("0001112223"), "the seller's bank account");
  t.true(text.includes("order.created"), "its event deliveries");
  await assertWibTimes(t, page, "order");
  await shoot(t, page, "order");

  // A gateway order can be cancelled, not marked paid.
  await page.goto(storeUrl(m.storeId, `orders/${c.order.id}`));
  t.is(await link(page, "Mark as paid").count(), 0, "a QRIS order has no Mark as paid");
  t.is(await link(page, "Cancel order").count(), 1, "a pending order can be cancelled");

  // Mark as paid, confirmed.
  await markPaid(t, m, a.order.id);
  t.is((await apiOrder(m.key, a.order.id)).status, "paid", "the API sees the order paid");
  text = await bodyText(page);
  t.regex(text, /marked paid/i, "the history gives the cause");
  t.is(await link(page, "Mark as paid").count(), 0, "a paid order cannot be marked paid again");
  t.is(await link(page, "Cancel order").count(), 0, "nor cancelled");

  // Cancel, confirmed.
  await page.goto(storeUrl(m.storeId, `orders/${b.order.id}`));
  await follow(page, link(page, "Cancel order"));
  t.is((await apiOrder(m.key, b.order.id)).status, "pending", "nothing changes before the confirmation");
  await follow(page, button(page, "Cancel order"));
  t.is((await apiOrder(m.key, b.order.id)).status, "cancelled", "the API sees the order cancelled");
  t.regex(await bodyText(page), /cancelled by/i, "the history gives the cause");

  // The expired bank-transfer order: it can be marked paid, not cancelled.
  await page.goto(storeUrl(m.storeId, `orders/${d.order.id}`));
  t.regex(await bodyText(page), /expired/i, "an overdue order reads as expired");
  t.is(await link(page, "Cancel order").count(), 0, "an expired order cannot be cancelled");
  await markPaid(t, m, d.order.id, "expired");
  t.is((await apiOrder(m.key, d.order.id)).status, "paid", "a late transfer marked paid turns the expired order paid");

  // The webhooks arrive as from the CLI, signed.
  const arrived = (type: string, orderId: string) => receiver.received.find((r: Received) => {
    const body = JSON.parse(r.body);
    return body.type === type && body.data?.order?.id === orderId;
  });
  await waitFor(() => !!arrived("order.paid", a.order.id) && !!arrived("order.cancelled", b.order.id), 15_000);
  const paid = verify(secret, arrived("order.paid", a.order.id)!);
  t.like(paid.data, { store_id: m.storeId, previous_status: "pending", order: { id: a.order.id, status: "paid" } });
  const cancelled = verify(secret, arrived("order.cancelled", b.order.id)!);
  t.like(cancelled.data, { previous_status: "pending", order: { id: b.order.id, status: "cancelled" } });

  await settled(stack, [m.storeId]);
  await page.goto(storeUrl(m.storeId, `orders/${a.order.id}`));
  t.true((await bodyText(page)).includes("order.paid"), "the order page lists the order.paid delivery");

  t.deepEqual(await search("", "paid"), [a.order.id, d.order.id].sort(), "filter by status paid");
  t.deepEqual(await search("", "cancelled"), [b.order.id], "filter by status cancelled");
  t.deepEqual(await search("", "pending"), [c.order.id], "filter by status pending");

  // Another store's order is not found under ours.
  const other = await createStore(stack, Plan.GROWTH, "Toko Sebelah");
  const otherProduct = await createProduct(stack, other.storeId, "Barang Sebelah", 10_000);
  const foreign = await createApiOrder(other.key, { items: [{ product_id: otherProduct.id, quantity: 1 }], payment_method: "bank_transfer" });
  for (const url of [storeUrl(m.storeId, `orders/${foreign.order.id}`), storeUrl(other.storeId, "orders"), storeUrl(other.storeId, `orders/${foreign.order.id}`)]) {
    t.is((await page.request.get(url, { maxRedirects: 0 })).status(), 404, `${url.replace(stack.baseUrl, "")} is 404`);
  }
  const csrf = await page.locator('form input[name="csrf"]').first().inputValue();
  const post = await page.request.post(storeUrl(m.storeId, `orders/${foreign.order.id}/mark-paid`), { form: { csrf }, maxRedirects: 0 });
  t.true(post.status() === 404 || post.status() === 405, `marking another store's order paid is refused (${post.status()})`);
  t.is((await apiOrder(other.key, foreign.order.id)).status, "pending", "and it stays pending");

  const rows = await auditLog(page);
  assertAudited(t, rows, m.email, new RegExp(`^Marked ${a.order.payment_reference} as paid$`), `/orders/${a.order.id}`);
  assertAudited(t, rows, m.email, new RegExp(`^Marked ${d.order.payment_reference} as paid$`), `/orders/${d.order.id}`);
  assertAudited(t, rows, m.email, new RegExp(`^Cancelled ${b.order.payment_reference}$`), `/orders/${b.order.id}`);
  // The link goes to the order's page.
  await follow(page, page.locator("main").getByRole("link", { name: a.order.payment_reference, exact: true }).first());
  t.is(new URL(page.url()).pathname, `/dashboard/stores/${m.storeId}/orders/${a.order.id}`);
  assertNoCspViolations(t, page);
});

test.serial("webhooks: an order.paid-only endpoint, its secret revealed and rotated, a verified delivery, a test event, a resend, events, disable and delete", async (t) => {
  const m = await signedInMember(t, "Toko Kabar Kilat");
  const { page } = m;
  const product = await createProduct(stack, m.storeId, "Sambal Bawang", 35_000);
  const receiver = await startReceiver(() => ({ status: 200, body: "thanks from the test receiver" }));
  t.teardown(() => receiver.close());

  await nav(page, "Webhooks");
  if (!(await page.getByLabel("Endpoint URL", { exact: true }).isVisible())) {
    await follow(page, page.getByRole("link", { name: "Add endpoint", exact: true }).or(page.getByRole("button", { name: "Add endpoint", exact: true })).first());
  }
  await page.getByLabel("Endpoint URL", { exact: true }).fill(receiver.url);
  await page.getByLabel("Description", { exact: true }).fill("ERP paid orders");
  const allEvents = page.getByRole("checkbox", { name: "All events", exact: true });
  if (await allEvents.isChecked()) await allEvents.uncheck();
  await page.getByRole("checkbox", { name: "order.paid", exact: true }).check();
  for (const type of ["order.created", "order.cancelled", "order.expired"]) t.true(await page.getByRole("checkbox", { name: type, exact: true }).isVisible(), `a checkbox for ${type}`);
  await follow(page, button(page, "Save endpoint"));

  const secret = /whsec_[A-Za-z0-9+/=]+/.exec(await bodyText(page))?.[0];
  t.truthy(secret, "the new secret is shown");
  const { endpoints } = await stack.webhooks!.listEndpoints({ storeId: m.storeId });
  t.is(endpoints.length, 1);
  const endpoint = endpoints[0]!;
  t.like(endpoint, { url: receiver.url, description: "ERP paid orders", enabled: true });
  t.deepEqual(endpoint.eventTypes, ["order.paid"], "it subscribes to order.paid only");

  await nav(page, "Webhooks");
  t.false((await page.content()).includes(secret!), "the list does not show the secret again");
  t.true((await bodyText(page)).includes(receiver.url), "the list shows the endpoint");
  await shoot(t, page, "webhooks");
  await follow(page, page.locator(`main a[href$="/webhooks/${endpoint.id}"]`).first());
  t.is(new URL(page.url()).pathname, `/dashboard/stores/${m.storeId}/webhooks/${endpoint.id}`);
  t.false((await page.content()).includes(secret!), "the endpoint page hides the secret until revealed");
  await follow(page, button(page, "Reveal secret"));
  t.true((await bodyText(page)).includes(secret!), "Reveal secret shows it");

  // A bank-transfer order made through the API, marked paid in the dashboard: only order.paid arrives.
  const { order } = await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 3 }], payment_method: "bank_transfer" });
  await markPaid(t, m, order.id);
  await waitFor(() => receiver.events().some((event) => event.type === "order.paid"), 15_000);
  await settled(stack, [m.storeId]);
  t.deepEqual(receiver.events().map((event) => event.type), ["order.paid"], "only order.paid arrived, once");
  const paidRequest = receiver.received[0]!;
  const paid = verify(secret!, paidRequest);
  t.like(paid, { type: "order.paid", data: { store_id: m.storeId, previous_status: "pending", order: { id: order.id, status: "paid" } } });

  // Send test event.
  const endpointUrl = storeUrl(m.storeId, `webhooks/${endpoint.id}`);
  await page.goto(endpointUrl);
  await follow(page, button(page, "Send test event"));
  // The page answers once the first attempt is made (or refreshes itself until it is):
  // the receiver's answer shows beside the request without a reload by hand.
  await page.getByText("200", { exact: true }).first().waitFor({ timeout: 15_000 });
  t.regex(await bodyText(page), /The test event is (sent|queued)/);
  t.true(receiver.events().some((event) => event.type === "webhook.test"));
  const testRequest = receiver.received.find((r) => JSON.parse(r.body).type === "webhook.test")!;
  t.like(verify(secret!, testRequest), { type: "webhook.test", data: { store_id: m.storeId, endpoint_id: endpoint.id } });

  // The deliveries list, its status filter, and a delivery's page.
  await settled(stack, [m.storeId]);
  const { deliveries } = await stack.webhooks!.listDeliveries({ storeId: m.storeId, limit: 50 });
  const delivery = deliveries.find((d) => d.eventType === "order.paid")!;
  t.truthy(delivery);
  await page.goto(endpointUrl);
  const deliveryLink = () => page.locator(`main a[href*="${delivery.id}"]`);
  t.true((await deliveryLink().count()) > 0, "the endpoint page lists the delivery");
  const filter = async (status: string) => {
    const select = page.getByRole("combobox", { name: "Status", exact: true });
    await choose(select, status);
    await Promise.all([page.waitForEvent("load"), select.evaluate((el: any) => el.form.requestSubmit())]);
  };
  await filter("failed");
  t.is(await deliveryLink().count(), 0, "filtered to failed deliveries, the succeeded one is not listed");
  await filter("succeeded");
  t.true((await deliveryLink().count()) > 0, "filtered to succeeded deliveries, it is listed");
  await follow(page, deliveryLink().first());
  let text = await bodyText(page);
  t.true(text.includes(String(paidRequest.headers["webhook-id"])), "the delivery shows its webhook-id header");
  t.regex(text, /webhook-signature/i, "and the other request headers");
  t.true(text.includes(order.id) && text.includes("order.paid"), "the request body");
  t.regex(text, /\b200\b/, "the attempt's status code");
  t.true(text.includes("thanks from the test receiver"), "the response excerpt");
  await assertWibTimes(t, page, "delivery");
  await shoot(t, page, "delivery");

  // Resend: the same event again, same webhook-id, still signed.
  const before = receiver.received.length;
  await follow(page, button(page, "Resend"));
  await waitFor(() => receiver.received.length > before, 15_000);
  const resent = receiver.received[before]!;
  t.is(resent.headers["webhook-id"], paidRequest.headers["webhook-id"], "a resend carries the same webhook-id");
  t.like(verify(secret!, resent), { type: "order.paid", data: { order: { id: order.id } } });

  // Rotate: a new secret; both old and new sign for a while.
  await page.goto(endpointUrl);
  await follow(page, button(page, "Rotate secret"));
  if (!/whsec_/.test(await bodyText(page)) && (await button(page, "Rotate secret").count()) > 0) await follow(page, button(page, "Rotate secret"));
  const rotated = /whsec_[A-Za-z0-9+/=]+/.exec(await bodyText(page))?.[0];
  t.truthy(rotated, "the new secret is shown");
  t.not(rotated, secret, "and it is a new one");
  await page.goto(endpointUrl);
  const sent = receiver.received.length;
  await follow(page, button(page, "Send test event"));
  await waitFor(() => receiver.received.length > sent, 15_000);
  t.like(verify(rotated!, receiver.received[sent]!), { type: "webhook.test" }, "the new secret verifies");
  t.like(verify(secret!, receiver.received[sent]!), { type: "webhook.test" }, "the old one still does");
  await settled(stack, [m.storeId]);
  await page.goto(endpointUrl);
  await assertWibTimes(t, page, "endpoint");
  await shoot(t, page, "endpoint");

  // Events: the log with type, order, time and deliveries, whether or not delivered to an endpoint.
  await nav(page, "Events");
  text = await bodyText(page);
  const html = await page.content();
  for (const type of ["order.created", "order.paid"]) t.true(text.includes(type), `the events page lists ${type}`);
  t.true(html.includes(order.id) || text.includes(order.payment_reference), "with its order");
  await assertWibTimes(t, page, "events", 2);
  await shoot(t, page, "events");

  // Disable, enable, delete (confirmed).
  await page.goto(endpointUrl);
  await follow(page, button(page, "Disable endpoint"));
  t.is(await button(page, "Enable endpoint").count(), 1, "a disabled endpoint offers Enable endpoint");
  t.false((await stack.webhooks!.getEndpoint({ storeId: m.storeId, endpointId: endpoint.id })).endpoint?.enabled);
  await follow(page, button(page, "Enable endpoint"));
  t.true((await stack.webhooks!.getEndpoint({ storeId: m.storeId, endpointId: endpoint.id })).endpoint?.enabled);

  // Another store's endpoint is not found under ours; its page without CSRF changes nothing.
  const other = await createStore(stack, Plan.GROWTH, "Toko Lain Lagi");
  const otherEndpoint = await stack.webhooks!.setEndpoint({ storeId: other.storeId, url: receiver.url });
  for (const url of [storeUrl(m.storeId, `webhooks/${otherEndpoint.endpoint!.id}`), storeUrl(other.storeId, "webhooks"), storeUrl(other.storeId, "events")]) {
    t.is((await page.request.get(url, { maxRedirects: 0 })).status(), 404, `${url.replace(stack.baseUrl, "")} is 404`);
  }

  await page.goto(endpointUrl);
  await follow(page, button(page, "Delete endpoint"));
  t.is((await stack.webhooks!.listEndpoints({ storeId: m.storeId })).endpoints.length, 1, "nothing is deleted before the confirmation");
  await follow(page, button(page, "Delete endpoint"));
  t.is((await stack.webhooks!.listEndpoints({ storeId: m.storeId })).endpoints.length, 0, "the endpoint is deleted");

  const rows = await auditLog(page);
  const hook = `/webhooks/${endpoint.id}`;
  assertAudited(t, rows, m.email, /^Added webhook endpoint http/, hook);
  assertAudited(t, rows, m.email, /^Revealed the signing secret of http/, hook);
  assertAudited(t, rows, m.email, /^Rotated the signing secret of http/, hook);
  assertAudited(t, rows, m.email, /^Sent a test event to http/, hook);
  const resentIds = (await stack.webhooks!.listDeliveries({ storeId: m.storeId, limit: 50 })).deliveries.filter((d) => d.eventType === "order.paid").map((d) => d.id);
  t.true(
    rows.some((row) => row.who === m.email && /^Resent delivery/.test(row.what ?? "") && resentIds.some((id) => row.links.includes(id))),
    "the audit log lists delivery.resent of the order.paid delivery by the member",
  );
  assertAudited(t, rows, m.email, /^Marked SO-\w+ as paid$/, `/orders/${order.id}`);
  assertAudited(t, rows, m.email, /^(Disabled|Changed) webhook endpoint http.*enabled: true → false/, hook);
  assertAudited(t, rows, m.email, /^(Enabled|Changed) webhook endpoint http.*enabled: false → true/, hook);
  assertAudited(t, rows, m.email, /^Deleted webhook endpoint http/, hook);
  t.false((await page.content()).includes(secret!) || (await page.content()).includes(rotated!), "the audit log never shows a secret");
  assertNoCspViolations(t, page);
});

test.serial("bank mutations: a statement imported on the page pays its order; unmatched credits wait for review, a short one assigned by payment reference after Assign anyway, one dismissed", async (t) => {
  const m = await signedInMember(t, `Toko Transfer ${uid()}`);
  const product = await createProduct(stack, m.storeId, "Kopi Gayo", 120_000);
  const a = await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 1 }], payment_method: "bank_transfer" });
  const b = await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 2 }], payment_method: "bank_transfer" });
  const soon = new Date(Date.now() + 60_000).toISOString();
  const [m1, m2, m3] = [1, 2, 3].map((n) => `BCA-${uid()}-${n}`);
  const csv = (lines: string[]) => ({
    name: "statement.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(["id,occurred_at,amount,type,description", ...lines].join("\n")),
  });
  const statementInput = () => m.page.getByLabel("Statement file (CSV)", { exact: true });

  // A statement with a wrong amount on line 3 is refused whole.
  await nav(m.page, "Bank mutations");
  await statementInput().setInputFiles(csv([`${m1},${soon},${a.payment.seller_bank.transfer_amount},credit,TRSF CR`, `${m2},${soon},12.5,credit,half`]));
  await follow(m.page, button(m.page, "Import"));
  t.true((await bodyText(m.page)).includes("line 3: amount"), "the error names the line and the column");
  t.is((await apiOrder(m.key, a.order.id)).status, "pending", "nothing of the bad statement was applied");

  await statementInput().setInputFiles(
    csv([
      `${m1},${soon},${a.payment.seller_bank.transfer_amount},credit,"TRSF CR BUDI, INV 1"`,
      `${m2},${soon},${b.payment.seller_bank.transfer_amount - 152},credit,TRSF CR SITI`,
      `${m3},${soon},777777,credit,TRSF CR ANDI`,
    ]),
  );
  const imported = m.page.waitForResponse((r) => r.request().method() === "POST");
  await follow(m.page, button(m.page, "Import"));
  t.is((await imported).status(), 303, "the import answers 303: a reload does not import again");
  const results = await tableRows(m.page, m.page.locator("section", { has: m.page.getByRole("heading", { name: /^Imported 3 mutations/ }) }));
  t.deepEqual(
    results.map((row) => [row.mutation, row.result]),
    [
      [m1, "Matched"],
      [m2, "Unmatched"],
      [m3, "Unmatched"],
    ],
  );
  t.is((await apiOrder(m.key, a.order.id)).status, "paid", "the matching credit paid its order");
  await m.page.reload();
  t.is(await m.page.getByRole("heading", { name: /^Imported / }).count(), 0, "the results are shown once");
  await shoot(t, m.page, "bank-mutations-review");

  await nav(m.page, "Overview");
  t.regex(await bodyText(m.page), /Transfers to review\s+2/);

  // Siti sent Rp 152 too little: the page shows the difference, and only "Assign anyway" pays her order.
  await nav(m.page, "Bank mutations");
  const row = (id: string) => m.page.getByRole("row").filter({ hasText: id });
  await row(m2!).getByLabel("Payment reference", { exact: true }).fill(b.order.payment_reference.toLowerCase());
  await follow(m.page, row(m2!).getByRole("button", { name: "Assign to order", exact: true }));
  const rupiahText = (amount: number) => `Rp ${amount.toLocaleString("id-ID")}`;
  const received = rupiahText(b.payment.seller_bank.transfer_amount - 152);
  let text = await bodyText(m.page);
  t.true(text.includes("Rp 152 short"), text);
  t.true(text.includes(received) && text.includes(rupiahText(b.payment.seller_bank.transfer_amount)), "both amounts");
  t.is((await apiOrder(m.key, b.order.id)).status, "pending", "nothing is paid before Assign anyway");
  await shoot(t, m.page, "bank-mutations-assign-anyway");
  await follow(m.page, link(m.page, "Back to bank mutations"));
  t.is((await apiOrder(m.key, b.order.id)).status, "pending", "going back pays nothing");
  t.is(await row(m2!).getByLabel("Payment reference", { exact: true }).count(), 1, "the transfer still waits for review");
  await row(m2!).getByLabel("Payment reference", { exact: true }).fill(b.order.payment_reference);
  await follow(m.page, row(m2!).getByRole("button", { name: "Assign to order", exact: true }));
  await follow(m.page, button(m.page, "Assign anyway"));
  t.true((await bodyText(m.page)).includes("The transfer is assigned"));
  t.is((await apiOrder(m.key, b.order.id)).status, "paid");
  // The order's page says what arrived.
  await follow(m.page, m.page.locator(`main a[href$="/orders/${b.order.id}"]`).first());
  text = await bodyText(m.page);
  t.true(text.includes(`${received} received, Rp 152 short`), text);
  t.true(text.includes(m2!), "the history names the transfer");
  await shoot(t, m.page, "order-amount-received");

  await nav(m.page, "Bank mutations");
  await follow(m.page, row(m3!).getByRole("button", { name: "Dismiss", exact: true }));
  t.true((await bodyText(m.page)).includes("Nothing waits for review"));

  const rows = await auditLog(m.page);
  assertAudited(t, rows, m.email, /^Imported a bank statement$/);
  assertAudited(t, rows, m.email, new RegExp(`^Assigned bank transfer ${m2} to its order\\s*amount: Rp [\\d.]+ due → ${received.replace(/\./g, "\\.")} received, Rp 152 short$`), "/bank-mutations");
  assertAudited(t, rows, m.email, new RegExp(`^Dismissed bank transfer ${m3}$`), "/bank-mutations");
  assertNoCspViolations(t, m.page);
});

// The tests below run one at a time, before the rest of the file: each drives a browser
// through several pages, and all of them at once with the others overloaded two cores.
test.serial("bank mutations whose ids are dot segments (. and ..) are assigned and dismissed from the page", async (t) => {
  const m = await signedInMember(t, `Toko Titik ${uid()}`);
  const product = await createProduct(stack, m.storeId, "Kopi Titik", 50_000);
  const order = await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 1 }], payment_method: "bank_transfer" });
  const soon = new Date(Date.now() + 60_000).toISOString();
  // Banks name their own ids; a browser would collapse "." or ".." in a form's URL.
  await stack.bank.reconcileMutations({
    storeId: m.storeId,
    mutations: [
      { id: ".", amount: BigInt(order.payment.seller_bank.transfer_amount + 7), type: "credit", occurredAt: soon, description: "DOT ONE" },
      { id: "..", amount: 333_333n, type: "credit", occurredAt: soon, description: "DOT TWO" },
    ],
  });
  await nav(m.page, "Bank mutations");
  const row = (text: string) => m.page.getByRole("row").filter({ hasText: text });
  await follow(m.page, row("DOT TWO").getByRole("button", { name: "Dismiss", exact: true }));
  t.true((await bodyText(m.page)).includes("The transfer is dismissed"), await bodyText(m.page));
  await row("DOT ONE").getByLabel("Payment reference", { exact: true }).fill(order.order.payment_reference);
  await follow(m.page, row("DOT ONE").getByRole("button", { name: "Assign to order", exact: true }));
  t.true((await bodyText(m.page)).includes("Rp 7 over"), await bodyText(m.page));
  await follow(m.page, button(m.page, "Assign anyway"));
  t.true((await bodyText(m.page)).includes("The transfer is assigned"), await bodyText(m.page));
  t.is((await apiOrder(m.key, order.order.id)).status, "paid");
  const rows = await auditLog(m.page);
  assertAudited(t, rows, m.email, /^Dismissed bank transfer \.\.$/, "/bank-mutations");
  assertAudited(t, rows, m.email, /^Assigned bank transfer \. to its order\s*amount: .* received, Rp 7 over$/, "/bank-mutations");
  assertNoCspViolations(t, m.page);
});

test.serial("a failing endpoint disabled by the service shows why; Enable endpoint offers Resend failed since, which delivers what was missed", async (t) => {
  const m = await signedInMember(t, `Toko Gagal ${uid()}`);
  let healthy = false;
  const receiver = await startReceiver(() => (healthy ? { status: 200 } : { status: 500 }));
  t.teardown(() => receiver.close());
  const { endpoint } = await stack.webhooks!.createEndpoint({ storeId: m.storeId, url: receiver.url, description: "Gudang", events: { all: true, types: [] } });
  const product = await createProduct(stack, m.storeId, "Kopi Gagal", 30_000);
  await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 1 }], payment_method: "bank_transfer" });
  await waitFor(async () => receiver.received.length >= 1, 20_000, 100);
  await waitFor(async () => (await stack.webhooks!.listEndpoints({ storeId: m.storeId })).endpoints[0]!.failingSince !== "", 20_000, 100);
  // Health at a glance: the list and the overview say it fails, long before any delivery gives up.
  await m.page.goto(storeUrl(m.storeId, "webhooks"));
  const listed = (await tableRows(m.page))[0]!;
  t.regex(listed.state!, /^Failing since .*WIB$/);
  t.regex(listed["last attempt"]!, /HTTP 500/);
  t.regex(listed["success (24 h)"]!, /^0 of \d+ \(0 %\)$/);
  await m.page.goto(storeUrl(m.storeId, "overview"));
  t.regex(await bodyText(m.page), /Failed attempts \(24 h\)\s+[1-9]/);
  t.regex(await bodyText(m.page), /Endpoints failing\s+1/);
  // Days of failures, as the service would have seen them: the sweep disables it.
  await stack.webhookSql!`update endpoints set failing_since = now() - interval '6 days' where id = ${endpoint!.id}`;
  await waitFor(async () => !(await stack.webhooks!.listEndpoints({ storeId: m.storeId })).endpoints[0]!.enabled, 20_000, 100);

  await m.page.goto(storeUrl(m.storeId, `webhooks/${endpoint!.id}`));
  t.regex(await bodyText(m.page), /Disabled\s+every attempt failed for 5 days, since/);
  healthy = true;
  const before = receiver.received.length;
  await follow(m.page, button(m.page, "Enable endpoint"));
  t.regex(await bodyText(m.page), /The endpoint is enabled/);
  const since = m.page.getByLabel("Resend failed since", { exact: true });
  const failedFrom = (await stack.webhooks!.listEndpoints({ storeId: m.storeId })).endpoints[0]!.failedFrom;
  const wibNow = new Date(Date.parse(failedFrom) + 7 * 3_600_000).toISOString().slice(0, 16);
  t.is(await since.inputValue(), wibNow, "the default is when it started failing, in WIB");
  await follow(m.page, button(m.page, "Resend"));
  t.regex(await bodyText(m.page), /being sent again/);
  await waitFor(async () => receiver.received.slice(before).some((entry) => JSON.parse(entry.body).type === "order.created"), 20_000, 100);
  t.is(receiver.received.at(-1)!.headers["webhook-id"], receiver.received[0]!.headers["webhook-id"], "the same webhook-id as the failed one");
  const rows = await auditLog(m.page);
  assertAudited(t, rows, "System", /^Disabled webhook endpoint http/, `/webhooks/${endpoint!.id}`);
  assertAudited(t, rows, m.email, /^Resent missed events to http/, `/webhooks/${endpoint!.id}`);
  assertNoCspViolations(t, m.page);
});

test.serial("an endpoint's custom headers and rate on its page: added, refused with the field named, masked until revealed, sent, removed", async (t) => {
  const m = await signedInMember(t, `Toko Header ${uid()}`);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { endpoint } = await stack.webhooks!.createEndpoint({ storeId: m.storeId, url: receiver.url, description: "ERP", events: { all: true, types: [] } });
  await m.page.goto(storeUrl(m.storeId, `webhooks/${endpoint!.id}`));

  await m.page.getByLabel("Header name", { exact: true }).fill("Content-Type");
  await m.page.getByLabel("Header value", { exact: true }).fill("text/plain");
  await follow(m.page, button(m.page, "Add header"));
  t.regex(await bodyText(m.page), /Not saved: Header name must not be content-type/);
  t.is(await m.page.getByLabel("Header name", { exact: true }).inputValue(), "Content-Type", "what was typed stays");

  await m.page.getByLabel("Header name", { exact: true }).fill("Authorization");
  await m.page.getByLabel("Header value", { exact: true }).fill("Bearer erp-rahasia");
  await follow(m.page, button(m.page, "Add header"));
  t.regex(await bodyText(m.page), /The header is saved/);
  const headers = m.page.getByRole("list", { name: "Custom headers" });
  t.regex(await headers.innerText(), /Authorization: ••••••••/);
  t.false((await bodyText(m.page)).includes("erp-rahasia"), "the value is masked");
  await follow(m.page, button(m.page, "Reveal headers"));
  t.regex(await headers.innerText(), /Authorization: Bearer erp-rahasia/);
  t.is(m.page.url(), storeUrl(m.storeId, `webhooks/${endpoint!.id}`), "the reveal answered with a redirect to the endpoint's page");
  await m.page.reload();
  t.regex(await headers.innerText(), /Authorization: ••••••••/, "a reload shows the value masked again, and reveals nothing more");

  await m.page.getByLabel("Max deliveries per second", { exact: true }).fill("5");
  await follow(m.page, button(m.page, "Save rate"));
  t.regex(await bodyText(m.page), /The rate is saved/);
  t.is(await m.page.getByLabel("Max deliveries per second", { exact: true }).inputValue(), "5");
  // Past 1000 the browser itself holds the form back (the service refuses it too: endpoint-rate.test.ts).
  await m.page.getByLabel("Max deliveries per second", { exact: true }).fill("5000");
  t.true(await m.page.getByLabel("Max deliveries per second", { exact: true }).evaluate((input: any) => input.validity.rangeOverflow));

  await follow(m.page, button(m.page, "Send test event"));
  await waitFor(async () => receiver.received.length === 1, 20_000, 100);
  t.is(receiver.received[0]!.headers.authorization, "Bearer erp-rahasia");

  await m.page.goto(storeUrl(m.storeId, `webhooks/${endpoint!.id}`));
  await follow(m.page, m.page.getByRole("button", { name: "Remove header Authorization" }));
  t.regex(await bodyText(m.page), /No custom headers/);
  const rows = await auditLog(m.page);
  for (const sentence of [/^Set a custom header on http.*Authorization/, /^Revealed the custom headers of http/, /^Removed a custom header from http.*Authorization/, /^Changed webhook endpoint http.*max per second/])
    assertAudited(t, rows, m.email, sentence, `/webhooks/${endpoint!.id}`);
  t.is(rows.filter((row) => /^Revealed the custom headers of http/.test(row.what ?? "")).length, 1, "the reload recorded no second reveal");
  assertNoCspViolations(t, m.page);
});

test.serial("the overview shows the sales of orders made here: paid today, this month, awaiting payment, and today's bar in a 30-day chart", async (t) => {
  const m = await signedInMember(t, `Toko Laris ${uid()}`);
  const product = await createProduct(stack, m.storeId, "Kopi Laris", 45_000);
  const orders = [];
  for (let i = 0; i < 3; i++) orders.push((await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 1 }], payment_method: "bank_transfer" })).order);
  await stack.orders.markOrderPaid({ storeId: m.storeId, orderId: orders[0].id });
  const rp = (amount: number) => `Rp ${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ".")}`;
  const paid = orders[0].amount as number;
  const waiting = (orders[1].amount as number) + (orders[2].amount as number);

  await m.page.goto(storeUrl(m.storeId));
  const card = async (title: string) => (await m.page.locator("section.card", { has: m.page.getByRole("heading", { name: title, exact: true }) }).innerText()).replace(/\s+/g, " ");
  t.regex(await card("Paid today"), new RegExp(`${rp(paid)} 1 order`));
  t.regex(await card("Paid this month"), new RegExp(`${rp(paid)} 1 order`));
  t.regex(await card("Awaiting payment"), new RegExp(`${rp(waiting)} 2 orders`));
  const chart = m.page.getByRole("img", { name: /^Paid each day/ });
  t.is(await chart.locator("rect").count(), 30);
  t.regex((await chart.locator("rect").last().locator("title").textContent()) ?? "", new RegExp(`${rp(paid)}$`));
  await shoot(t, m.page, "overview");
  assertNoCspViolations(t, m.page);
});

test.serial("Export CSV on the Orders page downloads every order of the filter and search: the same orders as the list, as integers and ISO UTC times", async (t) => {
  const m = await signedInMember(t, `Toko Ekspor ${uid()}`);
  const product = await createProduct(stack, m.storeId, "Kopi Ekspor", 20_000);
  const made = [];
  for (let i = 0; i < 3; i++) made.push((await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 1 }], payment_method: "bank_transfer" })).order);
  await stack.orders.markOrderPaid({ storeId: m.storeId, orderId: made[1].id });
  await m.page.goto(storeUrl(m.storeId, "orders?status=pending"));
  const listed = (await tableRows(m.page)).map((row) => row["payment reference"]);
  t.is(listed.length, 2);
  const [download] = await Promise.all([m.page.waitForEvent("download"), link(m.page, "Export CSV").click()]);
  t.regex(download.suggestedFilename(), /^orders-\d{4}-\d\d-\d\d\.csv$/);
  const rows = parse<Record<string, string>>(await readFile(await download.path(), "utf8"), { columns: true });
  t.deepEqual(rows.map((row) => row.payment_reference), listed, "the list's orders, in its order");
  for (const row of rows) {
    const order = made.find((o) => o.id === row.id)!;
    t.is(row.status, "pending");
    t.is(row.amount, String(order.amount));
    t.is(row.created_at, new Date(row.created_at!).toISOString());
  }
  assertNoCspViolations(t, m.page);
});

test.serial("a new merchant's words are true: an empty chart says No sales yet at a fixed label size; a pending order's empty deliveries name its events; one label per status; events and deliveries name the order SO-…", async (t) => {
  const m = await signedInMember(t, `Toko Jujur ${uid()}`);
  const { page } = m;

  // No sale in 30 days: the chart says so, and its day labels are as tall on a phone as on a desktop.
  await page.goto(storeUrl(m.storeId));
  t.true((await bodyText(page)).includes("No sales yet"), "an empty chart says No sales yet");
  const labelHeight = async (width: number) => {
    await page.setViewportSize({ width, height: 800 });
    const name = (await page.getByRole("img", { name: /^Paid each day/ }).getAttribute("aria-label"))!;
    const first = /^Paid each day, (.+?) to /.exec(name)![1]!;
    return page.locator("figure").evaluate(
      (figure: any, text: string) =>
        [...figure.querySelectorAll("*")].filter((el: any) => el.children.length === 0 && el.textContent.trim() === text).map((el: any) => el.getBoundingClientRect().height)[0],
      first,
    );
  };
  const [phone, desktop] = [await labelHeight(360), await labelHeight(1280)];
  t.true(phone > 0);
  t.is(phone, desktop, "the chart's day label is the same size at 360 and 1280 px");
  await shoot(t, page, "overview-empty");

  // An endpoint that takes order.paid only, with a long URL; a pending order of a buyer with a long email.
  const receiver = await startReceiver(() => ({ status: 200, body: "ok" }));
  t.teardown(() => receiver.close());
  const url = `${receiver.url}/kusumaningrum-wijayakusuma/pesanan.dibayar/terima`;
  const { endpoint } = await stack.webhooks!.createEndpoint({ storeId: m.storeId, url, events: { all: false, types: ["order.paid"] } });
  const product = await createProduct(stack, m.storeId, "Kopi Jujur", 30_000);
  const email = "kusumaningrum.wijayakusuma@example.co.id";
  const { order } = await createApiOrder(m.key, { items: [{ product_id: product.id, quantity: 1 }], payment_method: "bank_transfer", buyer: { ...buyer, email } });
  await settled(stack, [m.storeId]);

  await page.goto(storeUrl(m.storeId, `orders/${order.id}`));
  t.false((await bodyText(page)).includes("None of the store's endpoints is enabled and subscribed"), "an enabled endpoint is subscribed to order.paid");
  t.regex((await bodyText(page)).replace(/\s+/g, " "), /So far this order has had order\.created, and no enabled endpoint takes it \(they take order\.paid\)/);
  const label = "Awaiting payment";
  t.is((await page.locator(".badge").first().innerText()).trim(), label, "the badge");
  t.true((await tableRows(page)).some((row) => row.change === label), "the status history");
  await shoot(t, page, "order-pending-long-email");
  await page.goto(storeUrl(m.storeId, "orders"));
  const option = await page.getByRole("combobox", { name: "Status", exact: true }).locator('option[value="pending"]').innerText();
  t.is(option.trim(), label, "the Orders filter");
  await shoot(t, page, "orders-long-email");
  // The search's placeholder is read whole on a phone, not cut off inside the box.
  await page.setViewportSize({ width: 360, height: 800 });
  const placeholder = await page.getByLabel("Search", { exact: true }).evaluate((input: any) => {
    const style = getComputedStyle(input);
    const context = document.createElement("canvas").getContext("2d")!;
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    return { text: input.placeholder, width: context.measureText(input.placeholder).width, room: input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
  });
  t.true(placeholder.width <= placeholder.room, `"${placeholder.text}" (${placeholder.width} px) fits the ${placeholder.room} px of the search box at 360 px`);

  // Paid: its delivery and event name the order by its reference, linking to the order.
  await stack.orders.markOrderPaid({ storeId: m.storeId, orderId: order.id });
  await waitFor(() => receiver.events().some((event) => event.type === "order.paid"), 15_000);
  await settled(stack, [m.storeId]);
  await page.goto(storeUrl(m.storeId, "events"));
  const paidEvent = (await tableRows(page)).find((row) => row.type === "order.paid")!;
  t.is(paidEvent.order, order.payment_reference, "the Events page names the order SO-…");
  t.true(paidEvent.links.includes(`/orders/${order.id}`));
  await page.goto(storeUrl(m.storeId, `webhooks/${endpoint!.id}`));
  t.is((await tableRows(page)).find((row) => row.event === "order.paid")?.order, order.payment_reference, "the endpoint's deliveries name the order SO-…");
  await shoot(t, page, "endpoint-long-url");
  await follow(page, page.locator(`main a[href*="/deliveries/"]`).first());
  t.regex(await bodyText(page), new RegExp(`Order\\s+${order.payment_reference}`), "the delivery page names the order SO-…");
  await shoot(t, page, "delivery-long-url");
  await nav(page, "Webhooks");
  await shoot(t, page, "webhooks-long-url");
  assertNoCspViolations(t, page);
});
