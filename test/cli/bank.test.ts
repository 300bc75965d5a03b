// `store-admin bank …` (docs/cli.md, docs/reconciliation.md#statements): a statement imported from a CSV file is
// matched like POST /v1/bank-mutations; unmatched credits are assigned or dismissed;
// a bad file names its line and applies nothing. The real CLI as a child process.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { groupDigits } from "../../common/rupiah.js";
import { createCliRunner } from "../helpers/cli.js";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
let dir: string;
test.before(async () => {
  stack = await startStack();
  dir = await mkdtemp(path.join(os.tmpdir(), "statements-"));
});
test.after.always(async () => {
  await runner.stopAll();
  await stack?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const runner = createCliRunner(() => ({ CATALOG_ADDR: stack.catalogAddr, ORDER_ADDR: stack.orderAddr, WEBHOOK_ADDR: stack.orderAddr }));
const ok = (t: ExecutionContext, ...args: string[]) => runner.ok(t, args);
const fails = (t: ExecutionContext, pattern: RegExp, ...args: string[]) => runner.fails(t, args, pattern);

async function shop(name: string) {
  const store = await createStore(stack, Plan.GROWTH, name);
  const product = await createProduct(stack, store.storeId, "Batik Tulis", 350_000);
  const order = async () => {
    const created = await api(stack.baseUrl, "/v1/orders", {
      method: "POST",
      key: store.key,
      json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
    });
    if (created.status !== 201) throw new Error(created.text);
    return { ...created.body.data.order, transfer_amount: created.body.data.payment.seller_bank.transfer_amount as number };
  };
  const statusOf = async (id: string) => (await api(stack.baseUrl, `/v1/orders/${id}`, { key: store.key })).body.data.order.status;
  return { ...store, productId: product.id, order, statusOf };
}

async function statement(lines: string[]): Promise<string> {
  const file = path.join(dir, `${randomUUID()}.csv`);
  await writeFile(file, ["id,occurred_at,amount,type,description", ...lines].join("\n") + "\n");
  return file;
}

const soon = () => new Date(Date.now() + 60_000).toISOString();

test("bank import matches a statement; the rest waits for review, then is assigned or dismissed", async (t) => {
  const s = await shop("Statement Store");
  const [a, b] = [await s.order(), await s.order()];
  const [m1, m2, m3, m4] = [1, 2, 3, 4].map((n) => `BCA-${randomUUID()}-${n}`);
  const file = await statement([
    `${m1},${soon()},${a.transfer_amount},credit,"TRSF CR BUDI, INV 1"`,
    `${m2},${soon()},123456789,credit,TRSF CR SITI`,
    `${m3},${soon()},6500,debit,BIAYA ADM`,
    `${m4},${soon()},987654321,credit,TRSF CR ANDI`,
  ]);
  const imported = await ok(t, "bank", "import", "--store", s.storeId, "--file", file);
  t.deepEqual(imported.results, [
    { id: m1, result: "matched", order_id: a.id, reason: null },
    { id: m2, result: "unmatched", order_id: null, reason: "no order with this amount" },
    { id: m3, result: "ignored", order_id: null, reason: null },
    { id: m4, result: "unmatched", order_id: null, reason: "no order with this amount" },
  ]);
  t.is(await s.statusOf(a.id), "paid");

  const again = await ok(t, "bank", "import", "--store", s.storeId, "--file", file);
  t.deepEqual(again.results.map((r: { result: string }) => r.result), ["duplicate", "duplicate", "duplicate", "duplicate"]);

  const review = await ok(t, "bank", "unmatched", "--store", s.storeId);
  t.deepEqual(review.mutations.map((m: { id: string }) => m.id).sort(), [m2, m4].sort());
  t.is(review.mutations.find((m: { id: string }) => m.id === m2).amount, 123_456_789);

  // The buyer of b sent the wrong amount: refused with the difference in words until a
  // person says the store accepts it, then it pays b.
  const over = groupDigits(123_456_789 - b.transfer_amount);
  await fails(t, new RegExp(`that order ${b.payment_reference} asks for, Rp ${over.replace(/\./g, "\\.")} over: assign it anyway.*add --accept-difference`), "bank", "assign", "--store", s.storeId, "--mutation", m2!, "--order", b.payment_reference);
  t.is(await s.statusOf(b.id), "pending");
  t.true((await ok(t, "bank", "unmatched", "--store", s.storeId)).mutations.some((m: { id: string }) => m.id === m2), "it still waits for review");
  const assigned = await ok(t, "bank", "assign", "--store", s.storeId, "--mutation", m2!, "--order", b.payment_reference, "--accept-difference");
  t.is(assigned.status, "assigned");
  t.is(assigned.order_id, b.id);
  t.is(await s.statusOf(b.id), "paid");
  const shown = await ok(t, "order", "show", "--store", s.storeId, "--order", b.payment_reference);
  t.deepEqual(
    shown.history.map((h: { to_status: string; cause: string; detail: string | null; amount_received: number | null }) => [h.to_status, h.cause, h.detail, h.amount_received]),
    [
      ["pending", "created", null, null],
      ["paid", "bank_mutation", m2, 123_456_789],
    ],
  );
  const dismissed = await ok(t, "bank", "dismiss", "--store", s.storeId, "--mutation", m4!);
  t.is(dismissed.status, "dismissed");
  t.deepEqual((await ok(t, "bank", "unmatched", "--store", s.storeId)).mutations, []);
  await fails(t, /review|precondition/i, "bank", "dismiss", "--store", s.storeId, "--mutation", m4!);

  const { entries } = await ok(t, "audit", "--store", s.storeId);
  t.deepEqual(
    entries.map((e: { action: string; target: string }) => [e.action, e.target]),
    [
      ["bank_mutation.dismissed", `mutation:${m4}`],
      ["bank_mutation.assigned", `mutation:${m2}`],
      ["bank_mutations.imported", `store:${s.storeId}`],
      ["bank_mutations.imported", `store:${s.storeId}`],
      // The shop as the test made it, as the operator: the catalog records each change with it.
      ["product.created", `product:${s.productId}`],
      ["key.created", `key:${s.keyId}`],
      ["store.created", `store:${s.storeId}`],
    ],
  );
});

test("a bad statement names its line and nothing of it is applied", async (t) => {
  const s = await shop("Bad Statement Store");
  const order = await s.order();
  const good = `g-${randomUUID()},${soon()},${order.transfer_amount},credit,ok`;
  await fails(t, /line 1: the header/, "bank", "import", "--store", s.storeId, "--file", await writeRaw("id;amount\n1;2\n"));
  await fails(t, /line 3: amount/, "bank", "import", "--store", s.storeId, "--file", await statement([good, `x-1,${soon()},12.5,credit,half`]));
  await fails(t, /line 3: occurred_at/, "bank", "import", "--store", s.storeId, "--file", await statement([good, `x-2,2026-11-20T10:00:00,5000,credit,no zone`]));
  await fails(t, /line 3: type/, "bank", "import", "--store", s.storeId, "--file", await statement([good, `x-3,${soon()},5000,transfer,what`]));
  await fails(t, /--file .*no such file/, "bank", "import", "--store", s.storeId, "--file", path.join(dir, "missing.csv"));
  t.is(await s.statusOf(order.id), "pending", "the good first line was not applied");
  t.deepEqual((await ok(t, "bank", "unmatched", "--store", s.storeId)).mutations, []);
});

async function writeRaw(text: string): Promise<string> {
  const file = path.join(dir, `${randomUUID()}.csv`);
  await writeFile(file, text);
  return file;
}
