// The Products pages of the dashboard (docs/dashboard.md#products) in a real browser against the
// whole stack: an owner creates a product and a bundle, changes them and archives one,
// each page read at 360 and 1280 px and each change checked in the catalog and the audit
// log; a viewer sees the same products with no control that changes them, and a post
// made anyway is 403 with nothing changed.
// Its tests run one at a time (test.serial): each drives a browser page of its own.
import test from "ava";
import { randomUUID } from "node:crypto";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import { acceptInvitation, bodyText, button, DASHBOARD_PASSWORD, dashboardUrl, follow, link, newDashboardPage, shoot, tableRows } from "../helpers/dashboard-browser.js";
import { StockAction } from "../../gen/catalog/v1/catalog_pb.js";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, ItemStatus, Plan, startStack, type Stack } from "../helpers/stack.js";

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

/** The catalog's item as the services see it. */
async function itemOf(storeId: string, id: string) {
  const { items } = await stack.catalog.getItems({ storeId, ids: [id] });
  return items[0]!;
}

test.serial("an owner creates a product and a bundle, changes them and archives one; the pages read at 360 and 1280 px", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Toko Kopi Produk");
  const email = `owner-${uid()}@merchant.example`;
  const { page, cspViolations } = await newDashboardPage(t, browser);
  await acceptInvitation(stack, page, store.storeId, email);
  const products = dashboardUrl(stack, store.storeId, "products");

  await follow(page, page.getByRole("navigation").getByRole("link", { name: "Products", exact: true }));
  t.is(page.url(), products);
  t.regex(await bodyText(page), /No products yet/);

  // A product that counts its stock.
  await follow(page, link(page, "New product"));
  await page.getByLabel("Title", { exact: true }).fill("Kopi Gayo 250 g");
  await page.getByLabel("Price", { exact: true }).fill("85.000");
  await page.getByLabel("Status", { exact: true }).selectOption("published");
  await page.getByLabel("Stock", { exact: true }).fill("10");
  await shoot(t, page, "product-new");
  await follow(page, button(page, "Create product"));
  const kopiId = /\/products\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
  t.truthy(kopiId, page.url());
  t.regex(await page.getByRole("status").innerText(), /Created/);
  t.like(await itemOf(store.storeId, kopiId!), { title: "Kopi Gayo 250 g", slug: "kopi-gayo-250-g", price: 85_000n, status: ItemStatus.PUBLISHED, stock: 10n, available: 10n });

  // One that does not, and one whose slug is taken: the form again, naming the slug, keeping what was typed.
  await page.goto(`${products}/new`);
  await page.getByLabel("Title", { exact: true }).fill("Gula Aren");
  await page.getByLabel("Price", { exact: true }).fill("20000");
  await page.getByLabel("Slug", { exact: true }).fill("kopi-gayo-250-g");
  const [clash] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), button(page, "Create product").click()]);
  await page.waitForLoadState("load");
  t.is(clash.status(), 400);
  t.regex(await page.getByRole("alert").innerText(), /^Slug: /);
  t.is(await page.getByLabel("Slug", { exact: true }).getAttribute("aria-invalid"), "true");
  t.is(await page.getByLabel("Title", { exact: true }).inputValue(), "Gula Aren");
  await page.getByLabel("Slug", { exact: true }).fill("");
  await follow(page, button(page, "Create product"));
  const gulaId = /\/products\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
  t.truthy(gulaId, page.url());
  t.like(await itemOf(store.storeId, gulaId!), { status: ItemStatus.DRAFT, stock: undefined, available: undefined });

  // A bundle of two coffees and a sugar: it can be sold as often as the coffee allows.
  await page.goto(products);
  await follow(page, link(page, "New bundle"));
  await page.getByLabel("Title", { exact: true }).fill("Paket Ngopi");
  await page.getByLabel("Price", { exact: true }).fill("175000");
  await page.getByLabel("Status", { exact: true }).selectOption("published");
  await page.getByLabel("Quantity of Kopi Gayo 250 g", { exact: true }).fill("2");
  await page.getByLabel("Quantity of Gula Aren", { exact: true }).fill("1");
  await shoot(t, page, "bundle-new");
  await follow(page, button(page, "Create bundle"));
  const bundleId = /\/products\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
  t.truthy(bundleId, page.url());
  const parts = (await tableRows(page)).filter((row) => row.product !== undefined);
  t.deepEqual(
    parts.map((row) => [row.product, row.quantity, row.stock, row.available]),
    [
      ["Gula Aren", "1", "Not tracked", "No limit"],
      ["Kopi Gayo 250 g", "2", "10", "10"],
    ],
    "in the form's order: the products by title",
  );
  const bundle = await itemOf(store.storeId, bundleId!);
  t.deepEqual(
    bundle.bundleItems.map((line) => [line.productId, line.quantity]),
    [
      [gulaId, 1],
      [kopiId, 2],
    ],
  );
  t.is(bundle.available, 5n, "floor(10 / 2)");
  await shoot(t, page, "bundle");

  // The list: every item whatever its status, newest first, with stock and what is available.
  await page.goto(products);
  const listed = await tableRows(page);
  t.deepEqual(
    listed.map((row) => [row.title, row.type, row.status, row.price, row.stock, row.available]),
    [
      ["Paket Ngopi paket-ngopi", "Bundle", "Published", "Rp 175.000", "Not tracked", "5"],
      ["Gula Aren gula-aren", "Product", "Draft", "Rp 20.000", "Not tracked", "No limit"],
      ["Kopi Gayo 250 g kopi-gayo-250-g", "Product", "Published", "Rp 85.000", "10", "10"],
    ],
  );
  await shoot(t, page, "products");

  // Change the coffee's price and stock: the bundle follows.
  await follow(page, link(page, "Kopi Gayo 250 g"));
  await page.getByLabel("Price", { exact: true }).fill("90000");
  await page.getByLabel("Stock", { exact: true }).fill("3");
  await shoot(t, page, "product");
  await follow(page, button(page, "Save changes"));
  t.is(page.url(), `${products}/${kopiId}`);
  t.regex(await page.getByRole("status").innerText(), /Changes saved/);
  t.like(await itemOf(store.storeId, kopiId!), { title: "Kopi Gayo 250 g", price: 90_000n, stock: 3n, available: 3n });
  t.is((await itemOf(store.storeId, bundleId!)).available, 1n, "floor(3 / 2)");
  // A stock that is no whole number: the form again, at the Stock box.
  await page.getByLabel("Stock", { exact: true }).fill("tiga");
  const [wrong] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), button(page, "Save changes").click()]);
  await page.waitForLoadState("load");
  t.is(wrong.status(), 400);
  t.regex(await page.getByRole("alert").innerText(), /^Stock: /);
  t.is((await itemOf(store.storeId, kopiId!)).stock, 3n, "nothing changed");

  // Stock changed while the page was open (a paid order, say): a save of another box leaves it as it is now.
  await page.goto(`${products}/${gulaId}`);
  await stack.catalog.updateItem({ storeId: store.storeId, itemId: gulaId!, stock: { quantity: 5n } });
  await page.getByLabel("Title", { exact: true }).fill("Gula Aren Cair");
  await follow(page, button(page, "Save changes"));
  t.like(await itemOf(store.storeId, gulaId!), { title: "Gula Aren Cair", stock: 5n });
  // Changed here and meanwhile: the form again, showing it as it is now; nothing saved.
  await stack.catalog.updateItem({ storeId: store.storeId, itemId: gulaId!, stock: { quantity: 4n } });
  await page.getByLabel("Stock", { exact: true }).fill("8");
  await page.getByLabel("Price", { exact: true }).fill("21000");
  const [conflict] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), button(page, "Save changes").click()]);
  await page.waitForLoadState("load");
  t.is(conflict.status(), 409);
  t.regex(await page.getByRole("alert").innerText(), /Stock changed \(now 4\) since this page was opened/);
  t.is(await page.getByLabel("Stock", { exact: true }).inputValue(), "4");
  t.is(await page.getByLabel("Price", { exact: true }).inputValue(), "21000", "the other change is kept in the form");
  t.like(await itemOf(store.storeId, gulaId!), { price: 20_000n, stock: 4n });

  // Archive, confirmed: nothing happens before the confirmation.
  await page.goto(`${products}/${kopiId}`);
  await follow(page, link(page, "Archive"));
  t.is((await itemOf(store.storeId, kopiId!)).status, ItemStatus.PUBLISHED, "nothing happens before the confirmation");
  await shoot(t, page, "product-archive");
  await follow(page, button(page, "Archive"));
  t.is(page.url(), `${products}/${kopiId}`);
  t.regex(await page.getByRole("status").innerText(), /Archived/);
  t.is(await link(page, "Archive").count(), 0, "an archived item offers no Archive");
  t.is((await itemOf(store.storeId, kopiId!)).status, ItemStatus.ARCHIVED);

  // Every change is the member's in the audit log.
  const entries = (await stack.auditLog(store.storeId)).filter((entry) => entry.target.endsWith(kopiId!));
  t.true(entries.length >= 3, entries.map((entry) => `${entry.action} ${entry.actor}`).join("\n"));
  t.deepEqual([...new Set(entries.map((entry) => entry.actor))], [email], "audited with the member's email");

  t.deepEqual(cspViolations, [], "no page breaks its own Content-Security-Policy");
});

