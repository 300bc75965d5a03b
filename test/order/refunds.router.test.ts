// Money that moves only on evidence, in memory (createRouterTransport over the real routes
// and domain, a database of the test's own and a scripted gateway): RefundOrder for
// bank-transfer and gateway orders, the rule behind "Mark as paid" and allowed_actions,
// refunds the gateway reports on its own, status checks and expiry at the gateway. Each
// test builds its own service. The service processes with a fake Midtrans on loopback
// are in test/order/refunds.test.ts.
import { OPERATOR, SYSTEM, type Actor } from "../../common/actor.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import test, { type ExecutionContext } from "ava";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { pino } from "pino";
import { GetStoreResponseSchema, ItemSchema, ItemStatus, ItemType, StoreSchema } from "../../gen/catalog/v1/catalog_pb.js";
import { BankReconciliationService } from "../../gen/order/v1/bank_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { midtransSignature } from "../../common/midtrans.js";
import { createOrderDomain } from "../../services/order/domain.js";
import type { ExpireAnswer, PaymentGateway, RefundAnswer, RefundRequest, StatusAnswer } from "../../services/order/payment-gateways/types.js";
import { GatewayUnavailable } from "../../services/order/payment-gateways/types.js";
import { createOrderRoutes } from "../../services/order/routes.js";
import { serverInterceptors } from "../../platform/rpc-server.js";
import { auditEntry } from "../../platform/audit-log.js";
import { checkPaging } from "../helpers/audit-pages.js";
import { orderTables, type OrderTables } from "../helpers/order-tables.js";
import { capturingLogger } from "../helpers/logs.js";
import { failure } from "../helpers/rpc-failure.js";
import { notStocking } from "../helpers/two-shops.js";

const SERVER_KEY = "SB-Mid-server-refunds";
const SHOP = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const OTHER = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const KOPI = "11111111-1111-4111-8111-111111111111"; // 50 000

