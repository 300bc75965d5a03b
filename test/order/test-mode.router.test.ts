// Test mode in the order service (docs/keys.md#test-mode), through the real gRPC handlers
// in memory on real SQL: every RPC sees one mode (the other mode's ids are NOT_FOUND,
// lists and counts show one mode), test orders pay through the sandbox and have their own
// transfer codes and Idempotency-Keys, a test mutation pays test orders only,
// SimulateTestOrder, and the overview's sales count live orders only.
import test, { type ExecutionContext } from "ava";
import { Code, createClient, createRouterTransport } from "@connectrpc/connect";
import { pino } from "pino";
import { OPERATOR, type Actor } from "../../common/actor.js";
import { BankReconciliationService } from "../../gen/order/v1/bank_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { serverInterceptors } from "../../platform/rpc-server.js";
import { createOrderDomain } from "../../services/order/domain.js";
import { createOrderRoutes } from "../../services/order/routes.js";
import type { PaymentGateway } from "../../services/order/payment-gateways/types.js";
import { midtransSignature } from "../../common/midtrans.js";
import { fakeGateway } from "../helpers/fake-payment-gateway.js";
import { capturingLogger } from "../helpers/logs.js";
import { orderTables } from "../helpers/order-tables.js";
import { failure } from "../helpers/rpc-failure.js";
import { KOPI, OTHER, SHOP, TEH, twoShopServices } from "../helpers/two-shops.js";

const silent = pino({ level: "silent" });
const SERVER_KEY = "server-key";

const buyer = { name: "Budi", email: "budi@example.co.id", phone: "+6281234567890" };

/** A real gateway's stand-in (provider midtrans, asked for status): it must never see a test order. */
function liveGateway(): PaymentGateway & { sessions: string[]; asked: string[] } {
  const gateway = {
    provider: "midtrans" as const,
    snapScriptUrl: "https://app.midtrans.example/snap/snap.js",
    clientKey: "live-client-key",
    sessions: [] as string[],
    asked: [] as string[],
    async createSession(request: { orderId: string }) {
      gateway.sessions.push(request.orderId);
      return { token: `snap-${gateway.sessions.length}`, redirectUrl: `https://app.midtrans.example/pay/${gateway.sessions.length}` };
    },
    async refund() {
      return { kind: "succeeded" as const };
    },
    async status(orderId: string) {
      gateway.asked.push(orderId);
      return { kind: "not_found" as const };
    },
  };
  return gateway;
}

async function setup(t: ExecutionContext, actor: Actor = OPERATOR) {
  const tables = await orderTables(t);
  const live = liveGateway();
  const sandbox = fakeGateway("https://api.example");
  const domain = createOrderDomain({
    sql: tables.sql,
    logger: capturingLogger([]),
    ...twoShopServices,
    gateway: live,
    testGateway: sandbox,
    publicBaseUrl: "https://api.example",
    paymentWindowMs: 3_600_000,
    midtransServerKey: SERVER_KEY,
  });
  const transport = createRouterTransport(createOrderRoutes(domain), { router: { interceptors: serverInterceptors(silent) }, transport: { interceptors: [actorInterceptor(actor)] } });
  const orders = createClient(OrderService, transport);
  const bank = createClient(BankReconciliationService, transport);
  async function newOrder(options: { testMode?: boolean; storeId?: string; paymentMethod?: string; idempotencyKey?: string } = {}) {
    const storeId = options.storeId ?? SHOP;
    const answer = await orders.createOrder({
      storeId,
      items: [{ ref: { case: "productId", value: storeId === SHOP ? KOPI : TEH }, quantity: 1 }],
      buyer,
      paymentMethod: options.paymentMethod ?? "bank_transfer",
      requestHash: "h",
      testMode: options.testMode ?? false,
      idempotencyKey: options.idempotencyKey,
    });
    return answer.detail!;
  }
  return { tables, domain, orders, bank, live, sandbox, newOrder };
}

const credit = (id: string, amount: bigint) => ({ id, amount, type: "credit", occurredAt: new Date(Date.now() + 1_000).toISOString(), description: "TRSF" });

