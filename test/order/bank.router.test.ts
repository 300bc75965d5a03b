// BankReconciliationService in memory (createRouterTransport): the real routes and
// domain modules over a database of the test's own, behind the production server
// interceptors. Argument checks (each names its field and applies nothing), store
// scoping, and what is logged. Matching against PostgreSQL is bank-reconciliation.test.ts.
import { OPERATOR } from "../../common/actor.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import test, { type ExecutionContext } from "ava";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { pino } from "pino";
import { BankReconciliationService } from "../../gen/order/v1/bank_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { createOrderDomain } from "../../services/order/domain.js";
import { createOrderRoutes } from "../../services/order/routes.js";
import { serverInterceptors } from "../../platform/rpc-server.js";
import { fakeGateway } from "../helpers/fake-payment-gateway.js";
import { orderTables } from "../helpers/order-tables.js";
import { capturingLogger } from "../helpers/logs.js";
import { fieldViolations } from "../../platform/field-errors.js";
import { rupiah } from "../../common/rupiah.js";
import { KOPI, OTHER, SHOP, TEH, twoShopServices } from "../helpers/two-shops.js";

const silent = pino({ level: "silent" });
const MISSING = "99999999-9999-4999-8999-999999999999";


const gateway = fakeGateway();

async function setup(t: ExecutionContext) {
  const tables = await orderTables(t);
  const logs: Record<string, unknown>[] = [];
  const logger = capturingLogger(logs);
  const domain = createOrderDomain({
    sql: tables.sql,
    logger,
    ...twoShopServices,
    gateway,
    publicBaseUrl: "https://shop.example",
    paymentWindowMs: 3_600_000,
    midtransServerKey: "server-key",
  });
  const transport = createRouterTransport(createOrderRoutes(domain), { router: { interceptors: serverInterceptors(silent) }, transport: { interceptors: [actorInterceptor(OPERATOR)] } });
  const bank = createClient(BankReconciliationService, transport);
  const orders = createClient(OrderService, transport);
  async function newOrder(storeId = SHOP) {
    const { detail } = await orders.createOrder({
      storeId,
      items: [{ ref: { case: "productId", value: storeId === SHOP ? KOPI : TEH }, quantity: 1 }],
      buyer: { name: "Budi", email: "budi@example.co.id", phone: "+6281234567890" },
      paymentMethod: "bank_transfer",
      requestHash: "",
    });
    return detail!.order!;
  }
  return { tables, logs, bank, orders, newOrder };
}

type Input = { id: string; amount: bigint; type: string; occurredAt: string; description: string };

/** A credit that happened now (after any order the test made before calling this). */
function mutation(fields: Partial<Input> = {}): Input {
  return { id: "M-1", amount: 15_001n, type: "credit", occurredAt: new Date().toISOString(), description: "TRF BUDI", ...fields };
}

/** The code and the field the FieldViolation names. */
async function refusal(call: Promise<unknown>): Promise<{ code: Code; field?: string; message: string }> {
  const error = ConnectError.from(await call.then(() => undefined, (e: unknown) => e));
  return { code: error.code, field: fieldViolations(error)[0]?.field, message: error.rawMessage };
}

const valid = (n: number) => Array.from({ length: n }, (_, i) => mutation({ id: `M-${i}` }));

// Built after the test's order exists, so each valid mutation beside the bad one would
// pay it if anything were applied.
const badBatches: [string, () => Input[], string, RegExp][] = [
  ["no mutations", () => [], "mutations", /1 to 500/],
  ["501 mutations", () => valid(501), "mutations", /1 to 500/],
  ["an empty id", () => [...valid(3), mutation({ id: "" })], "mutations[3].id", /1 to 100 characters/],
  ["an id of 101 characters", () => [mutation({ id: "x".repeat(101) })], "mutations[0].id", /1 to 100 characters/],
  ["an id twice in one request", () => [mutation({ id: "A" }), mutation({ id: "B" }), mutation({ id: "A" })], "mutations[2].id", /repeats mutations\[0\]\.id/],
  ["amount 0", () => [...valid(3), mutation({ id: "Z", amount: 0n })], "mutations[3].amount", /from 1 to 10000000000000/],
  ["a negative amount", () => [...valid(1), mutation({ id: "Z", amount: -5n })], "mutations[1].amount", /whole number/],
  ["an amount over 10^13", () => [mutation({ amount: 10_000_000_000_001n })], "mutations[0].amount", /whole number/],
  ["type CREDIT", () => [...valid(1), mutation({ id: "Z", type: "CREDIT" })], "mutations[1].type", /credit or debit/],
  ["no type", () => [mutation({ type: "" })], "mutations[0].type", /credit or debit/],
  ["a time without an offset", () => [...valid(2), mutation({ id: "Z", occurredAt: "2026-11-20T10:00:00" })], "mutations[2].occurred_at", /offset/],
  ["a date alone", () => [mutation({ occurredAt: "2026-11-20" })], "mutations[0].occurred_at", /RFC 3339/],
  ["a space for the T", () => [mutation({ occurredAt: "2026-11-20 10:00:00+07:00" })], "mutations[0].occurred_at", /RFC 3339/],
  ["February 30th", () => [mutation({ occurredAt: "2026-02-30T10:00:00Z" })], "mutations[0].occurred_at", /RFC 3339/],
  ["no time at all", () => [mutation({ occurredAt: "" })], "mutations[0].occurred_at", /RFC 3339/],
  ["a description of 501 characters", () => [...valid(1), mutation({ id: "Z", description: "d".repeat(501) })], "mutations[1].description", /at most 500/],
];

