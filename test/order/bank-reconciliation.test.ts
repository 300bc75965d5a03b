// Bank-transfer reconciliation against real PostgreSQL (docs/reconciliation.md), through the order
// service's gRPC API as the gateway, the CLI and the dashboard call it: every result and
// reason, payment with history and events, the grace after expiry, reserved amounts
// handed out least recently used first, ambiguous credits,
// each mutation once even under concurrent calls, one payment per order under racing
// mutations, the review list with assign and dismiss, and a full 500-mutation call.
import test from "ava";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { BankReconciliationService, type MutationResult } from "../../gen/order/v1/bank_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import type { Order } from "../../gen/order/v1/order_pb.js";
import { createRpcChannel, type RpcChannel } from "../../platform/rpc-client.js";
import { OPERATOR } from "../../common/actor.js";
import { waitFor } from "../helpers/http.js";
import { buyer, createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";
import { TEST_INTERNAL_TOKEN } from "../helpers/internal-token.js";

const WINDOW_MS = 2_000;
const GRACE_MS = 6_000;

// `stack` keeps the defaults (24 h to pay, 7 days of grace). On `short` orders expire
// after 2 s and a transfer may come up to 6 s after that; its sweeper runs every 200 ms.
let stack: Stack;
let short: Stack;
const channels: RpcChannel[] = [];
const banks = new Map<Stack, Client<typeof BankReconciliationService>>();

test.before(async () => {
  [stack, short] = await Promise.all([
    startStack(),
    startStack({ orderEnv: { ORDER_PAYMENT_WINDOW: `${WINDOW_MS}ms`, BANK_MATCH_GRACE: `${GRACE_MS}ms` }, sweepEveryMs: 200 }),
  ]);
  for (const s of [stack, short]) {
    const channel = createRpcChannel(s.orderAddr, { timeoutMs: 10_000, actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN });
    channels.push(channel);
    banks.set(s, channel.client(BankReconciliationService));
  }
});
test.after.always(async () => {
  for (const channel of channels) channel.close();
  await Promise.all([stack?.close(), short?.close()]);
});

interface Shop {
  stack: Stack;
  storeId: string;
  productId: string;
}

async function newShop(on: Stack, price = 85_000): Promise<Shop> {
  const store = await createStore(on);
  const product = await createProduct(on, store.storeId, "Paket Kopi", price);
  return { stack: on, storeId: store.storeId, productId: product.id };
}

async function newOrder(shop: Shop, paymentMethod = "bank_transfer"): Promise<Order> {
  const { detail } = await shop.stack.orders.createOrder({
    storeId: shop.storeId,
    items: [{ ref: { case: "productId", value: shop.productId }, quantity: 1 }],
    buyer,
    paymentMethod,
    requestHash: "",
  });
  return detail!.order!;
}

/** `count` orders, `workers` at a time, as concurrent buyers would make them. */
async function manyOrders(shop: Shop, count: number, workers = 8): Promise<Order[]> {
  const made: Order[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < count) {
        next++;
        made.push(await newOrder(shop));
      }
    }),
  );
  return made;
}

type Input = { id: string; amount: bigint; type: string; occurredAt: string; description: string };

/** A credit of `amount` that happened now (after every order made before the call). */
function credit(id: string, amount: bigint | number, occurredAt = new Date()): Input {
  return { id, amount: BigInt(amount), type: "credit", occurredAt: occurredAt.toISOString(), description: `TRF ${id}` };
}

async function reconcile(shop: Shop, mutations: Input[]): Promise<MutationResult[]> {
  return (await banks.get(shop.stack)!.reconcileMutations({ storeId: shop.storeId, mutations })).results;
}

const bank = (shop: Shop) => banks.get(shop.stack)!;

/** What a person sees of a result. */
const plain = (results: MutationResult[]) => results.map(({ id, result, orderId, reason }) => ({ id, result, orderId, reason }));

async function statusOf(shop: Shop, orderId: string): Promise<string> {
  const { detail } = await shop.stack.orders.getOrder({ storeId: shop.storeId, orderId });
  return detail!.order!.status;
}

async function historyOf(shop: Shop, orderId: string) {
  const { history } = await shop.stack.orders.getOrder({ storeId: shop.storeId, orderId, includeHistory: true });
  return history.map((change) => `${change.fromStatus || "∅"}→${change.toStatus} ${change.cause}${change.detail ? ` ${change.detail}` : ""}`);
}

