// Payment links in a real browser against the whole stack (docs/dashboard.md#payment-links,
// docs/payments.md#payment-links): a seller makes a link on the dashboard, finds its address
// to copy and a WhatsApp link to share, and deactivates it; a viewer sees the links but
// nothing that changes them; and the buyer's page the link opens, in Indonesian and
// English, on a phone and a desktop.
// Its tests run one at a time (test.serial): each drives browser pages of its own, and
// all of them at once beside another file's crowded two cores past the pages' waits.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import type { Role } from "../../common/roles.js";
import { ARTIFACTS, launchBrowser } from "../helpers/browser.js";
import { acceptInvitation, bodyText, button, dashboardUrl, follow, layoutFaults, link, newDashboardPage, shoot, type DashboardPage } from "../helpers/dashboard-browser.js";
import { api } from "../helpers/http.js";
import { createBundle, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
let browser: Browser;
test.before(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
});
test.after.always(async () => {
  await browser?.close();
  await stack?.close();
});

const uid = () => randomUUID().slice(0, 8);
const storeUrl = (storeId: string, rest = "overview") => dashboardUrl(stack, storeId, rest);

/** A store with a published product and bundle, and a member of `role` signed in to it in a browser of their own. */
async function storeWithMember(t: ExecutionContext, name: string, role: Role = "owner") {
  const store = await createStore(stack, Plan.GROWTH, name);
  const kopi = await createProduct(stack, store.storeId, "Kopi Gayo 250 g", 85_000);
  const gula = await createProduct(stack, store.storeId, "Gula Aren 500 g", 30_000);
  const paket = await createBundle(stack, store.storeId, "Paket Sarapan", 105_000, [kopi.id, gula.id]);
  const view = await newDashboardPage(t, browser);
  if (role === "owner") {
    await acceptInvitation(stack, view.page, store.storeId, `owner-${uid()}@toko.example`);
  } else {
    const { invitationToken } = await stack.accounts.inviteMember({ storeId: store.storeId, email: `${role}-${uid()}@toko.example`, role });
    await view.page.goto(`${stack.baseUrl}/dashboard/invite/${invitationToken}`);
    await view.page.getByLabel("New password", { exact: true }).fill("kopi-tubruk-2026!");
    await view.page.getByLabel("Confirm password", { exact: true }).fill("kopi-tubruk-2026!");
    await follow(view.page, button(view.page, "Set password"), 30_000);
  }
  return { ...store, ...view, kopi, gula, paket };
}

/** Clicks what posts a form and returns the status of the POST's own answer (before any redirect is followed). */
async function submit(page: Page, target: Locator): Promise<number> {
  const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), follow(page, target)]);
  return response.status();
}

/** The cards of the page's list of links, newest first (a card's own list of items left out). */
const linkCards = (page: Page) => page.getByRole("list", { name: "Payment links" }).locator(":scope > li");

/** The store's links as the public API lists them (the key's mode: live). */
async function apiLinks(key: string): Promise<any[]> {
  const response = await api(stack.baseUrl, "/v1/payment-links", { key });
  if (response.status !== 200) throw new Error(`GET /v1/payment-links: ${response.status} ${response.text}`);
  return response.body.data.items;
}

function assertNoCspViolations(t: ExecutionContext, view: DashboardPage): void {
  t.deepEqual(view.cspViolations, [], "no page breaks its own Content-Security-Policy");
}

