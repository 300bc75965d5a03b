// `store-admin order refund` (docs/cli.md, docs/refunds.md): the CLI against the whole stack, run
// in this process (test/helpers/cli.ts); the export, streamed, as the real child process. A bank-transfer order marked paid is refunded in part, then the rest
// (no --amount); each refund is audited as the operator's; a bad --amount is refused.
import test, { type ExecutionContext } from "ava";
import { parse } from "csv-parse/sync";
import { createCliRunner } from "../helpers/cli.js";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await program.stopAll();
  await stack?.close();
});

const cliEnv = () => ({ CATALOG_ADDR: stack.catalogAddr, ORDER_ADDR: stack.orderAddr, WEBHOOK_ADDR: stack.orderAddr });
const runner = createCliRunner(cliEnv);
const program = createCliRunner(cliEnv, { spawn: true });
const ok = (t: ExecutionContext, ...args: string[]) => runner.ok(t, args);
const fails = (t: ExecutionContext, pattern: RegExp, ...args: string[]) => runner.fails(t, args, pattern);

async function bankTransferOrder(name: string) {
  const store = await createStore(stack, Plan.GROWTH, name);
  const product = await createProduct(stack, store.storeId, "Batik Tulis", 350_000);
  const created = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
  });
  if (created.status !== 201) throw new Error(created.text);
  return { ...store, order: created.body.data.order as { id: string; amount: number } };
}

test("order refund: part with --amount, then the rest without it; the order turns refunded; both audited", async (t) => {
  const { storeId, key, order } = await bankTransferOrder("CLI Refund Store");
  t.is((await ok(t, "order", "mark-paid", "--store", storeId, "--order", order.id)).status, "paid");

  const part = await ok(t, "order", "refund", "--store", storeId, "--order", order.id, "--amount", "50000", "--reason", "One item out of stock", "--reference", "BCA-TRF-77");
  t.deepEqual(Object.keys(part).sort(), ["order", "refund"]);
  t.like(part.refund, { amount: 50_000, reason: "One item out of stock", reference: "BCA-TRF-77", status: "succeeded", method: "manual", failure_message: null });
  t.like(part.order, { id: order.id, status: "paid", refunded_amount: 50_000 });

  const rest = await ok(t, "order", "refund", "--store", storeId, "--order", order.id, "--reason", "Buyer cancelled");
  t.like(rest.refund, { amount: order.amount - 50_000, status: "succeeded", method: "manual", reference: null });
  t.like(rest.order, { status: "refunded", refunded_amount: order.amount });
  t.deepEqual(rest.order.refunds.map((r: { id: string }) => r.id), [part.refund.id, rest.refund.id]);

  const read = await api(stack.baseUrl, `/v1/orders/${order.id}`, { key });
  t.like(read.body.data.order, { status: "refunded", refunded_amount: order.amount });

  const audit = await ok(t, "audit", "--store", storeId);
  const refunds = audit.entries.filter((e: { action: string }) => e.action === "order.refunded");
  t.is(refunds.length, 2);
  for (const entry of refunds) t.like(entry, { actor: "operator", target: `order:${order.id}` });
});

test("order refund: a bad --amount exits 1 naming it, and refunds nothing", async (t) => {
  const { storeId, key, order } = await bankTransferOrder("CLI Refund Bad Amount Store");
  await stack.orders.markOrderPaid({ storeId, orderId: order.id });
  for (const amount of ["0", "1.5", "abc", "10k", ""]) {
    await fails(t, /--amount/, "order", "refund", "--store", storeId, "--order", order.id, "--amount", amount, "--reason", "Wrong amount");
  }
  await fails(t, /--reason/, "order", "refund", "--store", storeId, "--order", order.id, "--amount", "1000");
  const read = await api(stack.baseUrl, `/v1/orders/${order.id}`, { key });
  t.like(read.body.data.order, { status: "paid", refunded_amount: 0, refunds: [] });
});