/** The order's events as "type previous→status", sorted (one change's two events share a transaction). */
async function outboxOf(shop: Shop, orderId: string): Promise<string[]> {
  const rows = await shop.stack.orderSql<{ type: string; previous: string | null; status: string }[]>`
    select event_type as type, payload->'data'->>'previous_status' as previous, payload->'data'->'order'->>'status' as status
    from outbox where order_id = ${orderId}`;
  return rows.map((row) => `${row.type} ${row.previous ?? "∅"}→${row.status}`).sort();
}

async function refusal(call: Promise<unknown>): Promise<{ code: Code; message: string }> {
  const error = ConnectError.from(await call.then(() => undefined, (e: unknown) => e));
  return { code: error.code, message: error.rawMessage };
}

test("the order service process serves BankReconciliationService and reports it in gRPC health", async (t) => {
  const channel = createRpcChannel(stack.orderAddr, { actor: OPERATOR, internalToken: TEST_INTERNAL_TOKEN });
  t.teardown(() => channel.close());
  const health = channel.client(Health);
  t.is((await health.check({ service: "order.v1.BankReconciliationService" })).status, HealthCheckResponse_ServingStatus.SERVING);
  t.is((await health.check({ service: "order.v1.OrderService" })).status, HealthCheckResponse_ServingStatus.SERVING);
});

test("a credit of an order's transfer amount pays it, with cause bank_mutation and the mutation id in its history and both events", async (t) => {
  const shop = await newShop(stack);
  const order = await newOrder(shop);
  t.true(order.amount > order.subtotal && order.amount <= order.subtotal + 999n, "the transfer amount carries the unique code");

  const results = await reconcile(shop, [credit("BCA-20261120-0001", order.amount)]);
  t.deepEqual(plain(results), [{ id: "BCA-20261120-0001", result: "matched", orderId: order.id, reason: "" }]);

  t.is(await statusOf(shop, order.id), "paid");
  t.deepEqual(await historyOf(shop, order.id), ["∅→pending created", "pending→paid bank_mutation BCA-20261120-0001"]);
  t.deepEqual(await outboxOf(shop, order.id), ["order.created ∅→pending", "order.paid pending→paid", "orderUpdated pending→paid"]);
  const { mutations } = await bank(shop).listMutations({ storeId: shop.storeId });
  t.like(mutations, [{ id: "BCA-20261120-0001", status: "matched", orderId: order.id, paymentReference: order.paymentReference, amount: order.amount, reason: "" }]);
  t.is((await bank(shop).countUnreviewed({ storeId: shop.storeId })).count, 0n);
});

test("debits are ignored and recorded; credits no order carries are unmatched and wait for review", async (t) => {
  const shop = await newShop(stack);
  const order = await newOrder(shop);
  const results = await reconcile(shop, [
    { ...credit("D-1", order.amount), type: "debit" },
    credit("C-1", 12_345),
    credit("C-2", order.subtotal),
  ]);
  t.deepEqual(plain(results), [
    { id: "D-1", result: "ignored", orderId: "", reason: "" },
    { id: "C-1", result: "unmatched", orderId: "", reason: "no order with this amount" },
    { id: "C-2", result: "unmatched", orderId: "", reason: "no order with this amount" },
  ]);
  t.is(await statusOf(shop, order.id), "pending", "a debit of the same amount pays nothing");
  const all = await bank(shop).listMutations({ storeId: shop.storeId });
  t.deepEqual(
    all.mutations.map((m) => `${m.id} ${m.type} ${m.status}`),
    ["C-2 credit unmatched", "C-1 credit unmatched", "D-1 debit ignored"],
    "newest first",
  );
  const review = await bank(shop).listMutations({ storeId: shop.storeId, review: true });
  t.deepEqual(review.mutations.map((m) => m.id), ["C-2", "C-1"]);
  t.like(review.mutations[1], { amount: 12_345n, description: "TRF C-1", reason: "no order with this amount", orderId: "", reviewedAt: "" });
  t.is((await bank(shop).countUnreviewed({ storeId: shop.storeId })).count, 2n);
  t.is((await bank(shop).listMutations({ storeId: shop.storeId, limit: 1 })).mutations.length, 1);
});