for (const [what, build, field, message] of badBatches) {
  test(`ReconcileMutations refuses ${what}: INVALID_ARGUMENT on ${field}, nothing applied`, async (t) => {
    const { bank, tables, newOrder } = await setup(t);
    const order = await newOrder();
    const batch = build().map((m) => (m.amount === 15_001n ? { ...m, amount: order.amount } : m));
    const answer = await refusal(bank.reconcileMutations({ storeId: SHOP, mutations: batch }));
    t.is(answer.code, Code.InvalidArgument);
    t.is(answer.field, field);
    t.regex(answer.message, message);
    t.true(answer.message.startsWith(`${field}: `), "the message names the field first, as the statement import reads it");
    t.is(await tables.count("bank_mutations"), 0);
    t.is((await tables.order(order.id))!.status, "pending");
  });
}

test("the valid part of those batches alone would have paid the order", async (t) => {
  const { bank, tables, newOrder } = await setup(t);
  const order = await newOrder();
  const { results } = await bank.reconcileMutations({ storeId: SHOP, mutations: [mutation({ amount: order.amount })] });
  t.like(results, [{ id: "M-1", result: "matched", orderId: order.id }]);
  t.is((await tables.order(order.id))!.status, "paid");
});

test("ReconcileMutations accepts every rule's edge: 500 mutations, 100-character ids, 10^13, 500-character descriptions, any offset", async (t) => {
  const { bank } = await setup(t);
  const batch = valid(500);
  batch[0] = mutation({ id: "i".repeat(100), amount: 10_000_000_000_000n, description: "d".repeat(500) });
  batch[1] = mutation({ id: "M-1", occurredAt: "2026-11-20T10:00:00.123456789+07:00", description: "" });
  batch[2] = mutation({ id: "M-2", occurredAt: "2026-11-20t03:00:00z", type: "debit" });
  const { results } = await bank.reconcileMutations({ storeId: SHOP, mutations: batch });
  t.is(results.length, 500);
  t.like(results[0], { id: "i".repeat(100), result: "unmatched", reason: "no order with this amount" });
  t.like(results[2], { id: "M-2", result: "ignored" });
});

test("every RPC checks store_id, and the review calls their ids", async (t) => {
  const { bank } = await setup(t);
  t.like(await refusal(bank.reconcileMutations({ storeId: "shop", mutations: [mutation()] })), { code: Code.InvalidArgument, field: "store_id" });
  t.like(await refusal(bank.listMutations({ storeId: "" })), { code: Code.InvalidArgument, field: "store_id" });
  t.like(await refusal(bank.countUnreviewed({ storeId: "x" })), { code: Code.InvalidArgument, field: "store_id" });
  t.like(await refusal(bank.listMutations({ storeId: SHOP, limit: -1 })), { code: Code.InvalidArgument, field: "limit" });
  t.like(await refusal(bank.listMutations({ storeId: SHOP, limit: 501 })), { code: Code.InvalidArgument, field: "limit" });
  t.like(await refusal(bank.dismissMutation({ storeId: SHOP, mutationId: "" })), { code: Code.InvalidArgument, field: "mutation_id" });
  t.like(await refusal(bank.assignMutation({ storeId: SHOP, mutationId: "x".repeat(101), orderId: MISSING })), {
    code: Code.InvalidArgument,
    field: "mutation_id",
  });
  t.like(await refusal(bank.assignMutation({ storeId: SHOP, mutationId: "M-1" })), { code: Code.InvalidArgument, field: "order_id" });
  t.like(await refusal(bank.assignMutation({ storeId: SHOP, mutationId: "M-1", orderId: MISSING, paymentReference: "SO-ABCDEFGH2345" })), {
    code: Code.InvalidArgument,
    field: "order_id",
  });
  t.like(await refusal(bank.assignMutation({ storeId: SHOP, mutationId: "M-1", orderId: "nope" })), { code: Code.InvalidArgument, field: "order_id" });
  t.like(await refusal(bank.assignMutation({ storeId: SHOP, mutationId: "M-1", paymentReference: "so 12" })), {
    code: Code.InvalidArgument,
    field: "payment_reference",
  });
});