const shop = create(StoreSchema, {
  id: SHOP,
  name: "Toko Kopi",
  bankAccount: { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" },
});
const kopi = create(ItemSchema, { id: KOPI, storeId: SHOP, type: ItemType.PRODUCT, title: "Kopi", price: 50_000n, status: ItemStatus.PUBLISHED });

/**
 * A Midtrans-like gateway whose answers a test sets. Its status answer is, unless a test
 * sets `statusAnswer`, the last word `says` gave for the transaction (none: not found).
 */
function scriptedGateway() {
  const calls = { refunds: [] as RefundRequest[], status: [] as string[], expire: [] as string[] };
  const words = new Map<string, Record<string, unknown>>();
  const gateway = {
    provider: "midtrans" as const,
    snapScriptUrl: "https://gateway.example/snap.js",
    clientKey: "client-key",
    calls,
    refundAnswer: (): Promise<RefundAnswer> => Promise.resolve({ kind: "succeeded" }),
    statusAnswer: (ref: string): Promise<StatusAnswer> => Promise.resolve(words.has(ref) ? { kind: "found", fields: words.get(ref)! } : { kind: "not_found" }),
    /** What the gateway says of the transaction from now on, in its status answers and its notifications. */
    says(word: Record<string, unknown> & { order_id: string }) {
      words.set(word.order_id, word);
      return word;
    },
    expireAnswer: (): Promise<ExpireAnswer> => Promise.resolve({ kind: "expired" }),
    async createSession(): Promise<{ token: string; redirectUrl: string }> {
      return { token: `snap-${calls.status.length}-${Math.random()}`, redirectUrl: "https://gateway.example/pay" };
    },
    async refund(request: RefundRequest): Promise<RefundAnswer> {
      calls.refunds.push(request);
      return gateway.refundAnswer();
    },
    async status(reference: string): Promise<StatusAnswer> {
      calls.status.push(reference);
      return gateway.statusAnswer(reference);
    },
    async expire(reference: string): Promise<ExpireAnswer> {
      calls.expire.push(reference);
      return gateway.expireAnswer();
    },
  } satisfies PaymentGateway & Record<string, unknown>;
  return gateway;
}

/** What the gateway's Status API (or a notification) says, signed with `key`. */
function gatewayWord(reference: string, amount: number, transactionStatus: string, extra: Record<string, unknown> = {}, key = SERVER_KEY) {
  const fields = { order_id: reference, status_code: transactionStatus === "pending" ? "201" : "200", gross_amount: `${amount}.00` };
  return { ...fields, transaction_status: transactionStatus, fraud_status: "accept", signature_key: midtransSignature(fields, key), ...extra };
}

async function setup(t: ExecutionContext, options: { paymentWindowMs?: number; statusCheckAfterMs?: number } = {}) {
  // Every call is the one of whoever `as.actor` names at the time (the operator unless a test says).
  const as: { actor: Actor } = { actor: OPERATOR };
  const tables = await orderTables(t);
  const gateway = scriptedGateway();
  const logs: { level: string; msg: string }[] = [];
  const catalog = notStocking(({ storeId }) => {
    if (storeId !== SHOP) throw new ConnectError("no store", Code.NotFound);
    return { store: shop, items: [kopi] };
  });
  const stores = { getStore: async () => create(GetStoreResponseSchema, { store: shop }) };
  const domain = createOrderDomain({
    sql: tables.sql,
    logger: capturingLogger(logs, { labels: true }),
    stores,
    catalog,
    gateway,
    publicBaseUrl: "https://shop.example",
    paymentWindowMs: options.paymentWindowMs ?? 3_600_000,
    midtransServerKey: SERVER_KEY,
    statusCheckAfterMs: options.statusCheckAfterMs ?? 900_000,
    refundRetryDelaysMs: [0],
  });
  const silent = pino({ level: "silent" });
  const transport = createRouterTransport(createOrderRoutes(domain), { router: { interceptors: serverInterceptors(silent) }, transport: { interceptors: [actorInterceptor(() => as.actor)] } });
  return { client: createClient(OrderService, transport), bank: createClient(BankReconciliationService, transport), tables, gateway, domain, logs, as };
}

type OrderClient = Client<typeof OrderService>;

async function placed(client: OrderClient, paymentMethod: "bank_transfer" | "qris") {
  const { detail } = await client.createOrder({
    storeId: SHOP,
    items: [{ ref: { case: "productId", value: KOPI }, quantity: 1 }],
    buyer: { name: "Budi", email: "budi@example.co.id", phone: "+6281234567890" },
    paymentMethod,
    requestHash: "h",
  });
  return detail!.order!;
}

/** A bank-transfer order the seller marked paid. */
async function paidTransfer(client: OrderClient) {
  const order = await placed(client, "bank_transfer");
  await client.markOrderPaid({ storeId: SHOP, orderId: order.id });
  return { id: order.id, amount: Number(order.amount), reference: order.paymentReference };
}

type Gateway = ReturnType<typeof scriptedGateway>;

/** A genuine notification: the gateway says `word` (its status answer confirms it), and sends it. */
function notifyGenuine(client: OrderClient, gateway: Gateway, word: ReturnType<typeof gatewayWord>) {
  const body = new TextEncoder().encode(JSON.stringify(gateway.says(word)));
  return client.handlePaymentNotification({ provider: "midtrans", body });
}

/** A gateway order the gateway's notification paid. */
async function paidAtGateway(client: OrderClient, gateway: Gateway) {
  const order = await placed(client, "qris");
  await notifyGenuine(client, gateway, gatewayWord(order.paymentReference, Number(order.amount), "settlement"));
  return { id: order.id, amount: Number(order.amount), reference: order.paymentReference };
}


const eventsOf = async (tables: OrderTables, orderId: string) => (await tables.outbox(orderId)).map((event) => event.event_type);

test("a bank transfer is refunded manually, part then the rest; the order turns refunded and can take no more", async (t) => {
  const { client, tables, gateway } = await setup(t);
  const order = await paidTransfer(client);
  const first = await client.refundOrder({ storeId: SHOP, orderId: order.id, amount: 20_000n, reason: "one cup spilled", reference: "BCA-778", requestHash: "a" });
  t.like(first.refund, { amount: 20_000n, status: "succeeded", method: "manual", reason: "one cup spilled", reference: "BCA-778" });
  t.like(first.order, { status: "paid", refundedAmount: 20_000n });
  t.is(first.order!.refunds.length, 1);

  const rest = await client.refundOrder({ storeId: SHOP, orderId: order.id, reason: "order returned", requestHash: "b" });
  t.is(rest.refund!.amount, BigInt(order.amount - 20_000), "no amount: all that is left");
  t.like(rest.order, { status: "refunded", refundedAmount: BigInt(order.amount) });
  t.deepEqual(gateway.calls.refunds, [], "a bank transfer's refund never goes to the gateway");

  t.like(await failure(client.refundOrder({ storeId: SHOP, orderId: order.id, amount: 1n, reason: "again", requestHash: "c" })), { code: Code.FailedPrecondition });
  const events = await eventsOf(tables, order.id);
  t.is(events.filter((type) => type === "refund.succeeded").length, 2);
  t.is(events.filter((type) => type === "order.refunded").length, 1);
  const history = (await client.getOrder({ storeId: SHOP, orderId: order.id, includeHistory: true })).history;
  t.like(history.at(-1), { fromStatus: "paid", toStatus: "refunded", cause: "refund" });
});

test("RefundOrder refuses bad input naming the field, an unpaid order, and another store's order", async (t) => {
  const { client } = await setup(t);
  const order = await paidTransfer(client);
  const refund = (fields: Record<string, unknown>) => failure(client.refundOrder({ storeId: SHOP, orderId: order.id, reason: "r", requestHash: "x", ...fields }));
  t.like(await refund({ orderId: "nope" }), { code: Code.InvalidArgument, field: "order_id" });
  t.like(await refund({ reason: "" }), { code: Code.InvalidArgument, field: "reason" });
  t.like(await refund({ reason: "   " }), { code: Code.InvalidArgument, field: "reason" });
  t.like(await refund({ reason: "x".repeat(201) }), { code: Code.InvalidArgument, field: "reason" });
  t.like(await refund({ reason: "tab\there" }), { code: Code.InvalidArgument, field: "reason" });
  t.like(await refund({ reference: "r".repeat(101) }), { code: Code.InvalidArgument, field: "reference" });
  t.like(await refund({ amount: 0n }), { code: Code.InvalidArgument, field: "amount" });
  t.like(await refund({ amount: -5n }), { code: Code.InvalidArgument, field: "amount" });
  t.like(await refund({ amount: BigInt(order.amount + 1) }), { code: Code.InvalidArgument, field: "amount" });
  t.like(await refund({ storeId: OTHER }), { code: Code.NotFound });
  const pending = await placed(client, "bank_transfer");
  t.like(await failure(client.refundOrder({ storeId: SHOP, orderId: pending.id, reason: "r", requestHash: "x" })), {
    code: Code.FailedPrecondition,
    message: `order ${pending.id}: only a paid order can be refunded; this one is pending`,
  });
  const untouched = await client.getOrder({ storeId: SHOP, orderId: order.id });
  t.is(untouched.detail!.order!.refunds.length, 0, "nothing was written by any refused request");
});

test("a gateway order is refunded through the gateway with the refund's id as its key", async (t) => {
  const { client, gateway, tables } = await setup(t);
  const order = await paidAtGateway(client, gateway);
  const { refund, order: after } = await client.refundOrder({ storeId: SHOP, orderId: order.id, amount: 10_000n, reason: "late delivery", requestHash: "a" });
  t.like(refund, { status: "succeeded", method: "gateway", amount: 10_000n });
  t.deepEqual(gateway.calls.refunds, [{ orderId: order.reference, refundKey: refund!.id, amount: 10_000, reason: "late delivery" }]);
  t.is(after!.refundedAmount, 10_000n);
  t.true((await eventsOf(tables, order.id)).includes("refund.succeeded"));
});

test("a refund the gateway refuses is failed with its message, and the amount is free again", async (t) => {
  const { client, gateway, tables } = await setup(t);
  const order = await paidAtGateway(client, gateway);
  gateway.refundAnswer = async () => ({ kind: "refused", message: "Transaction status cannot be updated." });
  const { refund, order: after } = await client.refundOrder({ storeId: SHOP, orderId: order.id, reason: "r", requestHash: "a" });
  t.like(refund, { status: "failed", failureMessage: "Transaction status cannot be updated.", amount: BigInt(order.amount) });
  t.like(after, { status: "paid", refundedAmount: 0n });
  t.true((await eventsOf(tables, order.id)).includes("refund.failed"));
  gateway.refundAnswer = async () => ({ kind: "succeeded" });
  const again = await client.refundOrder({ storeId: SHOP, orderId: order.id, reason: "r", requestHash: "b" });
  t.like(again.order, { status: "refunded" });
});

test("a gateway that is away leaves the refund pending, counted against what is left, and a retry settles it once with the same key", async (t) => {
  const { client, gateway, domain, tables } = await setup(t);
  const order = await paidAtGateway(client, gateway);
  gateway.refundAnswer = async () => Promise.reject(new GatewayUnavailable("midtrans unreachable"));
  const { refund } = await client.refundOrder({ storeId: SHOP, orderId: order.id, amount: 30_000n, reason: "r", requestHash: "a" });
  t.is(refund!.status, "pending");
  t.like(await failure(client.refundOrder({ storeId: SHOP, orderId: order.id, amount: BigInt(order.amount - 29_999), reason: "r", requestHash: "b" })), {
    code: Code.InvalidArgument,
    field: "amount",
  });
  const read = await client.getOrder({ storeId: SHOP, orderId: order.id });
  t.deepEqual(read.allowedActions, ["refund"], "what is left beyond the pending refund can still be refunded");

  gateway.refundAnswer = async () => ({ kind: "succeeded" });
  t.is(await domain.refunds.retryDue(), 1);
  t.is(await domain.refunds.retryDue(), 0, "settled once");
  t.deepEqual(
    gateway.calls.refunds.map((call) => call.refundKey),
    [refund!.id, refund!.id],
  );
  const settled = await client.getOrder({ storeId: SHOP, orderId: order.id });
  t.like(settled.detail!.order, { refundedAmount: 30_000n });
  t.is(settled.detail!.order!.refunds[0]!.status, "succeeded");
  t.is((await eventsOf(tables, order.id)).filter((type) => type === "refund.succeeded").length, 1);
});

test("an Idempotency-Key replays the first answer; another body with it is ALREADY_EXISTS", async (t) => {
  const { client } = await setup(t);
  const order = await paidTransfer(client);
  const request = { storeId: SHOP, orderId: order.id, amount: 5_000n, reason: "r", idempotencyKey: "refund-1", requestHash: "same" };
  const first = await client.refundOrder(request);
  const again = await client.refundOrder(request);
  t.false(first.replayed);
  t.true(again.replayed);
  t.is(again.refund!.id, first.refund!.id);
  t.is((await client.getOrder({ storeId: SHOP, orderId: order.id })).detail!.order!.refunds.length, 1);
  t.like(await failure(client.refundOrder({ ...request, amount: 6_000n, requestHash: "other" })), { code: Code.AlreadyExists });
  const second = await paidTransfer(client);
  t.like(await failure(client.refundOrder({ ...request, orderId: second.id })), { code: Code.AlreadyExists }, "the key is the store's, whichever order");
});

test("mark paid is the order service's rule: bank transfers only, so a failed gateway order cannot be marked paid", async (t) => {
  const { client } = await setup(t);
  const gatewayOrder = await placed(client, "qris");
  const deny = new TextEncoder().encode(JSON.stringify(gatewayWord(gatewayOrder.paymentReference, Number(gatewayOrder.amount), "deny")));
  t.like(await client.handlePaymentNotification({ provider: "midtrans", body: deny }), { status: "failed" });
  const refused = await failure(client.markOrderPaid({ storeId: SHOP, orderId: gatewayOrder.id }));
  t.is(refused.code, Code.FailedPrecondition);
  t.regex(refused.message, /only a bank-transfer order can be marked as paid/);
  t.is((await client.getOrder({ storeId: SHOP, orderId: gatewayOrder.id })).detail!.order!.status, "failed");

  const pendingGateway = await placed(client, "qris");
  t.like(await failure(client.markOrderPaid({ storeId: SHOP, orderId: pendingGateway.id })), { code: Code.FailedPrecondition });
  t.deepEqual((await client.getOrder({ storeId: SHOP, orderId: pendingGateway.id })).allowedActions, ["cancel"]);

  const transfer = await placed(client, "bank_transfer");
  t.deepEqual((await client.getOrder({ storeId: SHOP, orderId: transfer.id })).allowedActions, ["mark_paid", "cancel"]);
  await client.markOrderPaid({ storeId: SHOP, orderId: transfer.id });
  t.is((await client.markOrderPaid({ storeId: SHOP, orderId: transfer.id })).order!.status, "paid", "a repeat is still a no-op");
  t.deepEqual((await client.getOrder({ storeId: SHOP, orderId: transfer.id })).allowedActions, ["refund"]);
});

test("a gateway's session token never opens the sandbox checkout", async (t) => {
  const { client } = await setup(t);
  const order = await placed(client, "qris");
  const read = await client.getOrder({ storeId: SHOP, orderId: order.id, prepareSession: true });
  const token = read.detail!.payment!.snap!.token;
  t.like(await failure(client.getCheckout({ key: { case: "sessionToken", value: token } })), { code: Code.NotFound });
});

test("a partial_refund notification we did not ask for is recorded once", async (t) => {
  const { client, tables, gateway } = await setup(t);
  const order = await paidAtGateway(client, gateway);
  const word = gatewayWord(order.reference, order.amount, "partial_refund", {
    refund_amount: "15000.00",
    refunds: [{ refund_chargeback_id: 4411, refund_amount: "15000.00", created_at: "2026-11-24 10:00:00", reason: "buyer asked at the counter" }],
  });
  t.like(await notifyGenuine(client, gateway, word), { status: "paid", changed: true });
  t.like(await notifyGenuine(client, gateway, word), { status: "paid", changed: false });
  const { detail } = await client.getOrder({ storeId: SHOP, orderId: order.id });
  t.is(detail!.order!.refundedAmount, 15_000n);
  t.like(detail!.order!.refunds, [{ amount: 15_000n, status: "succeeded", method: "gateway", reason: "buyer asked at the counter" }]);
  t.is((await eventsOf(tables, order.id)).filter((type) => type === "refund.succeeded").length, 1);
});

test("a refund notification for a refund we asked for settles it instead of adding another", async (t) => {
  const { client, gateway } = await setup(t);
  const order = await paidAtGateway(client, gateway);
  gateway.refundAnswer = async () => Promise.reject(new GatewayUnavailable("timeout"));
  const { refund } = await client.refundOrder({ storeId: SHOP, orderId: order.id, reason: "r", requestHash: "a" });
  const word = gatewayWord(order.reference, order.amount, "refund", {
    refund_amount: `${order.amount}.00`,
    refunds: [{ refund_chargeback_id: 9, refund_key: refund!.id, refund_amount: `${order.amount}.00` }],
  });
  t.like(await notifyGenuine(client, gateway, word), { status: "refunded", changed: true });
  const { detail } = await client.getOrder({ storeId: SHOP, orderId: order.id });
  t.like(detail!.order!.refunds, [{ id: refund!.id, status: "succeeded" }]);
  t.is(detail!.order!.refunds.length, 1);
});

test("status check: a silent gateway order is asked about, and a settlement it reports pays it as a notification would", async (t) => {
  const { client, gateway, domain, tables } = await setup(t, { statusCheckAfterMs: 1 });
  const order = await placed(client, "qris");
  await new Promise((resolve) => setTimeout(resolve, 5));
  gateway.statusAnswer = async () => ({ kind: "found", fields: gatewayWord(order.paymentReference, Number(order.amount), "pending") });
  const asked = Date.now();
  t.is(await domain.gatewayChecks.checkDue(), 1);
  t.is((await client.getOrder({ storeId: SHOP, orderId: order.id })).detail!.order!.status, "pending");
  const row = (await tables.order(order.id))!;
  t.is(row.status_checks, 1, "counted");
  t.true(row.next_status_check_at!.getTime() >= asked + 2, "the next check waits twice the interval");

  const checked = await setup(t, { statusCheckAfterMs: 1 });
  const silent = await placed(checked.client, "qris");
  await new Promise((resolve) => setTimeout(resolve, 5));
  checked.gateway.statusAnswer = async () => ({ kind: "found", fields: gatewayWord(silent.paymentReference, Number(silent.amount), "settlement") });
  t.is(await checked.domain.gatewayChecks.checkDue(), 1);
  const { detail, history } = await checked.client.getOrder({ storeId: SHOP, orderId: silent.id, includeHistory: true });
  t.is(detail!.order!.status, "paid");
  t.like(history.at(-1), { fromStatus: "pending", toStatus: "paid", cause: "gateway status check", detail: "settlement" });
  t.deepEqual(checked.gateway.calls.status, [silent.paymentReference]);
  t.is(await checked.domain.gatewayChecks.checkDue(), 0, "a paid order is not asked about again");
});

test("status check: a forged answer changes nothing, and a gateway that is away only delays the check", async (t) => {
  const { client, gateway, domain, logs } = await setup(t, { statusCheckAfterMs: 1 });
  const order = await placed(client, "qris");
  await new Promise((resolve) => setTimeout(resolve, 5));
  gateway.statusAnswer = async () => ({ kind: "found", fields: gatewayWord(order.paymentReference, Number(order.amount), "settlement", {}, "someone-else") });
  await domain.gatewayChecks.checkDue();
  t.is((await client.getOrder({ storeId: SHOP, orderId: order.id })).detail!.order!.status, "pending");
  t.true(logs.some((line) => line.msg === "gateway status answer not applied"));

  const away = await setup(t, { statusCheckAfterMs: 1 });
  const other = await placed(away.client, "qris");
  await new Promise((resolve) => setTimeout(resolve, 5));
  away.gateway.statusAnswer = async () => Promise.reject(new GatewayUnavailable("down"));
  t.is(await away.domain.gatewayChecks.checkDue(), 1);
  const row = (await away.tables.order(other.id))!;
  t.is(row.status, "pending");
  t.is(row.status_checks, 0, "a check the gateway did not answer does not count");
  t.true(row.next_status_check_at!.getTime() > Date.now() + 20_000, "tried again later");
});

/** A signed notification of the gateway's word, sent whatever the gateway says. */
function notifyAs(client: OrderClient, word: ReturnType<typeof gatewayWord>) {
  return client.handlePaymentNotification({ provider: "midtrans", body: new TextEncoder().encode(JSON.stringify(word)) });
}

test("a notification that would move money is applied as the gateway's status answer says, never on its own word", async (t) => {
  const { client, gateway, tables } = await setup(t);
  const order = await paidAtGateway(client, gateway);
  t.deepEqual(gateway.calls.status, [order.reference], "the settlement was confirmed");
  // The settlement's signed fields replayed as a refund, while the gateway says settlement.
  t.like(await notifyAs(client, gatewayWord(order.reference, order.amount, "refund")), { status: "paid", changed: false });
  t.is((await client.getOrder({ storeId: SHOP, orderId: order.id })).detail!.order!.refundedAmount, 0n);
  t.false((await eventsOf(tables, order.id)).some((type) => type === "order.refunded" || type === "refund.succeeded"));

  // A settlement the gateway has no transaction for, then one it says is still pending.
  const pending = await placed(client, "qris");
  const settlement = gatewayWord(pending.paymentReference, Number(pending.amount), "settlement");
  t.like(await notifyAs(client, settlement), { status: "pending", changed: false });
  gateway.says(gatewayWord(pending.paymentReference, Number(pending.amount), "pending"));
  t.like(await notifyAs(client, settlement), { status: "pending", changed: false });
  // An answer about another transaction confirms nothing about this one.
  gateway.statusAnswer = async () => ({ kind: "found", fields: gatewayWord(order.reference, order.amount, "settlement") });
  t.like(await failure(notifyAs(client, settlement)), { code: Code.Unavailable });
  t.is((await client.getOrder({ storeId: SHOP, orderId: pending.id })).detail!.order!.status, "pending");
});

test("a notification that moves no money (deny) is applied on its own word, without asking the gateway", async (t) => {
  const { client, gateway } = await setup(t);
  const order = await placed(client, "qris");
  t.like(await notifyAs(client, gatewayWord(order.paymentReference, Number(order.amount), "deny")), { status: "failed", changed: true });
  t.deepEqual(gateway.calls.status, [], "not asked");
});

test("with the gateway away, or its answer forged, a settlement is UNAVAILABLE and not applied; the order is asked about again soon", async (t) => {
  const { client, gateway, tables, logs } = await setup(t);
  const order = await placed(client, "qris");
  const settlement = gatewayWord(order.paymentReference, Number(order.amount), "settlement");
  const firstCheck = (await tables.order(order.id))!.next_status_check_at!.getTime();
  t.true(firstCheck > Date.now() + 10 * 60_000, "first check after the 15 min of silence");

  gateway.statusAnswer = async () => Promise.reject(new GatewayUnavailable("midtrans status: no answer within 5000 ms"));
  t.like(await failure(notifyAs(client, settlement)), { code: Code.Unavailable });
  const row = (await tables.order(order.id))!;
  t.is(row.status, "pending");
  t.true(row.next_status_check_at!.getTime() <= Date.now() + 30_000, "the sweeper asks within 30 s");
  t.true(logs.some((line) => line.level === "warn" && /could not be asked to confirm/.test(line.msg)));

  gateway.statusAnswer = async () => ({ kind: "found", fields: gatewayWord(order.paymentReference, Number(order.amount), "settlement", {}, "someone-else") });
  t.like(await failure(notifyAs(client, settlement)), { code: Code.Unavailable });
  t.is((await tables.order(order.id))!.status, "pending");

  gateway.statusAnswer = async () => ({ kind: "found", fields: settlement });
  t.like(await notifyAs(client, settlement), { status: "paid", changed: true });
  const { history } = await client.getOrder({ storeId: SHOP, orderId: order.id, includeHistory: true });
  t.like(history.at(-1), { fromStatus: "pending", toStatus: "paid", cause: "midtrans settlement", detail: "confirmed by the gateway's status answer" });
});

test("an expired gateway order is expired at the gateway too; one the gateway will not expire is settled by its status", async (t) => {
  const { client, gateway, domain } = await setup(t, { paymentWindowMs: 0 });
  const order = await placed(client, "qris");
  t.is((await client.getOrder({ storeId: SHOP, orderId: order.id })).detail!.order!.status, "expired");
  t.is(await domain.gatewayChecks.expireDue(), 1);
  t.deepEqual(gateway.calls.expire, [order.paymentReference]);
  t.is(await domain.gatewayChecks.expireDue(), 0, "done once");

  const late = await setup(t, { paymentWindowMs: 0 });
  const paidMeanwhile = await placed(late.client, "qris");
  await late.client.getOrder({ storeId: SHOP, orderId: paidMeanwhile.id });
  late.gateway.expireAnswer = async () => ({ kind: "refused", message: "Transaction status cannot be updated." });
  late.gateway.statusAnswer = async () => ({ kind: "found", fields: gatewayWord(paidMeanwhile.paymentReference, Number(paidMeanwhile.amount), "settlement") });
  t.is(await late.domain.gatewayChecks.expireDue(), 1);
  const { detail, history } = await late.client.getOrder({ storeId: SHOP, orderId: paidMeanwhile.id, includeHistory: true });
  t.is(detail!.order!.status, "paid", "the buyer paid just before: expired → paid, as a late notification would");
  t.like(history.at(-1), { fromStatus: "expired", toStatus: "paid", cause: "gateway status check" });
});

/** A genuine notification of `transactionStatus` for the order, with `extra` fields. */
function notifyRefund(client: OrderClient, gateway: Gateway, order: { reference: string; amount: number }, transactionStatus: string, extra: Record<string, unknown>) {
  return notifyGenuine(client, gateway, gatewayWord(order.reference, order.amount, transactionStatus, extra));
}

test("one refund reported under the gateway's own id, or first as a bare total, is still counted once", async (t) => {
  const { client, gateway } = await setup(t);
  const order = await paidAtGateway(client, gateway);
  gateway.refundAnswer = async () => ({ kind: "succeeded", gatewayRefundId: "cb-1" });
  await client.refundOrder({ storeId: SHOP, orderId: order.id, amount: 40_000n, reason: "r", requestHash: "a" });
  // The gateway's report names only its own id for our refund.
  await notifyRefund(client, gateway, order, "partial_refund", { refund_amount: "40000.00", refunds: [{ refund_chargeback_id: "cb-1", refund_amount: "40000.00" }] });
  t.is((await client.getOrder({ storeId: SHOP, orderId: order.id })).detail!.order!.refundedAmount, 40_000n);

  const second = await paidAtGateway(client, gateway);
  // First a bare total (no list), then the list naming the same money under its id.
  await notifyRefund(client, gateway, second, "partial_refund", { refund_amount: "30000.00" });
  await notifyRefund(client, gateway, second, "partial_refund", { refund_amount: "30000.00", refunds: [{ refund_chargeback_id: 9, refund_amount: "30000.00" }] });
  const { detail } = await client.getOrder({ storeId: SHOP, orderId: second.id });
  t.is(detail!.order!.refundedAmount, 30_000n);
  t.is(detail!.order!.refunds.length, 1);
});

test("a refusal of a repeated refund is checked against the gateway's status: made means succeeded", async (t) => {
  const { client, gateway, domain } = await setup(t);
  const order = await paidAtGateway(client, gateway);
  gateway.refundAnswer = async () => Promise.reject(new GatewayUnavailable("timeout"));
  const { refund } = await client.refundOrder({ storeId: SHOP, orderId: order.id, amount: 25_000n, reason: "r", requestHash: "a" });
  // The first attempt went through at the gateway; the repeat is refused, and its status shows our key.
  gateway.refundAnswer = async () => ({ kind: "refused", message: "Duplicate refund key." });
  gateway.statusAnswer = async () => ({
    kind: "found",
    fields: gatewayWord(order.reference, order.amount, "partial_refund", { refunds: [{ refund_key: refund!.id, refund_amount: "25000.00" }] }),
  });
  t.is(await domain.refunds.retryDue(), 1);
  const { detail } = await client.getOrder({ storeId: SHOP, orderId: order.id });
  t.like(detail!.order!.refunds, [{ id: refund!.id, status: "succeeded" }]);
  t.is(detail!.order!.refundedAmount, 25_000n);
});

test("a refund we recorded as failed that the gateway reports made turns succeeded, once", async (t) => {
  const { client, gateway, tables } = await setup(t);
  const order = await paidAtGateway(client, gateway);
  gateway.refundAnswer = async () => ({ kind: "refused", message: "Denied by the bank." });
  const { refund } = await client.refundOrder({ storeId: SHOP, orderId: order.id, amount: 10_000n, reason: "r", requestHash: "a" });
  t.is(refund!.status, "failed");
  const report = { refund_amount: "10000.00", refunds: [{ refund_key: refund!.id, refund_amount: "10000.00" }] };
  await notifyRefund(client, gateway, order, "partial_refund", report);
  await notifyRefund(client, gateway, order, "partial_refund", report);
  const { detail } = await client.getOrder({ storeId: SHOP, orderId: order.id });
  t.like(detail!.order!.refunds, [{ id: refund!.id, status: "succeeded" }]);
  t.is(detail!.order!.refundedAmount, 10_000n);
  t.is((await eventsOf(tables, order.id)).filter((type) => type === "refund.succeeded").length, 1);
});

const member = (role: "owner" | "developer" | "support" | "viewer"): Actor => ({ kind: "member", memberId: "7d1b9a60-3c2e-4f0a-9b1d-2e5c8f6a4b30", role, email: `${role}@toko.example` });

test("the order service enforces the role table: who may not move money changes nothing and leaves no audit entry", async (t) => {
  const { client, bank, tables, as } = await setup(t);
  const pending = await placed(client, "bank_transfer");
  const paid = await paidTransfer(client);
  const auditBefore = await tables.count("audit_log");
  const outboxBefore = await tables.count("outbox");
  for (const role of ["developer", "viewer"] as const) {
    as.actor = member(role);
    const calls = [
      client.markOrderPaid({ storeId: SHOP, orderId: pending.id }),
      client.cancelOrder({ storeId: SHOP, orderId: pending.id }),
      client.refundOrder({ storeId: SHOP, orderId: paid.id, reason: "r", requestHash: "x" }),
      bank.reconcileMutations({ storeId: SHOP, mutations: [{ id: "TRX-X", amount: 5n, type: "credit", occurredAt: new Date().toISOString(), description: "" }] }),
    ];
    for (const call of calls) t.like(await failure(call), { code: Code.PermissionDenied }, role);
    // Reads still work, and say the role may do nothing to the order.
    t.deepEqual((await client.getOrder({ storeId: SHOP, orderId: pending.id })).allowedActions, [], role);
  }
  t.is((await tables.order(pending.id))!.status, "pending");
  t.is(await tables.count("refunds"), 0);
  t.is(await tables.count("audit_log"), auditBefore, "no entry for what did not happen");
  t.is(await tables.count("outbox"), outboxBefore);

  as.actor = member("support");
  t.deepEqual((await client.getOrder({ storeId: SHOP, orderId: pending.id })).allowedActions, ["mark_paid", "cancel"]);
  await client.markOrderPaid({ storeId: SHOP, orderId: pending.id });
  await client.markOrderPaid({ storeId: SHOP, orderId: pending.id }); // a repeat: no change, no entry
  await client.refundOrder({ storeId: SHOP, orderId: paid.id, amount: 1_000n, reason: "r", requestHash: "y" });
  const { entries } = await client.listAudit({ storeId: SHOP });
  t.deepEqual(
    entries.slice(0, 2).map((entry) => [entry.actor, entry.action, entry.target]),
    [
      ["support@toko.example", "order.refunded", `order:${paid.id}`],
      ["support@toko.example", "order.marked_paid", `order:${pending.id}`],
    ],
  );
  t.is(entries.filter((entry) => entry.action === "order.marked_paid" && entry.target === `order:${pending.id}`).length, 1);
});

test("the audit entry is written with its change: when the transaction fails halfway, neither is there", async (t) => {
  const { client, tables } = await setup(t);
  const order = await placed(client, "bank_transfer");
  // The audit entry's insert fails as on a dropped connection (SQLSTATE class 08).
  await tables.direct.unsafe(`
    create function lose_connection() returns trigger language plpgsql as $$
      begin raise exception 'connection lost' using errcode = 'connection_failure'; end $$;
    create trigger lose_connection before insert on audit_log for each row execute function lose_connection()`);
  t.like(await failure(client.markOrderPaid({ storeId: SHOP, orderId: order.id })), { code: Code.Unavailable });
  t.is((await tables.order(order.id))!.status, "pending", "the change rolled back with its record");
  t.false((await tables.outbox()).some((event) => event.order_id === order.id && event.event_type === "order.paid"));
  await tables.direct`drop trigger lose_connection on audit_log`;
  await client.markOrderPaid({ storeId: SHOP, orderId: order.id });
  t.is((await tables.direct`select 1 from audit_log where target = ${`order:${order.id}`}`).length, 1);
});

test("ListAudit: orders are called by their payment reference, bank transfers by the bank's id; filters by actor and action; paging by position; an unknown action is INVALID_ARGUMENT", async (t) => {
  const { client, bank, tables, as } = await setup(t);
  const paid = await paidTransfer(client);
  const cancelled = await placed(client, "bank_transfer");
  as.actor = member("support");
  await client.cancelOrder({ storeId: SHOP, orderId: cancelled.id });
  await client.refundOrder({ storeId: SHOP, orderId: paid.id, amount: 1_000n, reason: "r", requestHash: "x" });
  as.actor = OPERATOR;
  const waiting = await placed(client, "bank_transfer");
  const credit = (id: string, amount: bigint) => ({ id, amount, type: "credit", occurredAt: new Date().toISOString(), description: "TRF" });
  const { results } = await bank.reconcileMutations({ storeId: SHOP, mutations: [credit("BCA-001", 1n), credit("BCA-002", 2n)] });
  t.deepEqual(results.map((r) => r.result), ["unmatched", "unmatched"]);
  await bank.assignMutation({ storeId: SHOP, mutationId: "BCA-001", orderId: waiting.id, acceptAmountDifference: true });
  await bank.dismissMutation({ storeId: SHOP, mutationId: "BCA-002" });

  const list = (request: object) => client.listAudit({ storeId: SHOP, ...request });
  const { entries } = await list({});
  t.deepEqual(
    entries.reverse().map((e) => [e.actor, e.action, e.target, e.targetLabel, e.changes.length]),
    [
      ["operator", "order.marked_paid", `order:${paid.id}`, paid.reference, 0],
      ["support@toko.example", "order.cancelled", `order:${cancelled.id}`, cancelled.paymentReference, 0],
      ["support@toko.example", "order.refunded", `order:${paid.id}`, paid.reference, 0],
      ["operator", "bank_mutations.imported", `store:${SHOP}`, "", 0],
      // Rp 1 for the whole order: the entry records the accepted difference.
      ["operator", "bank_mutation.assigned", "mutation:BCA-001", "BCA-001", 1],
      ["operator", "bank_mutation.dismissed", "mutation:BCA-002", "BCA-002", 0],
    ],
  );
  t.regex(paid.reference, /^SO-/);

  t.deepEqual((await list({ actor: "support@toko.example" })).entries.map((e) => e.action), ["order.refunded", "order.cancelled"]);
  t.deepEqual((await list({ action: "order.marked_paid" })).entries.map((e) => e.targetLabel), [paid.reference]);
  t.deepEqual((await list({ actor: "support@toko.example", action: "order.marked_paid" })).entries, []);

  // Entries of one time (the column's default is the clock, so they are written at
  // their transaction's start): the sequence orders them.
  const system = auditEntry(SHOP, SYSTEM, "order.cancelled", "");
  await tables.direct.begin(async (tx) => {
    for (const n of ["a", "b", "c"]) {
      await tx`insert into audit_log (store_id, created_at, actor, action, target, target_label)
        values (${SHOP}, now(), ${system.actor}, ${system.action}, ${`order:${n}`}, ${`SO-${n.toUpperCase()}`})`;
    }
  });
  t.is((await checkPaging(t, list, { ties: true })).length, 9);
  await checkPaging(t, list, { filters: { action: "order.cancelled" }, ties: true });
  t.deepEqual((await list({ storeId: OTHER })).entries, [], "one store's entries only");

  t.deepEqual(await failure(list({ action: "order.deleted" })), { code: Code.InvalidArgument, field: "action", message: "action: is not an action the audit log records" });
  t.like(await failure(list({ limit: 501 })), { code: Code.InvalidArgument, field: "limit" });
});