test("two credits of one amount in one call: the earlier in the request pays, the later is a double payment", async (t) => {
  const shop = await newShop(stack);
  const [first, second] = await manyOrders(shop, 2, 1);
  const results = await reconcile(shop, [
    credit("X-1", second!.amount),
    credit("Y-1", first!.amount),
    credit("X-2", second!.amount),
    credit("Y-2", first!.amount),
  ]);
  t.deepEqual(plain(results), [
    { id: "X-1", result: "matched", orderId: second!.id, reason: "" },
    { id: "Y-1", result: "matched", orderId: first!.id, reason: "" },
    { id: "X-2", result: "unmatched", orderId: "", reason: "order already paid" },
    { id: "Y-2", result: "unmatched", orderId: "", reason: "order already paid" },
  ]);
});

test("a transfer dated before the order was made does not pay it", async (t) => {
  const shop = await newShop(stack);
  const order = await newOrder(shop);
  const before = new Date(Date.parse(order.createdAt) - 60_000);
  const results = await reconcile(shop, [credit("EARLY", order.amount, before)]);
  t.deepEqual(plain(results), [{ id: "EARLY", result: "unmatched", orderId: "", reason: "transfer before order" }]);
  t.is(await statusOf(shop, order.id), "pending");
});

test("a transfer for a cancelled order is unmatched: order cancelled", async (t) => {
  const shop = await newShop(stack);
  const order = await newOrder(shop);
  await stack.orders.cancelOrder({ storeId: shop.storeId, orderId: order.id });
  const results = await reconcile(shop, [credit("LATE", order.amount)]);
  t.deepEqual(plain(results), [{ id: "LATE", result: "unmatched", orderId: "", reason: "order cancelled" }]);
  t.is(await statusOf(shop, order.id), "cancelled");
});

test("a second transfer for a paid order is a double payment: order already paid, nothing changes", async (t) => {
  const shop = await newShop(stack);
  const order = await newOrder(shop);
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: order.id });
  const results = await reconcile(shop, [credit("TWICE", order.amount)]);
  t.deepEqual(plain(results), [{ id: "TWICE", result: "unmatched", orderId: "", reason: "order already paid" }]);
  t.deepEqual(await historyOf(shop, order.id), ["∅→pending created", "pending→paid marked paid by the seller"]);
  t.is((await bank(shop).countUnreviewed({ storeId: shop.storeId })).count, 1n, "it waits for someone to refund it");
});

test("a mutation sent again is a duplicate with the first result's order, and pays nothing twice", async (t) => {
  const shop = await newShop(stack);
  const order = await newOrder(shop);
  const first = await reconcile(shop, [credit("M-1", order.amount), credit("M-2", 777), { ...credit("M-3", 5), type: "debit" }]);
  t.deepEqual(first.map((r) => r.result), ["matched", "unmatched", "ignored"]);
  // Sent again, even with other contents: the id decides.
  const again = await reconcile(shop, [credit("M-3", 1), credit("M-2", order.amount), credit("M-1", order.amount)]);
  t.deepEqual(plain(again), [
    { id: "M-3", result: "duplicate", orderId: "", reason: "" },
    { id: "M-2", result: "duplicate", orderId: "", reason: "" },
    { id: "M-1", result: "duplicate", orderId: order.id, reason: "" },
  ]);
  t.deepEqual(await historyOf(shop, order.id), ["∅→pending created", "pending→paid bank_mutation M-1"]);
  t.is((await bank(shop).listMutations({ storeId: shop.storeId })).mutations.length, 3);
});

test("the same mutation in concurrent calls pays once: one matched, the others duplicate with its order", async (t) => {
  const shop = await newShop(stack);
  const orders = await manyOrders(shop, 4, 4);
  // Four orders, each raced for by four calls carrying the same mutation.
  const calls = orders.flatMap((order, n) => Array.from({ length: 4 }, () => reconcile(shop, [credit(`RACE-${n}`, order.amount)])));
  const results = (await Promise.all(calls)).flat();
  for (const [n, order] of orders.entries()) {
    const mine = results.filter((r) => r.id === `RACE-${n}`);
    t.deepEqual(mine.map((r) => r.result).sort(), ["duplicate", "duplicate", "duplicate", "matched"]);
    t.true(mine.every((r) => r.orderId === order.id));
    t.deepEqual(await historyOf(shop, order.id), ["∅→pending created", `pending→paid bank_mutation RACE-${n}`]);
    t.is((await outboxOf(shop, order.id)).filter((event) => event.startsWith("order.paid")).length, 1);
  }
});