test("a control character anywhere in a mutation is refused before anything is applied", async (t) => {
  const { bank, tables } = await setup(t);
  const answer = await refusal(bank.reconcileMutations({ storeId: SHOP, mutations: [mutation(), mutation({ id: "M-2", description: "a\u0000b" })] }));
  t.is(answer.code, Code.InvalidArgument);
  t.is(answer.field, "mutations[1].description");
  t.is(await tables.count("bank_mutations"), 0);
});

test("one store's mutations and orders are invisible to another", async (t) => {
  const { bank, newOrder, tables } = await setup(t);
  const mine = await newOrder(SHOP);
  const theirs = await newOrder(OTHER);

  // The same mutation id is a new mutation in another store, and it never pays another store's order.
  const other = await bank.reconcileMutations({ storeId: OTHER, mutations: [mutation({ id: "M-1", amount: 99n })] });
  t.like(other.results[0], { result: "unmatched", reason: "no order with this amount" });
  const onlyMine = await bank.reconcileMutations({ storeId: SHOP, mutations: [mutation({ id: "M-1", amount: 99n })] });
  t.like(onlyMine.results[0], { result: "unmatched", orderId: "" }, "not a duplicate of the other store's M-1");
  t.is((await tables.order(theirs.id))!.status, "pending");
  t.is((await tables.order(mine.id))!.status, "pending");

  t.deepEqual(
    (await bank.listMutations({ storeId: OTHER, review: true })).mutations.map((m) => m.amount),
    [99n],
  );
  t.is((await bank.countUnreviewed({ storeId: OTHER })).count, 1n);
  t.is((await bank.countUnreviewed({ storeId: MISSING })).count, 0n);
  t.deepEqual((await bank.listMutations({ storeId: MISSING })).mutations, []);

  // OTHER's mutation cannot be reviewed by SHOP, and SHOP's order cannot be paid by OTHER.
  t.like(await refusal(bank.dismissMutation({ storeId: MISSING, mutationId: "M-1" })), { code: Code.NotFound });
  t.like(await refusal(bank.assignMutation({ storeId: OTHER, mutationId: "M-1", orderId: mine.id })), { code: Code.NotFound, message: `order ${mine.id} not found` });
  t.like(await refusal(bank.assignMutation({ storeId: OTHER, mutationId: "M-1", paymentReference: mine.paymentReference })), { code: Code.NotFound });
  t.is((await tables.order(mine.id))!.status, "pending");
  t.like((await bank.listMutations({ storeId: OTHER, review: true })).mutations[0], { status: "unmatched", reviewedAt: "" });

  // Its own order, by reference in any letter case, it may pay.
  const { mutation: assigned } = await bank.assignMutation({
    storeId: OTHER,
    mutationId: "M-1",
    paymentReference: theirs.paymentReference.toLowerCase(),
    acceptAmountDifference: true,
  });
  t.like(assigned, { status: "assigned", orderId: theirs.id, paymentReference: theirs.paymentReference });
  t.is((await tables.order(theirs.id))!.status, "paid");
});

test("one log line per call, with counts and without descriptions", async (t) => {
  const { bank, logs, newOrder } = await setup(t);
  const order = await newOrder();
  const secret = "BUYER NOTE 0812-SECRET";
  await bank.reconcileMutations({
    storeId: SHOP,
    mutations: [
      mutation({ id: "A", amount: order.amount, description: secret }),
      mutation({ id: "B", type: "debit", description: secret }),
      mutation({ id: "C", amount: 7n, description: secret }),
    ],
  });
  await bank.reconcileMutations({ storeId: SHOP, mutations: [mutation({ id: "A", amount: order.amount, description: secret })] });
  const lines = logs.filter((line) => line.msg === "bank mutations reconciled");
  t.like(lines, [
    { storeId: SHOP, mutations: 3, processed: 3, matched: 1, unmatched: 1, duplicate: 0, ignored: 1 },
    { storeId: SHOP, mutations: 1, processed: 1, matched: 0, unmatched: 0, duplicate: 1, ignored: 0 },
  ]);
  t.false(JSON.stringify(logs).includes(secret));
});