test.serial("a test and a live bank-transfer order of one subtotal each take a code of their own space: the test order is not kept off the live one's code", async (t) => {
  const { newOrder, bank, orders } = await setup(t);
  // Both reach for the first never-used code: in one shared space the second would have to take another.
  const random = Math.random;
  Math.random = () => 0;
  let liveOrder, testOrder;
  try {
    liveOrder = (await newOrder()).order!;
    testOrder = (await newOrder({ testMode: true })).order!;
  } finally {
    Math.random = random;
  }
  t.is(liveOrder.amount, 15_001n);
  t.is(testOrder.amount, 15_001n, "the live order's code does not hold the test order off it");
  t.true(liveOrder.livemode);
  t.false(testOrder.livemode);

  // A test transfer of that amount pays the test order, and only it; a live one the live order.
  const [testResult] = (await bank.reconcileMutations({ storeId: SHOP, mutations: [credit("M-1", 15_001n)], testMode: true })).results;
  t.like(testResult, { result: "matched", orderId: testOrder.id });
  t.is((await orders.getOrder({ storeId: SHOP, orderId: liveOrder.id })).detail!.order!.status, "pending");
  // The same mutation id is the live ledger's own: not a duplicate of the test one.
  const [liveResult] = (await bank.reconcileMutations({ storeId: SHOP, mutations: [credit("M-1", 15_001n)] })).results;
  t.like(liveResult, { result: "matched", orderId: liveOrder.id });

  // Each list shows its own mode's mutations.
  t.deepEqual((await bank.listMutations({ storeId: SHOP, testMode: true })).mutations.map((m) => [m.id, m.orderId, m.livemode]), [["M-1", testOrder.id, false]]);
  t.deepEqual((await bank.listMutations({ storeId: SHOP })).mutations.map((m) => [m.id, m.orderId, m.livemode]), [["M-1", liveOrder.id, true]]);
});

test("a test transfer never pays a live order: with only a live order of its amount it waits for review, in test mode only", async (t) => {
  const { newOrder, bank, orders } = await setup(t);
  const liveOrder = (await newOrder()).order!;
  const [result] = (await bank.reconcileMutations({ storeId: SHOP, mutations: [credit("T-1", liveOrder.amount)], testMode: true })).results;
  t.like(result, { result: "unmatched", reason: "no order with this amount" });
  t.is((await orders.getOrder({ storeId: SHOP, orderId: liveOrder.id })).detail!.order!.status, "pending");
  t.is((await bank.countUnreviewed({ storeId: SHOP, testMode: true })).count, 1n);
  t.is((await bank.countUnreviewed({ storeId: SHOP })).count, 0n);
  // Assigning it to the live order: that order is not there for a test mutation.
  t.is((await failure(bank.assignMutation({ storeId: SHOP, mutationId: "T-1", orderId: liveOrder.id, testMode: true }))).code, Code.NotFound);
  t.is((await failure(bank.assignMutation({ storeId: SHOP, mutationId: "T-1", paymentReference: liveOrder.paymentReference, testMode: true }))).code, Code.NotFound);
  // And the test mutation is not there for the live ledger.
  t.is((await failure(bank.assignMutation({ storeId: SHOP, mutationId: "T-1", orderId: liveOrder.id }))).code, Code.NotFound);
  t.is((await failure(bank.dismissMutation({ storeId: SHOP, mutationId: "T-1" }))).code, Code.NotFound);
  t.like((await bank.dismissMutation({ storeId: SHOP, mutationId: "T-1", testMode: true })).mutation, { status: "dismissed", livemode: false });
});

test("every order RPC answers NOT_FOUND for the other mode's order", async (t) => {
  const { newOrder, orders } = await setup(t);
  const liveOrder = (await newOrder()).order!;
  const testOrder = (await newOrder({ testMode: true })).order!;
  for (const [order, testMode] of [
    [liveOrder, true],
    [testOrder, false],
  ] as const) {
    const key = { storeId: SHOP, orderId: order.id, testMode };
    const calls = {
      getOrder: orders.getOrder(key),
      getOrderPublic: orders.getOrder({ ...key, publicJson: true }),
      listOrdersAfter: orders.listOrders({ storeId: SHOP, limit: 10, startingAfter: order.id, testMode }),
      markOrderPaid: orders.markOrderPaid(key),
      cancelOrder: orders.cancelOrder(key),
      refundOrder: orders.refundOrder({ ...key, reason: "x", requestHash: "" }),
    };
    for (const [name, call] of Object.entries(calls)) t.is((await failure(call)).code, Code.NotFound, `${name} of a ${order.livemode ? "live" : "test"} order in the other mode`);
  }
  // Each is there in its own mode, unchanged.
  t.is((await orders.getOrder({ storeId: SHOP, orderId: liveOrder.id })).detail!.order!.status, "pending");
  t.is((await orders.getOrder({ storeId: SHOP, orderId: testOrder.id, testMode: true })).detail!.order!.status, "pending");
});