test("two different transfers for one order racing: one pays it, the other is order already paid", async (t) => {
  const shop = await newShop(stack);
  const orders = await manyOrders(shop, 5, 5);
  const calls = orders.flatMap((order, n) => [reconcile(shop, [credit(`A-${n}`, order.amount)]), reconcile(shop, [credit(`B-${n}`, order.amount)])]);
  const results = (await Promise.all(calls)).flat();
  for (const [n, order] of orders.entries()) {
    const pair = results.filter((r) => r.id.endsWith(`-${n}`));
    const winner = pair.find((r) => r.result === "matched");
    const loser = pair.find((r) => r.result !== "matched");
    t.truthy(winner, `order ${n} was paid`);
    t.like(loser, { result: "unmatched", reason: "order already paid", orderId: "" });
    t.deepEqual(await historyOf(shop, order.id), ["∅→pending created", `pending→paid bank_mutation ${winner!.id}`]);
    t.is((await outboxOf(shop, order.id)).filter((event) => event.startsWith("order.paid")).length, 1);
  }
});

test("assign: a person pays an order with an unmatched credit (by reference), once; it leaves the review list", async (t) => {
  const shop = await newShop(stack);
  const order = await newOrder(shop);
  // The buyer left the unique code off.
  const [result] = await reconcile(shop, [credit("NO-CODE", order.subtotal)]);
  t.like(result, { result: "unmatched", reason: "no order with this amount" });
  t.is((await bank(shop).countUnreviewed({ storeId: shop.storeId })).count, 1n);

  // Short by the code: the person says they accept the difference (docs/reconciliation.md#review).
  const { mutation } = await bank(shop).assignMutation({ storeId: shop.storeId, mutationId: "NO-CODE", paymentReference: order.paymentReference, acceptAmountDifference: true });
  t.like(mutation, { id: "NO-CODE", status: "assigned", orderId: order.id, paymentReference: order.paymentReference, reason: "no order with this amount" });
  t.true(Date.parse(mutation!.reviewedAt) > 0);
  t.is(await statusOf(shop, order.id), "paid");
  t.deepEqual(await historyOf(shop, order.id), ["∅→pending created", "pending→paid bank_mutation NO-CODE"]);
  t.deepEqual(await outboxOf(shop, order.id), ["order.created ∅→pending", "order.paid pending→paid", "orderUpdated pending→paid"]);
  t.is((await bank(shop).countUnreviewed({ storeId: shop.storeId })).count, 0n);
  t.deepEqual((await bank(shop).listMutations({ storeId: shop.storeId, review: true })).mutations, []);

  // Reviewed once: neither assigned again nor dismissed.
  t.like(await refusal(bank(shop).assignMutation({ storeId: shop.storeId, mutationId: "NO-CODE", orderId: order.id })), {
    code: Code.FailedPrecondition,
    message: "mutation NO-CODE is assigned, not waiting for review",
  });
  t.like(await refusal(bank(shop).dismissMutation({ storeId: shop.storeId, mutationId: "NO-CODE" })), { code: Code.FailedPrecondition });
  // Sent again by the feed, it names the order it paid.
  t.like((await reconcile(shop, [credit("NO-CODE", order.subtotal)]))[0], { result: "duplicate", orderId: order.id });
});