test.serial("an owner makes a payment link on the Payment links page, copies its address, shares it on WhatsApp and deactivates it, at 360 and 1280 px", async (t) => {
  const m = await storeWithMember(t, "Warung Kopi Bu Ani");
  const { page } = m;
  await follow(page, page.getByRole("navigation").getByRole("link", { name: "Payment links", exact: true }));
  t.is(page.url(), storeUrl(m.storeId, "payment-links"));
  t.true((await bodyText(page)).includes("No payment links yet"));
  await shoot(t, page, "payment-links-empty");

  // Nothing chosen: the form comes back saying what is missing, and no link is made.
  t.is(await submit(page, button(page, "Create link")), 400);
  t.regex(await page.getByRole("alert").innerText(), /^Items: choose at least one product or bundle/);
  t.deepEqual(await apiLinks(m.key), []);

  const item = (n: number) => page.getByRole("group", { name: `Item ${n}`, exact: true });
  await item(1).getByLabel("Product or bundle").selectOption({ label: "Kopi Gayo 250 g · Rp 85.000" });
  await item(1).getByLabel("Quantity").fill("2");
  await item(2).getByLabel("Product or bundle").selectOption({ label: "Paket Sarapan (bundle) · Rp 105.000" });
  // Every method the store offers is ticked; the seller takes bank transfers and QRIS only.
  const methods = page.getByRole("group", { name: "Payment methods" });
  t.true(await methods.getByLabel("GoPay", { exact: true }).isChecked());
  for (const name of ["GoPay", "ShopeePay", "BCA Virtual Account", "BNI Virtual Account", "BRI Virtual Account", "Permata Virtual Account", "Credit Card"]) {
    await methods.getByLabel(name, { exact: true }).uncheck();
  }
  await page.getByLabel("Usage limit", { exact: true }).fill("5");
  await page.getByLabel("Expires", { exact: true }).fill("2099-12-31T23:30");
  t.is(await submit(page, button(page, "Create link")), 303, "the post is answered with a redirect, so a reload does not post again");
  t.is(page.url(), storeUrl(m.storeId, "payment-links"));
  t.regex(await page.getByRole("status").innerText(), /The link is ready/);

  const [made] = await apiLinks(m.key);
  t.truthy(made, "the link is made");
  t.deepEqual(made.items, [
    { product_id: m.kopi.id, quantity: 2 },
    { bundle_id: m.paket.id, quantity: 1 },
  ]);
  t.deepEqual([...made.payment_methods].sort(), ["bank_transfer", "qris"]);
  t.is(made.usage_limit, 5);
  t.is(Date.parse(made.expires_at), Date.parse("2099-12-31T16:30:00Z"), "the form's time is Jakarta time");
  t.is(made.url, `${stack.baseUrl}/pay/${made.slug}`);

  const cards = linkCards(page);
  t.is(await cards.count(), 1);
  const card = cards.first();
  const text = (await card.innerText()).replace(/\s+/g, " ");
  t.true(text.includes("2 × Kopi Gayo 250 g") && text.includes("1 × Paket Sarapan"), text);
  t.true(text.includes("Active"), text);
  t.true(text.includes("0 of 5"), `paid orders against the usage limit: ${text}`);
  t.true(text.includes("Bank Transfer, QRIS") || text.includes("QRIS, Bank Transfer"), text);
  const address = card.getByLabel("Copy link", { exact: true });
  t.is(await address.inputValue(), made.url, "the address to copy is the public one");
  t.true(await address.isEditable().then((editable) => !editable), "and it is read-only");
  // Selecting it is what "Copy link" asks of the user: no script is needed for it.
  await address.selectText();
  t.is(await page.evaluate<string>("String(getSelection() && document.activeElement.value.substring(document.activeElement.selectionStart, document.activeElement.selectionEnd))"), made.url);
  const share = new URL((await link(page, "Share on WhatsApp").getAttribute("href")) ?? "");
  t.is(`${share.origin}${share.pathname}`, "https://wa.me/");
  t.true(share.searchParams.get("text")?.includes(made.url), `the WhatsApp text carries the address: ${share.searchParams.get("text")}`);
  t.true(share.searchParams.get("text")?.includes("Warung Kopi Bu Ani"));
  // The address answers: it is the buyer's page.
  t.is((await fetch(made.url)).status, 200);
  await shoot(t, page, "payment-links");

  // Deactivate asks first; keeping it changes nothing.
  await follow(page, link(page, "Deactivate"));
  t.regex(new URL(page.url()).pathname, /\/payment-links\/[0-9a-f-]{36}\/deactivate$/);
  t.true((await bodyText(page)).includes(made.url));
  await shoot(t, page, "payment-links-deactivate");
  await follow(page, link(page, "Keep it"));
  t.true((await apiLinks(m.key))[0].active, "keeping it leaves the link active");
  await follow(page, link(page, "Deactivate"));
  t.is(await submit(page, button(page, "Deactivate link")), 303);
  t.is(page.url(), storeUrl(m.storeId, "payment-links"));
  t.false((await apiLinks(m.key))[0].active, "the link is inactive");
  const after = (await linkCards(page).first().innerText()).replace(/\s+/g, " ");
  t.true(after.includes("Deactivated"), after);
  t.is(await link(page, "Deactivate").count(), 0, "a deactivated link has nothing to deactivate");
  t.is(await link(page, "Share on WhatsApp").count(), 0, "nor an address to share");
  t.is((await fetch(made.url)).status, 410, "its address now says it is closed");
  assertNoCspViolations(t, m);
});