test.serial("a viewer sees the products with no control that changes them, and a post made anyway is 403 with nothing changed", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Toko Lihat Saja");
  const product = await createProduct(stack, store.storeId, "Teh Tarik", 25_000);
  await stack.catalog.updateItem({ storeId: store.storeId, itemId: product.id, stock: { quantity: 7n } });
  const email = `viewer-${uid()}@merchant.example`;
  const { invitationToken } = await stack.accounts.inviteMember({ storeId: store.storeId, email, role: "viewer" });
  const { page, cspViolations } = await newDashboardPage(t, browser);
  await page.goto(`${stack.baseUrl}/dashboard/invite/${invitationToken}`);
  await page.getByLabel("New password", { exact: true }).fill(DASHBOARD_PASSWORD);
  await page.getByLabel("Confirm password", { exact: true }).fill(DASHBOARD_PASSWORD);
  await follow(page, button(page, "Set password"), 30_000);

  await follow(page, page.getByRole("navigation").getByRole("link", { name: "Products", exact: true }));
  t.like((await tableRows(page))[0], { title: "Teh Tarik teh-tarik", stock: "7", available: "7" });
  t.is(await link(page, "New product").count(), 0);
  t.is(await link(page, "New bundle").count(), 0);
  await shoot(t, page, "products-viewer");
  await follow(page, link(page, "Teh Tarik"));
  t.regex(await bodyText(page), /Rp 25\.000/);
  t.is(await button(page, "Save changes").count(), 0);
  t.is(await link(page, "Archive").count(), 0);
  t.is(await page.locator("main form").count(), 0, "no form to change it");

  const before = await itemOf(store.storeId, product.id);
  const changesBefore = (await stack.auditLog(store.storeId)).filter((entry) => !/sign|invit|member/.test(entry.action));
  // The page's CSRF token (the Sign out form carries it): the post is refused for the role, not the token.
  const csrf = await page.locator('input[name="csrf"]').first().inputValue();
  const posts: [string, Record<string, string>][] = [
    [`products/${product.id}`, { csrf, price: "1", "was.price": "25000" }],
    [`products/${product.id}/archive`, { csrf }],
    ["products/new", { csrf, title: "Forged", price: "1000" }],
  ];
  for (const [path, form] of posts) {
    const answer = await page.request.post(dashboardUrl(stack, store.storeId, path), { form, maxRedirects: 0 });
    t.is(answer.status(), 403, path);
    t.regex(await answer.text(), /The viewer role may not change products, bundles, prices and stock/, path);
  }
  t.is((await page.goto(dashboardUrl(stack, store.storeId, "products/new")))?.status(), 403);
  t.deepEqual(await itemOf(store.storeId, product.id), before, "nothing changed");
  t.deepEqual((await stack.catalog.listItems({ storeId: store.storeId, limit: 10 })).items.length, 1, "nothing made");
  t.deepEqual((await stack.auditLog(store.storeId)).filter((entry) => !/sign|invit|member/.test(entry.action)), changesBefore, "nothing audited");
  t.deepEqual(cspViolations, [], "no page breaks its own Content-Security-Policy");
});