test("assign refuses what cannot be paid and leaves the mutation waiting", async (t) => {
  const shop = await newShop(stack);
  const other = await newShop(stack);
  const paid = await newOrder(shop);
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: paid.id });
  const cancelled = await newOrder(shop);
  await stack.orders.cancelOrder({ storeId: shop.storeId, orderId: cancelled.id });
  const card = await newOrder(shop, "qris");
  const elsewhere = await newOrder(other);
  await reconcile(shop, [credit("WAIT", 1_000)]);
  const assign = (fields: { orderId?: string; paymentReference?: string }) =>
    refusal(bank(shop).assignMutation({ storeId: shop.storeId, mutationId: "WAIT", ...fields }));

  t.like(await assign({ orderId: paid.id }), { code: Code.FailedPrecondition, message: `order ${paid.paymentReference} is already paid` });
  t.like(await assign({ orderId: cancelled.id }), { code: Code.FailedPrecondition, message: `order ${cancelled.paymentReference} cannot go from cancelled to paid` });
  t.like(await assign({ orderId: card.id }), { code: Code.FailedPrecondition, message: `order ${card.paymentReference} is not a bank-transfer order` });
  t.like(await assign({ orderId: elsewhere.id }), { code: Code.NotFound });
  t.like(await assign({ paymentReference: elsewhere.paymentReference }), { code: Code.NotFound });
  t.like(await refusal(bank(shop).assignMutation({ storeId: shop.storeId, mutationId: "NOPE", orderId: paid.id })), {
    code: Code.NotFound,
    message: "mutation NOPE not found",
  });
  t.like(await refusal(bank(other).dismissMutation({ storeId: other.storeId, mutationId: "WAIT" })), { code: Code.NotFound }, "another store's mutation");

  t.like((await bank(shop).listMutations({ storeId: shop.storeId, review: true })).mutations, [{ id: "WAIT", status: "unmatched" }]);
  t.deepEqual(await historyOf(shop, paid.id), ["∅→pending created", "pending→paid marked paid by the seller"]);
  t.is(await statusOf(other, elsewhere.id), "pending");
});

test("dismiss takes a credit off the review list and pays nothing", async (t) => {
  const shop = await newShop(stack);
  const order = await newOrder(shop);
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: order.id });
  await reconcile(shop, [credit("REFUNDED-BY-HAND", order.amount), credit("KEEP", 4_242)]);
  const { mutation } = await bank(shop).dismissMutation({ storeId: shop.storeId, mutationId: "REFUNDED-BY-HAND" });
  t.like(mutation, { id: "REFUNDED-BY-HAND", status: "dismissed", reason: "order already paid", orderId: "" });
  t.true(Date.parse(mutation!.reviewedAt) > 0);
  t.deepEqual((await bank(shop).listMutations({ storeId: shop.storeId, review: true })).mutations.map((m) => m.id), ["KEEP"]);
  t.is((await bank(shop).countUnreviewed({ storeId: shop.storeId })).count, 1n);
  t.like(await refusal(bank(shop).dismissMutation({ storeId: shop.storeId, mutationId: "REFUNDED-BY-HAND" })), { code: Code.FailedPrecondition });
  t.like(await refusal(bank(shop).dismissMutation({ storeId: shop.storeId, mutationId: "NEVER-SENT" })), { code: Code.NotFound });
});

// Serial (ava runs those before the rest): the time measured is the call's own, not
// that of the thousands of orders the other tests of this file make meanwhile.
test.serial("a 500-mutation call answers in request order, pays each matching order, and is all duplicates when sent again", async (t) => {
  const shop = await newShop(stack, 64_000);
  const orders = await manyOrders(shop, 20);
  const mutations = Array.from({ length: 500 }, (_, i): Input => {
    if (i % 25 === 0) return credit(`STMT-${i}`, orders[i / 25]!.amount);
    if (i % 5 === 1) return { ...credit(`STMT-${i}`, 10_000 + i), type: "debit" };
    return credit(`STMT-${i}`, 1_000 + i);
  });
  const started = Date.now();
  const results = await reconcile(shop, mutations);
  const took = Date.now() - started;
  t.log(`500 mutations in ${took} ms`);
  t.true(took < 8_000, `took ${took} ms; the gateway waits 10 s`);
  t.deepEqual(results.map((r) => r.id), mutations.map((m) => m.id));
  t.deepEqual(
    results.map((r) => r.result),
    mutations.map((_, i) => (i % 25 === 0 ? "matched" : i % 5 === 1 ? "ignored" : "unmatched")),
  );
  for (const [n, order] of orders.entries()) {
    t.is(results[n * 25]!.orderId, order.id);
    t.is(await statusOf(shop, order.id), "paid");
  }
  t.is((await bank(shop).countUnreviewed({ storeId: shop.storeId })).count, 380n);

  const again = await reconcile(shop, mutations);
  t.true(again.every((r) => r.result === "duplicate"));
  t.deepEqual(again.map((r) => r.orderId), results.map((r) => r.orderId));
});