test.serial("a viewer sees the payment links at 360 and 1280 px without New payment link or Deactivate, and a forged post is refused with 403", async (t) => {
  const m = await storeWithMember(t, "Toko Roti Pak Budi", "viewer");
  const made = await api(stack.baseUrl, "/v1/payment-links", { method: "POST", key: m.key, json: { items: [{ product_id: m.gula.id, quantity: 3 }] } });
  t.is(made.status, 201, made.text);
  const { page } = m;
  await follow(page, page.getByRole("navigation").getByRole("link", { name: "Payment links", exact: true }));
  const card = linkCards(page).first();
  t.true((await card.innerText()).includes("3 × Gula Aren 500 g"));
  t.is(await card.getByLabel("Copy link", { exact: true }).inputValue(), made.body.data.url, "the address is there to copy");
  t.is(await link(page, "Deactivate").count(), 0);
  t.is(await page.getByRole("heading", { name: "New payment link" }).count(), 0);
  t.is(await button(page, "Create link").count(), 0);
  await shoot(t, page, "payment-links-viewer");

  // The confirmation is refused like the post it leads to; a post with a valid CSRF token is refused by the order service.
  const confirm = await page.goto(storeUrl(m.storeId, `payment-links/${made.body.data.id}/deactivate`));
  t.is(confirm?.status(), 403);
  t.regex(await bodyText(page), /may not make or deactivate payment links/);
  await page.goto(storeUrl(m.storeId, "payment-links"));
  const csrf = await page.locator('header form input[name="csrf"]').getAttribute("value");
  for (const [where, form] of [
    ["payment-links", { csrf: csrf ?? "", item_1: `product:${m.kopi.id}`, quantity_1: "1", payment_methods: "qris" }],
    [`payment-links/${made.body.data.id}/deactivate`, { csrf: csrf ?? "" }],
  ] as const) {
    const response = await page.request.post(storeUrl(m.storeId, where), { form, maxRedirects: 0 });
    t.is(response.status(), 403, `POST ${where}`);
  }
  const links = await apiLinks(m.key);
  t.is(links.length, 1, "no link was made");
  t.true(links[0].active, "nor deactivated");
  assertNoCspViolations(t, m);
});

test.serial("the buyer's page of a link reads in Indonesian by default and in English, at 360 and 1280 px", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Toko Kain Nusantara");
  const cloth = await createProduct(stack, store.storeId, "Kain Songket Palembang", 1_250_000);
  const made = await api(stack.baseUrl, "/v1/payment-links", { method: "POST", key: store.key, json: { items: [{ product_id: cloth.id, quantity: 2 }] } });
  t.is(made.status, 201, made.text);
  const context = await browser.newContext({ viewport: { width: 360, height: 800 }, locale: "id-ID" });
  context.setDefaultTimeout(30_000);
  t.teardown(() => context.close());
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });

  const pages = [
    ["id", ["Toko Kain Nusantara", "Kain Songket Palembang", "Rp 2.500.000", "Nama", "Telepon", "Lanjut ke pembayaran"]],
    ["en", ["Toko Kain Nusantara", "Kain Songket Palembang", "Rp 2.500.000", "Name", "Phone", "Continue to payment"]],
  ] as const;
  t.is((await page.goto(made.body.data.url))?.status(), 200);
  for (const [language, words] of pages) {
    if (language === "en") {
      await follow(page, page.getByRole("link", { name: "English", exact: true }));
      t.regex(page.url(), /lang=en/);
    }
    const text = await bodyText(page);
    for (const word of words) t.true(text.includes(word), `${language}: "${word}" on the page`);
    t.is(await page.getByRole("button", { name: words[5], exact: true }).count(), 1);
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      t.deepEqual(await layoutFaults(page), [], `the ${language} page at ${width} px`);
      await page.screenshot({ path: path.join(ARTIFACTS, "payment-link", `pay-${language}-${width}.png`), fullPage: true });
    }
  }
  t.deepEqual(violations, [], "the page keeps its Content-Security-Policy");
});

test.serial("with Test data on, the page makes a test link: listed among the test links only, and a test key sees it", async (t) => {
  const m = await storeWithMember(t, "Toko Uji Coba");
  const { page } = m;
  await page.goto(storeUrl(m.storeId, "payment-links"));
  await follow(page, page.getByRole("switch", { name: /Test data/ }));
  t.regex(page.url(), /[?&]mode=test/);
  await page.getByRole("group", { name: "Item 1", exact: true }).getByLabel("Product or bundle").selectOption({ label: "Gula Aren 500 g · Rp 30.000" });
  t.is(await submit(page, button(page, "Create link")), 303);
  t.regex(page.url(), /[?&]mode=test/, "back on the test links");
  t.is(await linkCards(page).count(), 1);
  t.true((await linkCards(page).first().innerText()).includes("1 × Gula Aren 500 g"));

  const testKey = await stack.stores.createApiKey({ storeId: m.storeId, name: "test", testMode: true });
  const [made] = await apiLinks(testKey.secret);
  t.is(made?.livemode, false, "the link is a test link");
  t.deepEqual(await apiLinks(m.key), [], "live keys do not see it");
  await follow(page, page.getByRole("switch", { name: /Test data/ }));
  t.is(await linkCards(page).count(), 0, "nor does the live list");
  t.true((await bodyText(page)).includes("No payment links yet"));
  assertNoCspViolations(t, m);
});
