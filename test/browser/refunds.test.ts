// Refunds on the dashboard (docs/dashboard.md#orders, docs/refunds.md#dashboard) in a real browser against the whole
// stack: a member marks a bank-transfer order paid, refunds part of it with "Refund" →
// "Amount"/"Reason" → "Refund order", sees the refund listed and the flash, refunds
// the rest and sees the order refunded, as the public API does.
import test from "ava";
import { randomUUID } from "node:crypto";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import { acceptInvitation, bodyText, button, dashboardUrl, follow, link, newDashboardPage, shoot, tableRows } from "../helpers/dashboard-browser.js";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
let browser: Browser;
test.before(async () => {
  [stack, browser] = await Promise.all([startStack({ webhooks: { bus: "in-process" } }), launchBrowser()]);
});
test.after.always(async () => {
  await browser?.close();
  await stack?.close();
});


/** "Rp 100.000", as the pages write amounts. */
const rp = (amount: number) => `Rp ${amount.toLocaleString("de-DE")}`;

test("a member refunds a paid bank-transfer order in part, then the rest, and the order turns refunded", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Toko Refund");
  const product = await createProduct(stack, store.storeId, "Kain Songket", 250_000);
  const created = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
  });
  t.is(created.status, 201, created.text);
  const order = created.body.data.order as { id: string; amount: number };
  const apiOrder = async () => (await api(stack.baseUrl, `/v1/orders/${order.id}`, { key: store.key })).body.data.order;

  const { page, cspViolations } = await newDashboardPage(t, browser);
  await acceptInvitation(stack, page, store.storeId, `refunds-${randomUUID().slice(0, 8)}@merchant.example`);
  await page.goto(dashboardUrl(stack, store.storeId, `orders/${order.id}`));
  t.is(await link(page, "Refund").count(), 0, "a pending order cannot be refunded");

  await follow(page, link(page, "Mark as paid"));
  await follow(page, button(page, "Mark as paid"));
  t.is((await apiOrder()).status, "paid");

  // Part of it.
  await follow(page, link(page, "Refund"));
  const amount = page.getByLabel("Amount", { exact: true });
  t.is(await amount.inputValue(), String(order.amount), "the amount is prefilled with everything that is left");
  await shoot(t, page, "refund-form");
  t.is((await apiOrder()).refunds.length, 0, "nothing happens before the confirmation");

  // More than is left: the form again, with the service's reason and what was typed.
  await amount.fill(String(order.amount + 1));
  await page.getByLabel("Reason", { exact: true }).fill("Too much");
  const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), button(page, "Refund order").click()]);
  await page.waitForLoadState("load");
  t.is(refused.status(), 400);
  t.regex(await page.getByRole("alert").innerText(), /amount/i);
  t.is(await page.getByLabel("Reason", { exact: true }).inputValue(), "Too much");

  await page.getByLabel("Amount", { exact: true }).fill("100000");
  await page.getByLabel("Reason", { exact: true }).fill("One piece was damaged");
  await follow(page, button(page, "Refund order"));
  t.is(new URL(page.url()).pathname, `/dashboard/stores/${store.storeId}/orders/${order.id}`, "back on the order page");
  t.regex(await page.getByRole("status").innerText(), new RegExp(`Refund of ${rp(100_000)} succeeded`));
  let refunds = (await tableRows(page)).filter((row) => row.reason !== undefined);
  t.is(refunds.length, 1);
  t.like(refunds[0], { amount: rp(100_000), reason: "One piece was damaged" });
  t.regex(refunds[0]!.status!, /Succeeded/);
  t.regex(refunds[0]!.status!, /Manual/, "the method is shown under the status");
  t.true((await bodyText(page)).includes("Refunded"), "the refunded amount is shown");
  t.like(await apiOrder(), { status: "paid", refunded_amount: 100_000 });
  await shoot(t, page, "refund-partial");

  // The rest: the form offers exactly what is left.
  await follow(page, link(page, "Refund"));
  t.is(await page.getByLabel("Amount", { exact: true }).inputValue(), String(order.amount - 100_000));
  await page.getByLabel("Reason", { exact: true }).fill("Buyer returned the rest");
  await follow(page, button(page, "Refund order"));
  t.regex(await page.getByRole("status").innerText(), new RegExp(`Refund of ${rp(order.amount - 100_000)} succeeded`));
  refunds = (await tableRows(page)).filter((row) => row.reason !== undefined);
  t.deepEqual(refunds.map((row) => row.amount), [rp(100_000), rp(order.amount - 100_000)]);
  t.is(await link(page, "Refund").count(), 0, "nothing is left to refund");
  t.like(await apiOrder(), { status: "refunded", refunded_amount: order.amount });
  t.regex(await bodyText(page), /Refunded/);

  // Both refunds are in the audit log as the member's.
  const entries = await stack.auditLog(store.storeId);
  t.is(entries.filter((e) => e.action === "order.refunded" && e.target === `order:${order.id}`).length, 2);

  // Endpoints can subscribe to the refund events.
  await page.goto(dashboardUrl(stack, store.storeId, "webhooks"));
  for (const type of ["refund.succeeded", "refund.failed"]) t.is(await page.getByRole("checkbox", { name: type, exact: true }).count(), 1, `a checkbox for ${type}`);

  t.deepEqual(cspViolations, [], "no page breaks its own Content-Security-Policy");
});