test.serial("an oversold order's notice and its product's Oversold mark read at 360 and 1280 px", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Toko Telat Bayar");
  const product = await createProduct(stack, store.storeId, "Kopi Luwak Asli Premium 100 g", 450_000);
  const created = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: product.id, quantity: 2 }], buyer, payment_method: "bank_transfer" },
  });
  t.is(created.status, 201, created.text);
  const orderId = created.body.data.order.id as string;
  // The two units held, released when the order expired, sold elsewhere, then the late payment (docs/catalog.md#oversold).
  const { storeId } = store;
  await stack.catalog.updateItem({ storeId, itemId: product.id, stock: { quantity: 2n } });
  await stack.catalog.reserveOrderCatalog({ storeId, orderId, lines: [{ itemId: product.id, quantity: 2n }] });
  await stack.catalog.applyStockChanges({ changes: [StockAction.CONFIRM, StockAction.RELEASE].map((action) => ({ storeId, orderId, action })) });
  await stack.catalog.updateItem({ storeId, itemId: product.id, stock: { quantity: 0n } });
  await stack.orders.markOrderPaid({ storeId, orderId });
  await stack.catalog.applyStockChanges({ changes: [{ storeId, orderId, action: StockAction.SELL }] });

  const { page, cspViolations } = await newDashboardPage(t, browser);
  await acceptInvitation(stack, page, storeId, `late-${uid()}@merchant.example`);
  await page.goto(dashboardUrl(stack, storeId, `orders/${orderId}`));
  const notice = page.getByRole("alert");
  t.regex(await notice.innerText(), /Oversold\.[\s\S]*Kopi Luwak Asli Premium 100 g: 2 units \(stock now -2\)/);
  await shoot(t, page, "order-oversold");
  await follow(page, notice.getByRole("link", { name: "Kopi Luwak Asli Premium 100 g", exact: true }));
  t.regex(await page.getByRole("alert").innerText(), /Oversold: 2 more units were sold than the store had/);
  await page.goto(dashboardUrl(stack, storeId, "products"));
  t.like((await tableRows(page))[0], { stock: "-2 Oversold", available: "0" });
  await shoot(t, page, "products-oversold");
  t.deepEqual(cspViolations, [], "no page breaks its own Content-Security-Policy");
});