test("lists and counts show one mode; the order, its public JSON and its events carry livemode", async (t) => {
  const { newOrder, orders, tables } = await setup(t);
  const liveOrder = (await newOrder()).order!;
  const testOrders = [(await newOrder({ testMode: true })).order!, (await newOrder({ testMode: true })).order!];
  t.deepEqual((await orders.listOrders({ storeId: SHOP, limit: 10 })).orders.map((o) => o.id), [liveOrder.id]);
  t.deepEqual((await orders.listOrders({ storeId: SHOP, limit: 10, testMode: true })).orders.map((o) => o.id), testOrders.map((o) => o.id).reverse());
  t.deepEqual((await orders.listOrders({ storeId: SHOP, limit: 10, testMode: true, search: testOrders[0]!.paymentReference })).orders.map((o) => o.id), [testOrders[0]!.id]);
  t.deepEqual((await orders.listOrders({ storeId: SHOP, limit: 10, search: testOrders[0]!.paymentReference })).orders, []);
  t.is((await orders.countOrders({ storeId: SHOP })).count, 1n);
  t.is((await orders.countOrders({ storeId: SHOP, testMode: true })).count, 2n);
  t.is((await orders.countOrders({ storeId: SHOP, status: "pending", testMode: true })).count, 2n);

  const json = JSON.parse(Buffer.from((await orders.getOrder({ storeId: SHOP, orderId: testOrders[0]!.id, testMode: true, publicJson: true })).publicJson).toString());
  t.is(json.order.livemode, false);
  const [event] = await tables.sql<{ payload: { data: { livemode: boolean; order: { livemode: boolean } } } }[]>`
    select payload from outbox where order_id = ${testOrders[0]!.id}`;
  t.is(event!.payload.data.livemode, false);
  t.is(event!.payload.data.order.livemode, false);
  const [liveEvent] = await tables.sql<{ payload: { data: { livemode: boolean } } }[]>`select payload from outbox where order_id = ${liveOrder.id}`;
  t.is(liveEvent!.payload.data.livemode, true);
});

test("an Idempotency-Key of a test request and of a live one are separate: each makes its own order", async (t) => {
  const { newOrder } = await setup(t);
  const liveOrder = (await newOrder({ idempotencyKey: "order-1" })).order!;
  const testOrder = (await newOrder({ idempotencyKey: "order-1", testMode: true })).order!;
  t.not(testOrder.id, liveOrder.id);
  t.false(testOrder.livemode);
  // Within its mode the key still replays.
  t.is((await newOrder({ idempotencyKey: "order-1", testMode: true })).order!.id, testOrder.id);
  t.is((await newOrder({ idempotencyKey: "order-1" })).order!.id, liveOrder.id);
});