test("reserved amounts: a cancelled order keeps its amount, a paid one frees it, and all 999 taken is RESOURCE_EXHAUSTED as before", async (t) => {
  const shop = await newShop(stack, 30_000);
  const orders = await manyOrders(shop, 999);
  t.is(new Set(orders.map((o) => o.amount)).size, 999, "concurrent orders never share an amount");
  const full = await refusal(newOrder(shop));
  t.like(full, { code: Code.ResourceExhausted });
  t.regex(full.message, /every unique amount code for this amount is taken/);

  await stack.orders.cancelOrder({ storeId: shop.storeId, orderId: orders[0]!.id });
  t.like(await refusal(newOrder(shop)), { code: Code.ResourceExhausted }, "a cancelled order's amount stays reserved through the grace");

  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: orders[1]!.id });
  t.is((await newOrder(shop)).amount, orders[1]!.amount, "the paid order's amount is the only free one");

  t.like((await reconcile(shop, [credit("PAYS-2", orders[2]!.amount)]))[0], { result: "matched", orderId: orders[2]!.id });
  t.is((await newOrder(shop)).amount, orders[2]!.amount, "a payment by transfer frees the amount too");
  t.like(await refusal(newOrder(shop)), { code: Code.ResourceExhausted });
});

/** Until the sweeper has written the order expired. */
async function untilExpired(shop: Shop, orderId: string) {
  await waitFor(async () => {
    const [row] = await shop.stack.orderSql<{ status: string }[]>`select status from orders where id = ${orderId}`;
    return row?.status === "expired";
  }, 30_000, 50);
}

async function until(ms: number) {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now())));
}

test("grace: an expired order is paid by a transfer made up to BANK_MATCH_GRACE after its expiry, not later", async (t) => {
  const shop = await newShop(short);
  const [late, tooLate] = [await newOrder(shop), await newOrder(shop)];
  await untilExpired(shop, late.id);
  await untilExpired(shop, tooLate.id);

  t.like((await reconcile(shop, [credit("LATE", late.amount)]))[0], { result: "matched", orderId: late.id });
  t.deepEqual(await historyOf(shop, late.id), ["∅→pending created", "pending→expired expiry", "expired→paid bank_mutation LATE"]);
  t.deepEqual(await outboxOf(shop, late.id), [
    "order.created ∅→pending",
    "order.expired pending→expired",
    "order.paid expired→paid",
    "orderUpdated expired→paid",
    "orderUpdated pending→expired",
  ]);

  const graceEnds = Date.parse(tooLate.expiresAt) + GRACE_MS;
  await until(graceEnds + 200);
  t.like((await reconcile(shop, [credit("TOO-LATE", tooLate.amount)]))[0], { result: "unmatched", reason: "no order with this amount" });
  t.is(await statusOf(shop, tooLate.id), "expired");
  // What counts is when the money moved, not when the feed reported it.
  const movedInTime = new Date(graceEnds - 1_000);
  t.like((await reconcile(shop, [credit("REPORTED-LATE", tooLate.amount, movedInTime)]))[0], { result: "matched", orderId: tooLate.id });
});

test("reservation across expiry: within the grace no new order reuses an expired order's amount; after it, a late transfer still pays the old order, not the new one", async (t) => {
  const shop = await newShop(stack, 50_000);
  const old = await newOrder(shop);
  const others = await manyOrders(shop, 998);
  // A hundred codes come free (paid orders give theirs back) for the new orders below.
  const freed = others.slice(0, 100);
  for (const order of freed) await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: order.id });

  // The old order's payment window ran out almost 7 days ago (its clock moved on; the
  // read expires it as it would any overdue order): its grace ends in a few seconds.
  const graceEnds = Date.now() + 10_000;
  await stack.orderSql`update orders set expires_at = ${new Date(graceEnds - 7 * 86_400_000)} where id = ${old.id}`;
  t.is(await statusOf(shop, old.id), "expired");

  const newer = await manyOrders(shop, 100);
  t.deepEqual(
    newer.map((o) => o.amount).sort(),
    freed.map((o) => o.amount).sort(),
    "a hundred new orders take exactly the freed amounts, never the expired order's",
  );
  t.like(await refusal(newOrder(shop)), { code: Code.ResourceExhausted });
  t.true(Date.now() < graceEnds, "all of that happened within the grace (a machine this slow makes the test meaningless)");

  await until(graceEnds + 100);
  const reuser = await newOrder(shop);
  t.is(reuser.amount, old.amount, "after the grace the amount is free again");

  const [lateForOld] = await reconcile(shop, [credit("FOR-OLD", old.amount, new Date(graceEnds - 500))]);
  t.like(lateForOld, { result: "matched", orderId: old.id });
  t.deepEqual(await historyOf(shop, old.id), ["∅→pending created", "pending→expired expiry", "expired→paid bank_mutation FOR-OLD"]);
  t.is(await statusOf(shop, reuser.id), "pending");
  // The old order was paid with this amount just now: another transfer of it may be its
  // buyer paying twice as well as the new order's payment, so a person decides.
  const [forNew] = await reconcile(shop, [credit("FOR-NEW", reuser.amount)]);
  t.like(forNew, { result: "unmatched", reason: "ambiguous", orderId: "" });
  t.is(await statusOf(shop, reuser.id), "pending");
});