test("order export: every order of the store (or of a status) as CSV on stdout, newest first, with integer amounts", async (t) => {
  const { storeId, key, order: first } = await bankTransferOrder("CLI Export Store");
  const second = (await api(stack.baseUrl, "/v1/orders", { method: "POST", key, json: { items: [{ product_id: (await api(stack.baseUrl, "/v1/products", { key })).body.data.items[0].id, quantity: 2 }], buyer, payment_method: "bank_transfer" } })).body.data.order;
  await ok(t, "order", "mark-paid", "--store", storeId, "--order", first.id);
  // The program: the CSV streamed down a real pipe, then exit 0.
  const all = await program.run(["order", "export", "--store", storeId]);
  t.is(all.code, 0, all.stderr);
  const rows = parse<Record<string, string>>(all.stdout, { columns: true });
  t.deepEqual(rows.map((row) => row.id), [second.id, first.id]);
  t.deepEqual(rows.map((row) => row.amount), [String(second.amount), String(first.amount)]);
  const paid = parse<Record<string, string>>((await runner.run(["order", "export", "--store", storeId, "--status", "paid"])).stdout, { columns: true });
  t.deepEqual(paid.map((row) => [row.id, row.status]), [[first.id, "paid"]]);
  await fails(t, /status/, "order", "export", "--store", storeId, "--status", "shipped");
});

test("an order is named by its SO- reference, in any letter case, wherever a command takes --order", async (t) => {
  const { storeId, order } = await bankTransferOrder("CLI Reference Store");
  const reference = (order as unknown as { payment_reference: string }).payment_reference;
  t.regex(reference, /^SO-/);
  const shown = await ok(t, "order", "show", "--store", storeId, "--order", reference.toLowerCase());
  t.like(shown.order, { id: order.id, status: "pending", payment_reference: reference });
  t.deepEqual(shown.history.map((change: { to_status: string }) => change.to_status), ["pending"]);
  t.deepEqual(shown.allowed_actions.sort(), ["cancel", "mark_paid"]);
  t.like(await ok(t, "order", "mark-paid", "--store", storeId, "--order", reference.toLowerCase()), { id: order.id, status: "paid" });
  const refunded = await ok(t, "order", "refund", "--store", storeId, "--order", reference, "--reason", "Returned");
  t.like(refunded.order, { id: order.id, status: "refunded" });
  // Another store's reference is not found in this one, and nothing else is taken for an order.
  const other = await bankTransferOrder("CLI Reference Other Store");
  const theirs = (other.order as unknown as { payment_reference: string }).payment_reference;
  await fails(t, new RegExp(`^store-admin: order ${theirs} not found \\(NotFound\\)\\n$`), "order", "cancel", "--store", storeId, "--order", theirs);
  await fails(t, /--order must be an order id or a payment reference \(SO-…\)/, "order", "cancel", "--store", storeId, "--order", "my order");
  t.like((await stack.orders.getOrder({ storeId: other.storeId, orderId: other.order.id })).detail?.order, { status: "pending" });
});

test("--mode test: the order commands find and change the store's test orders, which live commands cannot see", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "CLI Test Mode Store");
  const product = await createProduct(stack, store.storeId, "Batik Cap", 120_000);
  const { secret } = await stack.stores.createApiKey({ storeId: store.storeId, name: "CI", testMode: true });
  const created = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: secret,
    json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
  });
  t.is(created.status, 201, created.text);
  const order = created.body.data.order as { id: string; payment_reference: string; livemode: boolean };
  t.false(order.livemode);

  await fails(t, /not found/, "order", "show", "--store", store.storeId, "--order", order.payment_reference);
  await fails(t, /not found/i, "order", "mark-paid", "--store", store.storeId, "--order", order.id);
  t.like(await ok(t, "order", "show", "--store", store.storeId, "--order", order.payment_reference, "--mode", "test"), { order: { id: order.id, livemode: false } });
  t.is((await ok(t, "order", "mark-paid", "--store", store.storeId, "--order", order.id, "--mode", "test")).status, "paid");
  await fails(t, /--mode must be live or test/, "order", "cancel", "--store", store.storeId, "--order", order.id, "--mode", "sandbox");
});