test("a test gateway order pays through the sandbox whatever the live gateway is, and nothing asks the live gateway about it", async (t) => {
  const { newOrder, orders, live, sandbox, tables } = await setup(t);
  const testDetail = await newOrder({ testMode: true, paymentMethod: "qris" });
  t.is(testDetail.order!.paymentProvider, "sandbox");
  t.regex(testDetail.order!.paymentUrl, /^https:\/\/api\.example\/sandbox\/pay\//);
  t.is(testDetail.payment!.snap!.clientKey, sandbox.clientKey);
  t.is(sandbox.sessions, 1);
  t.deepEqual(live.sessions, []);
  const [row] = await tables.sql<{ next_status_check_at: Date | null }[]>`select next_status_check_at from orders where id = ${testDetail.order!.id}`;
  t.is(row!.next_status_check_at, null, "no status check is scheduled for a test order");

  // The sandbox's signed settlement pays it on its own word: the live gateway is not asked.
  const fields = { order_id: testDetail.order!.paymentReference, status_code: "200", gross_amount: `${testDetail.order!.amount}.00` };
  const body = { ...fields, transaction_status: "settlement", signature_key: midtransSignature(fields, SERVER_KEY) };
  const outcome = await orders.handlePaymentNotification({ provider: "midtrans", body: Buffer.from(JSON.stringify(body)) });
  t.like(outcome, { status: "paid", changed: true });
  t.deepEqual(live.asked, []);

  const liveDetail = await newOrder({ paymentMethod: "qris" });
  t.is(liveDetail.order!.paymentProvider, "midtrans");
  t.deepEqual(live.sessions, [liveDetail.order!.paymentReference]);
});

test("SimulateTestOrder drives a pending test order as a notification would, and refuses the rest", async (t) => {
  const { newOrder, orders, tables } = await setup(t);
  for (const outcome of ["paid", "failed", "expired"]) {
    const order = (await newOrder({ testMode: true })).order!;
    const { order: changed } = await orders.simulateTestOrder({ storeId: SHOP, orderId: order.id, outcome });
    t.like(changed, { id: order.id, status: outcome, livemode: false });
    const { history } = await orders.getOrder({ storeId: SHOP, orderId: order.id, testMode: true, includeHistory: true });
    t.like(history.at(-1), { fromStatus: "pending", toStatus: outcome, cause: "simulated" });
    const events = await tables.sql<{ event_type: string }[]>`select event_type from outbox where order_id = ${order.id} order by created_at`;
    t.true(events.some((event) => event.event_type === `order.${outcome}`), `${outcome}: ${events.map((e) => e.event_type).join(", ")}`);
    // Not pending any more: a second simulation is refused.
    t.is((await failure(orders.simulateTestOrder({ storeId: SHOP, orderId: order.id, outcome: "paid" }))).code, Code.FailedPrecondition);
  }
  const liveOrder = (await newOrder()).order!;
  t.is((await failure(orders.simulateTestOrder({ storeId: SHOP, orderId: liveOrder.id, outcome: "paid" }))).code, Code.NotFound);
  t.is((await orders.getOrder({ storeId: SHOP, orderId: liveOrder.id })).detail!.order!.status, "pending");
  const othersTest = (await newOrder({ storeId: OTHER, testMode: true })).order!;
  t.is((await failure(orders.simulateTestOrder({ storeId: SHOP, orderId: othersTest.id, outcome: "paid" }))).code, Code.NotFound);
  const pending = (await newOrder({ testMode: true })).order!;
  t.like(await failure(orders.simulateTestOrder({ storeId: SHOP, orderId: pending.id, outcome: "settled" })), { code: Code.InvalidArgument, field: "outcome" });
});

test("SimulateTestOrder: a key with orders:write may, one without may not; a viewer may not, support may", async (t) => {
  const allowed: Actor[] = [
    { kind: "api_key", keyId: "k1", scopes: ["orders:write"] },
    { kind: "member", memberId: "m1", email: "s@example.com", role: "support" },
  ];
  const refused: Actor[] = [
    { kind: "api_key", keyId: "k2", scopes: ["orders:read", "catalog:read"] },
    { kind: "member", memberId: "m2", email: "v@example.com", role: "viewer" },
  ];
  for (const [actor, may] of [...allowed.map((a) => [a, true] as const), ...refused.map((a) => [a, false] as const)]) {
    const { newOrder, orders } = await setup(t, actor);
    const order = (await newOrder({ testMode: true })).order!;
    const call = orders.simulateTestOrder({ storeId: SHOP, orderId: order.id, outcome: "paid" });
    if (may) t.is((await call).order!.status, "paid", JSON.stringify(actor));
    else t.is((await failure(call)).code, Code.PermissionDenied, JSON.stringify(actor));
  }
});

test("the overview's sales count live orders only", async (t) => {
  const { newOrder, orders } = await setup(t);
  const paidTest = (await newOrder({ testMode: true })).order!;
  await orders.simulateTestOrder({ storeId: SHOP, orderId: paidTest.id, outcome: "paid" });
  await newOrder({ testMode: true });
  const paidLive = (await newOrder()).order!;
  await orders.markOrderPaid({ storeId: SHOP, orderId: paidLive.id });
  const pendingLive = (await newOrder()).order!;
  const summary = await orders.getSalesSummary({ storeId: SHOP });
  t.deepEqual(summary.paidToday, { $typeName: summary.paidToday!.$typeName, count: 1n, amount: paidLive.amount });
  t.deepEqual(summary.pending, { $typeName: summary.pending!.$typeName, count: 1n, amount: pendingLive.amount });
});