test("codes run low: a paid order's code goes to a new order only after every other is used, oldest release first, and a second transfer of it waits for review as ambiguous", async (t) => {
  const shop = await newShop(stack, 45_000);
  const a = await newOrder(shop);
  t.like((await reconcile(shop, [credit("A-PAID", a.amount)]))[0], { result: "matched", orderId: a.id });

  // A's code is free again, but the 998 codes never used all come first.
  const others = await manyOrders(shop, 998);
  t.false(others.some((order) => order.amount === a.amount), "no order took A's code while one never used was left");
  t.is(new Set([a, ...others].map((order) => order.amount)).size, 999);

  // Another order is paid after A: of the two free codes, A's was released first.
  const c = others[0]!;
  t.like((await reconcile(shop, [credit("C-PAID", c.amount)]))[0], { result: "matched", orderId: c.id });
  const b = await newOrder(shop);
  t.is(b.amount, a.amount, "the least recently used code: A's");
  const d = await newOrder(shop);
  t.is(d.amount, c.amount, "then C's");
  t.like(await refusal(newOrder(shop)), { code: Code.ResourceExhausted });

  // A second transfer of A's amount: A's buyer paying twice, or B's payment? Not B's automatically.
  t.deepEqual(plain(await reconcile(shop, [credit("A-AGAIN", a.amount)])), [{ id: "A-AGAIN", result: "unmatched", orderId: "", reason: "ambiguous" }]);
  t.is(await statusOf(shop, b.id), "pending");
  t.deepEqual(await historyOf(shop, b.id), ["∅→pending created"]);
  t.deepEqual(await historyOf(shop, a.id), ["∅→pending created", "pending→paid bank_mutation A-PAID"]);
  const review = await bank(shop).listMutations({ storeId: shop.storeId, review: true });
  t.like(review.mutations, [{ id: "A-AGAIN", status: "unmatched", reason: "ambiguous", amount: a.amount }]);

  // A person who checked the statement pays B with it.
  const { mutation } = await bank(shop).assignMutation({ storeId: shop.storeId, mutationId: "A-AGAIN", orderId: b.id });
  t.like(mutation, { status: "assigned", orderId: b.id, reason: "ambiguous" });
  t.is(await statusOf(shop, b.id), "paid");
});

test("a credit that finds its order locked waits, then judges the order as the other transaction left it", async (t) => {
  const shop = await newShop(stack);
  const order = await newOrder(shop);
  const sql = stack.orderSql;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // Another payment holds the order; it commits only once the credit is waiting for it.
  const other = sql.begin(async (tx) => {
    await tx`select id from orders where id = ${order.id} for update`;
    await released;
    await tx`update orders set status = 'paid', updated_at = clock_timestamp() where id = ${order.id}`;
  });
  const credited = reconcile(shop, [credit("WAITS", order.amount)]);
  // The credit's own wait on the order row (any other session's lock wait is not it).
  await waitFor(async () => {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query ilike '%from orders%'`;
    return row!.n > 0;
  });
  release();
  await other;
  t.deepEqual(plain(await credited), [{ id: "WAITS", result: "unmatched", orderId: "", reason: "order already paid" }]);
  t.deepEqual(await historyOf(shop, order.id), ["∅→pending created"], "the credit wrote no second payment");
});