test("AssignMutation with a credit that differs from the order's transfer amount is refused, the difference in words, until it is accepted; the history and the audit entry then record what arrived", async (t) => {
  const { bank, orders, tables, newOrder } = await setup(t);
  const order = await newOrder();
  const over = await newOrder();
  const short = order.amount - 152n;
  await bank.reconcileMutations({ storeId: SHOP, mutations: [mutation({ id: "M-SHORT", amount: short }), mutation({ id: "M-OVER", amount: over.amount + 1_000n })] });

  const refused = await refusal(bank.assignMutation({ storeId: SHOP, mutationId: "M-SHORT", paymentReference: order.paymentReference }));
  t.is(refused.code, Code.FailedPrecondition);
  t.is(
    refused.message,
    `the transfer of ${rupiah(short)} is not the ${rupiah(order.amount)} that order ${order.paymentReference} asks for, Rp 152 short: assign it anyway only if the store accepts the difference`,
  );
  t.regex((await refusal(bank.assignMutation({ storeId: SHOP, mutationId: "M-OVER", orderId: over.id }))).message, / asks for, Rp 1\.000 over: /);
  // Nothing was paid, and both credits still wait for a person.
  t.is((await tables.order(order.id))!.status, "pending");
  t.is((await tables.order(over.id))!.status, "pending");
  t.deepEqual((await bank.listMutations({ storeId: SHOP, review: true })).mutations.map((m) => m.id).sort(), ["M-OVER", "M-SHORT"]);
  t.deepEqual((await orders.listAudit({ storeId: SHOP, action: "bank_mutation.assigned" })).entries, []);

  const { mutation: assigned } = await bank.assignMutation({ storeId: SHOP, mutationId: "M-SHORT", paymentReference: order.paymentReference, acceptAmountDifference: true });
  t.like(assigned, { status: "assigned", orderId: order.id });
  const { history } = await orders.getOrder({ storeId: SHOP, orderId: order.id, includeHistory: true });
  t.like(history.at(-1), { fromStatus: "pending", toStatus: "paid", cause: "bank_mutation", detail: "M-SHORT", amountReceived: short });
  const [entry] = (await orders.listAudit({ storeId: SHOP, action: "bank_mutation.assigned" })).entries;
  t.deepEqual(
    entry!.changes.map((c) => [c.field, c.before, c.after]),
    [["amount", `${rupiah(order.amount)} due`, `${rupiah(short)} received, Rp 152 short`]],
  );
  t.deepEqual((await bank.listMutations({ storeId: SHOP, review: true })).mutations.map((m) => m.id), ["M-OVER"]);
});

test("AssignMutation with a credit of exactly the order's transfer amount needs nothing accepted; a matched or assigned payment's history keeps the amount received", async (t) => {
  const { bank, orders, newOrder } = await setup(t);
  const early = mutation({ id: "M-EARLY", occurredAt: new Date(Date.now() - 60_000).toISOString() });
  const order = await newOrder();
  // Sent before the order existed: it waits for a person though its amount is the order's.
  const { results } = await bank.reconcileMutations({ storeId: SHOP, mutations: [{ ...early, amount: order.amount }] });
  t.like(results, [{ result: "unmatched", reason: "transfer before order" }]);
  const { mutation: assigned } = await bank.assignMutation({ storeId: SHOP, mutationId: "M-EARLY", orderId: order.id });
  t.like(assigned, { status: "assigned", orderId: order.id });
  const [entry] = (await orders.listAudit({ storeId: SHOP, action: "bank_mutation.assigned" })).entries;
  t.deepEqual(entry!.changes, [], "no difference to record");
  t.like((await orders.getOrder({ storeId: SHOP, orderId: order.id, includeHistory: true })).history.at(-1), { cause: "bank_mutation", amountReceived: order.amount });

  const matched = await newOrder();
  t.like((await bank.reconcileMutations({ storeId: SHOP, mutations: [mutation({ id: "M-MATCH", amount: matched.amount })] })).results, [{ result: "matched" }]);
  t.like((await orders.getOrder({ storeId: SHOP, orderId: matched.id, includeHistory: true })).history.at(-1), { detail: "M-MATCH", amountReceived: matched.amount });
});
