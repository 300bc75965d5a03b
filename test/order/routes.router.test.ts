// The order service's gRPC handlers in memory (createRouterTransport): the real routes,
// domain modules and db/ statements over a database of the test's own (template-db.ts),
// fake catalog clients and a fake payment gateway. No network, no process. Each RPC's
// happy path, its argument errors (INVALID_ARGUMENT with the field in a BadRequest),
// NOT_FOUND, and the notification
// checks. The routes run behind the same server interceptors as on a real server
// (platform/rpc-server.ts: the text rule and the error mapping).
import { OPERATOR } from "../../common/actor.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import test, { type ExecutionContext } from "ava";
import { clone, create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { pino } from "pino";
import { GetOrderCatalogResponseSchema, GetStoreResponseSchema, ItemSchema, ItemStatus, ItemType, StoreSchema } from "../../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { midtransSignature } from "../../common/midtrans.js";
import { orderDetailJson } from "../../common/public-json.js";
import { createOrderDomain } from "../../services/order/domain.js";
import { createOrderRoutes } from "../../services/order/routes.js";
import { serverInterceptors } from "../../platform/rpc-server.js";
import { fakeGateway } from "../helpers/fake-payment-gateway.js";
import { orderTables } from "../helpers/order-tables.js";
import { capturingLogger } from "../helpers/logs.js";
import { failure } from "../helpers/rpc-failure.js";
import { fieldViolations } from "../../platform/field-errors.js";

const silent = pino({ level: "silent" });

const BASE = "https://shop.example";
const SERVER_KEY = "SB-Mid-server-router";
const SHOP = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"; // has a bank account
const KIOSK = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"; // has none
const NOWHERE = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"; // no such store
const KOPI = "11111111-1111-4111-8111-111111111111"; // 15 000
const TEH = "22222222-2222-4222-8222-222222222222"; // 7 500
const PAKET = "33333333-3333-4333-8333-333333333333"; // bundle, 20 000
const STIKER = "44444444-4444-4444-8444-444444444444"; // free
const DRAFT = "55555555-5555-4555-8555-555555555555"; // not published
const ES_TEH = "66666666-6666-4666-8666-666666666666"; // KIOSK's, 5 000
const MISSING = "99999999-9999-4999-8999-999999999999";

const catalogItems = [
  create(ItemSchema, { id: KOPI, storeId: SHOP, type: ItemType.PRODUCT, title: "Kopi Gayo", price: 15_000n, status: ItemStatus.PUBLISHED }),
  create(ItemSchema, { id: TEH, storeId: SHOP, type: ItemType.PRODUCT, title: "Teh Melati", price: 7_500n, status: ItemStatus.PUBLISHED }),
  create(ItemSchema, { id: PAKET, storeId: SHOP, type: ItemType.BUNDLE, title: "Paket", price: 20_000n, status: ItemStatus.PUBLISHED }),
  create(ItemSchema, { id: STIKER, storeId: SHOP, type: ItemType.PRODUCT, title: "Stiker", price: 0n, status: ItemStatus.PUBLISHED }),
  create(ItemSchema, { id: DRAFT, storeId: SHOP, type: ItemType.PRODUCT, title: "Draft", price: 1_000n, status: ItemStatus.DRAFT }),
  create(ItemSchema, { id: ES_TEH, storeId: KIOSK, type: ItemType.PRODUCT, title: "Es Teh", price: 5_000n, status: ItemStatus.PUBLISHED }),
];

const storeRows = new Map([
  [
    SHOP,
    create(StoreSchema, {
      id: SHOP,
      name: "Toko Kopi",
      bankAccount: { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" },
      redirects: { successUrl: "https://shop.example/thanks" },
    }),
  ],
  [KIOSK, create(StoreSchema, { id: KIOSK, name: "Kios" })],
]);

/** The catalog's two clients as the order service uses them, counting every call. */
function fakeCatalog() {
  // A copy per service: a test may change a price without touching the others.
  const items = catalogItems.map((item) => clone(ItemSchema, item));
  const calls = { getStore: 0, getOrderCatalog: 0 };
  function storeOf(id: string) {
    const store = storeRows.get(id);
    if (!store) throw new ConnectError(`store ${id} not found`, Code.NotFound);
    return store;
  }
  const stores = {
    async getStore({ id }: { id?: string }) {
      calls.getStore++;
      return create(GetStoreResponseSchema, { store: storeOf(id ?? "") });
    },
  };
  const catalog = {
    async getOrderCatalog({ storeId, ids }: { storeId?: string; ids?: string[] }) {
      calls.getOrderCatalog++;
      const store = storeOf(storeId ?? "");
      return create(GetOrderCatalogResponseSchema, { store, items: items.filter((item) => item.storeId === storeId && (ids ?? []).includes(item.id)) });
    },
  };
  return { stores, catalog, items, calls };
}

/** A fresh service: its own database, gateway and log. */
async function setup(t: ExecutionContext, options: { paymentWindowMs?: number } = {}) {
  const tables = await orderTables(t);
  const gateway = fakeGateway(BASE);
  const { stores, catalog, items: catalogNow, calls: catalogCalls } = fakeCatalog();
  const logs: { level: string; msg: string }[] = [];
  const logger = capturingLogger(logs, { labels: true });
  const domain = createOrderDomain({
    sql: tables.sql,
    logger,
    stores,
    catalog,
    gateway,
    publicBaseUrl: BASE,
    paymentWindowMs: options.paymentWindowMs ?? 3_600_000,
    midtransServerKey: SERVER_KEY,
  });
  const client = createClient(OrderService, createRouterTransport(createOrderRoutes(domain), { router: { interceptors: serverInterceptors(silent) }, transport: { interceptors: [actorInterceptor(OPERATOR)] } }));
  return { client, tables, gateway, logs, catalogNow, catalogCalls, domain };
}

type OrderClient = Client<typeof OrderService>;

const buyer = { name: "  Budi Santoso ", email: "budi@example.co.id", phone: "+6281234567890" };

function newOrder(client: OrderClient, fields: Record<string, unknown> = {}) {
  return client.createOrder({
    storeId: SHOP,
    items: [{ ref: { case: "productId", value: KOPI }, quantity: 2 }],
    buyer,
    paymentMethod: "bank_transfer",
    requestHash: "hash-1",
    ...fields,
  });
}

/** An order in KIOSK, which has no bank account: a gateway order. */
function kioskOrder(client: OrderClient, fields: Record<string, unknown> = {}) {
  return newOrder(client, { storeId: KIOSK, items: [{ ref: { case: "productId", value: ES_TEH }, quantity: 1 }], paymentMethod: "qris", ...fields });
}

/** Code, and the FieldViolation's field when there is one, of a failed call. */

function notification(reference: string, amount: number, transactionStatus: string, extra: Record<string, unknown> = {}, key = SERVER_KEY) {
  const fields = { order_id: reference, status_code: "200", gross_amount: `${amount}.00` };
  const body = { ...fields, transaction_status: transactionStatus, fraud_status: "accept", signature_key: midtransSignature(fields, key), ...extra };
  return { provider: "midtrans", body: new TextEncoder().encode(JSON.stringify(body)) };
}

// ListPaymentMethods

test("ListPaymentMethods: bank_transfer first for a store with a bank account, then the gateway codes", async (t) => {
  const { client } = await setup(t);
  const { methods } = await client.listPaymentMethods({ storeId: SHOP.toUpperCase() });
  t.like(methods[0], { code: "bank_transfer", kind: "bank_transfer", provider: "manual", settlementChannel: "seller_bank" });
  t.true(methods.slice(1).every((m) => m.kind === "gateway" && m.provider === "sandbox" && m.settlementChannel === "gateway"));
  t.true(methods.some((m) => m.code === "qris"));
  const kiosk = await client.listPaymentMethods({ storeId: KIOSK });
  t.false(kiosk.methods.some((m) => m.code === "bank_transfer"));
});

test("ListPaymentMethods: a store_id that is not a UUID is INVALID_ARGUMENT; an unknown store NOT_FOUND", async (t) => {
  const { client } = await setup(t);
  t.deepEqual(await failure(client.listPaymentMethods({ storeId: "shop" })), {
    code: Code.InvalidArgument,
    field: "store_id",
    message: "store_id: must be a UUID",
  });
  t.like(await failure(client.listPaymentMethods({ storeId: NOWHERE })), { code: Code.NotFound, message: `store ${NOWHERE} not found` });
});

// CreateOrder

test("CreateOrder: a bank-transfer order is priced from the catalog plus a unique code, with the seller's bank", async (t) => {
  const { client, tables, catalogCalls } = await setup(t);
  const { detail, replayed } = await newOrder(client, {
    items: [
      { ref: { case: "productId", value: KOPI }, quantity: 2 },
      { ref: { case: "bundleId", value: PAKET }, quantity: 1 },
    ],
  });
  t.false(replayed);
  const order = detail!.order!;
  t.is(order.status, "pending");
  t.is(order.subtotal, 50_000n);
  t.true(order.amount > 50_000n && order.amount <= 50_999n);
  t.deepEqual(
    order.items.map((item) => [item.type, item.title, item.quantity, item.unitPrice, item.lineTotal]),
    [
      ["product", "Kopi Gayo", 2, 15_000n, 30_000n],
      ["bundle", "Paket", 1, 20_000n, 20_000n],
    ],
  );
  t.is(order.buyer?.name, "Budi Santoso");
  t.regex(order.paymentReference, /^SO-[A-Z2-9]{12}$/);
  t.is(order.checkoutUrl, `${BASE}/checkout/${order.id}`);
  t.is(order.paymentUrl, order.checkoutUrl);
  t.true(order.requiresPayment);
  t.like(detail!.payment, { kind: "bank_transfer", provider: "manual", method: "bank_transfer", amount: order.amount });
  t.like(detail!.payment!.sellerBank, { bankName: "BCA", accountNumber: "1234567890", transferAmount: order.amount });
  t.is(detail!.payment!.sellerBank!.uniqueAmountCode, order.amount - 50_000n);
  // The request named no redirect: the store's success URL, else the checkout page.
  t.like(detail!.redirect, { successUrl: "https://shop.example/thanks", returnUrl: order.checkoutUrl, errorUrl: order.checkoutUrl });
  // One order.created event, written with the order.
  t.deepEqual(
    (await tables.outbox()).map((event) => event.event_type),
    ["order.created"],
  );
  t.deepEqual((await tables.history()), [{ order_id: order.id, from_status: null, to_status: "pending", cause: "created" }]);
  // Store (bank account, redirects) and prices came from a single catalog call.
  t.deepEqual(catalogCalls, { getStore: 0, getOrderCatalog: 1 });
});

test("CreateOrder: one catalog call per order, asked afresh each time: a new price applies to the next order", async (t) => {
  const { client, catalogNow, catalogCalls } = await setup(t);
  const first = (await newOrder(client)).detail!;
  t.is(first.order!.subtotal, 30_000n);
  t.deepEqual(catalogCalls, { getStore: 0, getOrderCatalog: 1 });

  catalogNow.find((item) => item.id === KOPI)!.price = 16_000n;
  const second = (await newOrder(client, { requestHash: "hash-2" })).detail!;
  t.is(second.order!.subtotal, 32_000n);
  t.deepEqual(second.order!.items.map((item) => item.unitPrice), [16_000n]);
  t.deepEqual(catalogCalls, { getStore: 0, getOrderCatalog: 2 });

  // A failed order costs one call too.
  await failure(newOrder(client, { items: [{ ref: { case: "productId", value: DRAFT }, quantity: 1 }] }));
  await failure(newOrder(client, { storeId: NOWHERE }));
  t.deepEqual(catalogCalls, { getStore: 0, getOrderCatalog: 4 });
});

test("CreateOrder: a gateway order gets its payment session at creation", async (t) => {
  const { client, gateway } = await setup(t);
  const { detail } = await newOrder(client, { paymentMethod: "qris" });
  t.is(gateway.sessions, 1);
  t.like(detail!.payment, { kind: "gateway", provider: "sandbox", method: "qris", amount: 30_000n });
  t.like(detail!.payment!.snap, { token: "tok-1", clientKey: "client-key", snapScriptUrl: `${BASE}/sandbox/snap.js` });
  t.is(detail!.order!.paymentUrl, `${BASE}/sandbox/pay/tok-1`);
  t.is(detail!.order!.amount, 30_000n);
});

test("CreateOrder: a free order is paid at once, with no payment method", async (t) => {
  const { client, tables } = await setup(t);
  const { detail } = await newOrder(client, { items: [{ ref: { case: "productId", value: STIKER }, quantity: 3 }], paymentMethod: "" });
  t.like(detail!.order, { status: "paid", amount: 0n, paymentMethod: "none", paymentProvider: "none", settlementChannel: "none", requiresPayment: false });
  t.is(detail!.payment!.kind, "none");
  t.deepEqual(
    (await tables.outbox()).map((event) => event.event_type),
    ["order.created", "orderUpdated", "order.paid"],
  );
});

test("CreateOrder: argument errors name their field", async (t) => {
  const { client, tables } = await setup(t);
  const cases: [Record<string, unknown>, string][] = [
    [{ storeId: "not-a-uuid" }, "store_id"],
    [{ items: [] }, "items"],
    [{ items: [{ ref: { case: "productId", value: "x" }, quantity: 1 }] }, "items[0].product_id"],
    [{ items: [{ ref: { case: "productId", value: KOPI }, quantity: 1001 }] }, "items[0].quantity"],
    [{ buyer: { ...buyer, email: "budi" } }, "buyer.email"],
    [{ buyer: undefined }, "buyer"],
    [{ redirect: { successUrl: "ftp://x", returnUrl: "", errorUrl: "" } }, "redirect.success_url"],
    [{ externalId: "x".repeat(65) }, "external_id"],
    [{ items: [{ ref: { case: "productId", value: MISSING }, quantity: 1 }] }, "items[0].product_id"],
    [{ items: [{ ref: { case: "productId", value: DRAFT }, quantity: 1 }] }, "items[0].product_id"],
    [{ items: [{ ref: { case: "bundleId", value: KOPI }, quantity: 1 }] }, "items[0].bundle_id"],
    [{ paymentMethod: "" }, "payment_method"],
    [{ paymentMethod: "bitcoin" }, "payment_method"],
  ];
  for (const [fields, field] of cases) {
    t.like(await failure(newOrder(client, fields)), { code: Code.InvalidArgument, field }, JSON.stringify(fields));
  }
  // Another store's item is not in this store.
  t.like(await failure(newOrder(client, { storeId: KIOSK })), { code: Code.InvalidArgument, field: "items[0].product_id" });
  t.like(await failure(newOrder(client, { storeId: NOWHERE })), { code: Code.NotFound, message: `store ${NOWHERE} not found` });
  t.is((await tables.count("orders")), 0);
});

test("CreateOrder: the same Idempotency-Key and body replay the first response; another body is ALREADY_EXISTS", async (t) => {
  const { client, tables } = await setup(t);
  const first = await newOrder(client, { idempotencyKey: "key-1" });
  const again = await newOrder(client, { idempotencyKey: "key-1" });
  t.false(first.replayed);
  t.true(again.replayed);
  t.deepEqual(again.detail, first.detail);
  t.like(await failure(newOrder(client, { idempotencyKey: "key-1", requestHash: "hash-2" })), { code: Code.AlreadyExists });
  t.is((await tables.count("orders")), 1);
  // A refused request frees its key for a corrected retry.
  t.like(await failure(newOrder(client, { idempotencyKey: "key-2", paymentMethod: "bitcoin" })), { field: "payment_method" });
  t.false((await newOrder(client, { idempotencyKey: "key-2" })).replayed);
  t.is((await tables.count("orders")), 2);
});

// GetOrder

test("GetOrder: the order of the store; only the public read (prepare_session) gives a gateway order without a session one", async (t) => {
  const { client, gateway } = await setup(t);
  gateway.createSession = async () => Promise.reject(new Error("gateway down"));
  const { detail: created } = await newOrder(client, { paymentMethod: "gopay" });
  t.is(created!.payment!.snap, undefined);
  t.is(created!.order!.paymentUrl, created!.order!.checkoutUrl);
  let asked = 0;
  gateway.createSession = async () => {
    asked++;
    return { token: "tok-late", redirectUrl: `${BASE}/sandbox/pay/tok-late` };
  };
  // The dashboard's and the CLI's read: no session, and the gateway is not asked.
  const looked = await client.getOrder({ storeId: SHOP, orderId: created!.order!.id, includeHistory: true });
  t.is(looked.detail!.payment!.snap, undefined);
  t.is(asked, 0);
  const { detail } = await client.getOrder({ storeId: SHOP, orderId: created!.order!.id.toUpperCase(), prepareSession: true });
  t.is(detail!.order!.id, created!.order!.id);
  t.is(detail!.payment!.snap?.token, "tok-late");
  t.is((await client.getOrder({ storeId: SHOP, orderId: created!.order!.id, prepareSession: true })).detail!.payment!.snap?.token, "tok-late");
  t.is(asked, 1);
  // Once made, every read shows the live session.
  t.is((await client.getOrder({ storeId: SHOP, orderId: created!.order!.id })).detail!.payment!.snap?.token, "tok-late");
});

test("GetOrder with public_json: the public API's JSON of the same detail, session prepared, and no message", async (t) => {
  const { client, gateway } = await setup(t);
  let asked = 0;
  gateway.createSession = async () => {
    asked++;
    return { token: "tok-json", redirectUrl: `${BASE}/sandbox/pay/tok-json` };
  };
  const { detail: created } = await newOrder(client, { paymentMethod: "gopay" });
  const answer = await client.getOrder({ storeId: SHOP, orderId: created!.order!.id, prepareSession: true, publicJson: true });
  t.is(answer.detail, undefined);
  const parsed = JSON.parse(Buffer.from(answer.publicJson).toString("utf8"));
  const { detail } = await client.getOrder({ storeId: SHOP, orderId: created!.order!.id });
  t.deepEqual(parsed, JSON.parse(JSON.stringify(orderDetailJson(detail!))), "what the gateway would render from the message");
  t.is(parsed.payment.snap.token, "tok-json");
  t.is(parsed.order.amount, Number(detail!.order!.amount), "money as integers");
  t.is(asked, 1);
  t.like(await failure(client.getOrder({ storeId: KIOSK, orderId: created!.order!.id, publicJson: true })), { code: Code.NotFound }, "another store's order, as without it");
});

test("GetOrder: bad ids are INVALID_ARGUMENT (store_id first); absent or another store's order NOT_FOUND", async (t) => {
  const { client } = await setup(t);
  const { detail } = await newOrder(client);
  const id = detail!.order!.id;
  t.like(await failure(client.getOrder({ storeId: "x", orderId: "y" })), { code: Code.InvalidArgument, field: "store_id" });
  t.like(await failure(client.getOrder({ storeId: SHOP, orderId: "y" })), { code: Code.InvalidArgument, field: "order_id" });
  t.like(await failure(client.getOrder({ storeId: SHOP, orderId: MISSING })), { code: Code.NotFound, message: `order ${MISSING} not found` });
  t.like(await failure(client.getOrder({ storeId: KIOSK, orderId: id })), { code: Code.NotFound });
});

test("GetOrder: a pending order past its window reads as expired, with its events", async (t) => {
  const { client, tables } = await setup(t, { paymentWindowMs: 0 });
  const { detail } = await newOrder(client);
  const read = await client.getOrder({ storeId: SHOP, orderId: detail!.order!.id });
  t.is(read.detail!.order!.status, "expired");
  t.false(read.detail!.order!.requiresPayment);
  t.deepEqual(
    (await tables.outbox()).map((event) => event.event_type),
    ["order.created", "orderUpdated", "order.expired"],
  );
});

test("GetOrder: no history unless asked, and then none is read", async (t) => {
  const { client, tables } = await setup(t);
  // Statements that read the history table.
  const reads = () => tables.statements.filter((statement) => /\bfrom order_status_history\b/.test(statement)).length;
  const id = (await newOrder(client)).detail!.order!.id;
  await client.markOrderPaid({ storeId: SHOP, orderId: id });
  const plain = await client.getOrder({ storeId: SHOP, orderId: id });
  t.deepEqual(plain.history, []);
  t.is(reads(), 0);
  const full = await client.getOrder({ storeId: SHOP, orderId: id, includeHistory: true });
  t.is(full.history.length, 2);
  t.is(reads(), 1);
  t.deepEqual(full.detail, plain.detail);
});

test("GetOrder with history: every change oldest first, with its cause and an RFC 3339 UTC time", async (t) => {
  const { client } = await setup(t);
  const paid = (await newOrder(client)).detail!.order!;
  await client.markOrderPaid({ storeId: SHOP, orderId: paid.id });
  const cancelled = (await newOrder(client)).detail!.order!;
  await client.cancelOrder({ storeId: SHOP, orderId: cancelled.id });
  const free = (await newOrder(client, { items: [{ ref: { case: "productId", value: STIKER }, quantity: 1 }] })).detail!.order!;

  const historyOf = async (orderId: string) => (await client.getOrder({ storeId: SHOP, orderId, includeHistory: true })).history;
  const shown = async (orderId: string) => (await historyOf(orderId)).map(({ fromStatus, toStatus, cause }) => [fromStatus, toStatus, cause]);
  t.deepEqual(await shown(paid.id), [
    ["", "pending", "created"],
    ["pending", "paid", "marked paid by the seller"],
  ]);
  t.deepEqual(await shown(cancelled.id), [
    ["", "pending", "created"],
    ["pending", "cancelled", "cancelled by the seller"],
  ]);
  t.deepEqual(await shown(free.id), [
    ["", "pending", "created"],
    ["pending", "paid", "free order"],
  ]);
  const [first, second] = await historyOf(paid.id);
  t.regex(first!.at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  t.true(Date.parse(first!.at) <= Date.parse(second!.at));
});

test("GetOrder with history: an order read past its window shows the expiry the read wrote", async (t) => {
  const { client } = await setup(t, { paymentWindowMs: 0 });
  const id = (await newOrder(client)).detail!.order!.id;
  const { detail, history } = await client.getOrder({ storeId: SHOP, orderId: id, includeHistory: true });
  t.is(detail!.order!.status, "expired");
  t.deepEqual(
    history.map(({ fromStatus, toStatus, cause }) => [fromStatus, toStatus, cause]),
    [
      ["", "pending", "created"],
      ["pending", "expired", "expiry"],
    ],
  );
});

test("GetOrder with history: another store's order is NOT_FOUND, not its history", async (t) => {
  const { client } = await setup(t);
  const id = (await newOrder(client)).detail!.order!.id;
  t.like(await failure(client.getOrder({ storeId: KIOSK, orderId: id, includeHistory: true })), { code: Code.NotFound });
  t.like(await failure(client.getOrder({ storeId: SHOP, orderId: MISSING, includeHistory: true })), { code: Code.NotFound });
});

// ListOrders

test("ListOrders: newest first, paged, filtered by status", async (t) => {
  const { client } = await setup(t);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await newOrder(client)).detail!.order!.id);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await client.cancelOrder({ storeId: SHOP, orderId: ids[0]! });
  const page = await client.listOrders({ storeId: SHOP, limit: 2, offset: 0, status: "" });
  t.deepEqual(
    page.orders.map((order) => order.id),
    [ids[2], ids[1]],
  );
  t.true(page.hasMore);
  const rest = await client.listOrders({ storeId: SHOP, limit: 2, offset: 2, status: "" });
  t.deepEqual(
    rest.orders.map((order) => order.id),
    [ids[0]],
  );
  t.false(rest.hasMore);
  const cancelled = await client.listOrders({ storeId: SHOP, limit: 50, offset: 0, status: "cancelled" });
  t.deepEqual(
    cancelled.orders.map((order) => [order.id, order.status]),
    [[ids[0], "cancelled"]],
  );
  t.deepEqual((await client.listOrders({ storeId: KIOSK, limit: 50, offset: 0, status: "" })).orders, []);
});

test("ListOrders: argument errors name limit, offset, status and store_id", async (t) => {
  const { client } = await setup(t);
  const base = { storeId: SHOP, limit: 20, offset: 0, status: "" };
  t.like(await failure(client.listOrders({ ...base, storeId: "x" })), { code: Code.InvalidArgument, field: "store_id" });
  t.like(await failure(client.listOrders({ ...base, limit: 0 })), { code: Code.InvalidArgument, field: "limit" });
  t.like(await failure(client.listOrders({ ...base, limit: 51 })), { code: Code.InvalidArgument, field: "limit" });
  t.like(await failure(client.listOrders({ ...base, offset: -1 })), { code: Code.InvalidArgument, field: "offset" });
  t.like(await failure(client.listOrders({ ...base, status: "shipped" })), { code: Code.InvalidArgument, field: "status" });
});

test("ListOrders search: a payment reference in any letter case, an external id exactly, a buyer email in any letter case", async (t) => {
  const { client } = await setup(t);
  const siti = { ...buyer, email: "Siti.Aminah@Example.co.id" };
  const tick = () => new Promise((resolve) => setTimeout(resolve, 2));
  const a = (await newOrder(client, { externalId: "INV-001" })).detail!.order!;
  await tick();
  const b = (await newOrder(client, { buyer: siti, externalId: "inv-002" })).detail!.order!;
  await tick();
  const c = (await newOrder(client, { buyer: siti, paymentMethod: "qris" })).detail!.order!;
  const search = async (text: string, status = "") =>
    (await client.listOrders({ storeId: SHOP, limit: 50, offset: 0, status, search: text })).orders.map((order) => order.id);

  t.deepEqual(await search(a.paymentReference), [a.id]);
  t.deepEqual(await search(a.paymentReference.toLowerCase()), [a.id]);
  t.deepEqual(await search("INV-001"), [a.id]);
  t.deepEqual(await search("inv-002"), [b.id]);
  t.deepEqual(await search("INV-002"), [], "an external id is matched exactly");
  t.deepEqual(await search("siti.aminah@example.co.id"), [c.id, b.id], "newest first");
  t.deepEqual(await search("SITI.AMINAH@EXAMPLE.CO.ID"), [c.id, b.id]);
  t.deepEqual(await search("siti.aminah@example"), [], "not a prefix or substring search");
  t.deepEqual(await search(` ${a.paymentReference}`), [], "not trimmed");

  await client.cancelOrder({ storeId: SHOP, orderId: b.id });
  t.deepEqual(await search(siti.email, "cancelled"), [b.id], "with the status filter");
  t.deepEqual(await search(siti.email, "pending"), [c.id]);
  t.deepEqual(await search("INV-001", "cancelled"), []);
});

test("ListOrders search: another store's orders never match, by any key", async (t) => {
  const { client } = await setup(t);
  const mine = (await newOrder(client, { externalId: "shared-id" })).detail!.order!;
  const theirs = (await kioskOrder(client, { externalId: "shared-id" })).detail!.order!;
  const search = async (storeId: string, text: string) =>
    (await client.listOrders({ storeId, limit: 50, offset: 0, status: "", search: text })).orders.map((order) => order.id);
  t.deepEqual(await search(SHOP, "shared-id"), [mine.id]);
  t.deepEqual(await search(KIOSK, "shared-id"), [theirs.id]);
  t.deepEqual(await search(SHOP, buyer.email), [mine.id]);
  t.deepEqual(await search(KIOSK, buyer.email.toUpperCase()), [theirs.id]);
  t.deepEqual(await search(SHOP, theirs.paymentReference), []);
  t.deepEqual(await search(KIOSK, mine.paymentReference.toLowerCase()), []);
});

test("ListOrders search: at most 254 characters, else INVALID_ARGUMENT naming search; control characters too", async (t) => {
  const { client } = await setup(t);
  const base = { storeId: SHOP, limit: 20, offset: 0, status: "" };
  t.deepEqual((await client.listOrders({ ...base, search: "x".repeat(254) })).orders, []);
  t.like(await failure(client.listOrders({ ...base, search: "x".repeat(255) })), { code: Code.InvalidArgument, field: "search" });
  t.like(await failure(client.listOrders({ ...base, search: "budi\u0000@example.co.id" })), { code: Code.InvalidArgument, field: "search" });
  // The status is checked first, as in the field order.
  t.like(await failure(client.listOrders({ ...base, status: "shipped", search: "x".repeat(255) })), { code: Code.InvalidArgument, field: "status" });
});

// CountOrders

test("CountOrders: by status or all, per store", async (t) => {
  const { client } = await setup(t);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await newOrder(client)).detail!.order!.id);
  await client.cancelOrder({ storeId: SHOP, orderId: ids[0]! });
  await client.markOrderPaid({ storeId: SHOP, orderId: ids[1]! });
  await kioskOrder(client);
  const count = async (storeId: string, status: string) => (await client.countOrders({ storeId, status })).count;
  t.is(await count(SHOP, ""), 3n);
  t.is(await count(SHOP, "pending"), 1n);
  t.is(await count(SHOP, "paid"), 1n);
  t.is(await count(SHOP, "cancelled"), 1n);
  t.is(await count(SHOP, "expired"), 0n);
  t.is(await count(KIOSK, ""), 1n);
  t.is(await count(KIOSK, "pending"), 1n);
  t.is(await count(NOWHERE, ""), 0n);
});

test("CountOrders: a pending order past its window counts as expired, and the count writes nothing (the sweeper does)", async (t) => {
  const { client, tables } = await setup(t, { paymentWindowMs: 0 });
  const id = (await newOrder(client)).detail!.order!.id;
  t.is((await tables.order(id))!.status, "pending");
  t.is((await client.countOrders({ storeId: SHOP, status: "pending" })).count, 0n);
  t.is((await client.countOrders({ storeId: SHOP, status: "expired" })).count, 1n);
  t.is((await tables.order(id))!.status, "pending");
  t.deepEqual(
    (await tables.outbox()).map((event) => event.event_type),
    ["order.created"],
  );
});

test("the sweeper expires due orders a batch at a time, in the same few statements however many: 120 due in batches of 50 take three", async (t) => {
  const { client, tables, domain } = await setup(t, { paymentWindowMs: 0 });
  const ids: string[] = [];
  for (let n = 0; n < 120; n++) ids.push((await newOrder(client, { paymentMethod: n % 2 ? "bank_transfer" : "qris" })).detail!.order!.id);
  const before = tables.statements.length;
  const batches: number[] = [];
  for (let expired = -1; expired !== 0; ) batches.push((expired = await domain.expiry.expireDue(50)));
  t.deepEqual(batches, [50, 50, 20, 0]);
  // Per batch: one statement each, not one per order.
  const sent = tables.statements.slice(before);
  const count = (pattern: RegExp) => sent.filter((statement) => pattern.test(statement)).length;
  const perBatch = {
    updateStatuses: /^\s*update orders o set status\b/,
    itemsOf: /\bfrom order_items where order_id = any\b/,
    liveSessionsOf: /\bfrom payment_sessions\b/,
    refundsOf: /\bfrom refunds where order_id = any\b/,
    insertHistoryAndEvents: /\binsert into order_status_history\b/,
    holdTransferAmounts: /\bupdate transfer_amount_reservations\b/,
  };
  for (const [name, pattern] of Object.entries(perBatch)) t.is(count(pattern), 3, name);
  t.is(count(/\bfrom orders\s+where status = 'pending' and expires_at <= statement_timestamp\(\)[^]*for update skip locked/), 4, "lockDueOrders");
  // Every order as if expired alone: its status, history, both events, and its transfer amount held for the grace.
  const statuses = await tables.direct<{ status: string }[]>`select status from orders where id = any(${ids}::uuid[])`;
  t.is(statuses.length, 120);
  t.true(statuses.every((row) => row.status === "expired"));
  const history = await tables.history();
  for (const id of ids) t.deepEqual(history.filter((entry) => entry.order_id === id).map((entry) => `${entry.from_status ?? "∅"}→${entry.to_status}:${entry.cause}`), ["∅→pending:created", "pending→expired:expiry"]);
  t.is((await tables.outbox()).filter((event) => event.event_type === "order.expired").length, 120);
  t.is((await tables.outbox()).filter((event) => event.event_type === "orderUpdated").length, 120);
  const held = await tables.direct<{ forever: boolean }[]>`
    select reserved_until = 'infinity' as forever from transfer_amount_reservations where order_id = any(${ids}::uuid[])`;
  t.is(held.length, 60, "each bank transfer's amount");
  t.true(held.every((reservation) => !reservation.forever), "held for the grace after expiry, not for ever");
});

test("CountOrders: a due order a concurrent sweep holds (so this read cannot expire it) still counts as expired", async (t) => {
  const { client, tables, domain } = await setup(t, { paymentWindowMs: 0 });
  const id = (await newOrder(client)).detail!.order!.id;
  // Another instance's sweep has the row locked (SKIP LOCKED: expireDue would find nothing).
  let locked!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (locked = resolve));
  const sweep = tables.direct.begin(async (tx) => {
    await tx`select id from orders where id = ${id} for update`;
    locked();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await held;
  t.is(await domain.expiry.expireDue(), 0, "the row is the other sweep's");
  t.is((await client.countOrders({ storeId: SHOP, status: "pending" })).count, 0n);
  t.is((await client.countOrders({ storeId: SHOP, status: "expired" })).count, 1n);
  t.is((await client.countOrders({ storeId: SHOP, status: "" })).count, 1n);
  t.is((await tables.order(id))!.status, "pending", "nothing was written by the count");
  release();
  await sweep;
});

test("CountOrders: argument errors name store_id and status", async (t) => {
  const { client } = await setup(t);
  t.like(await failure(client.countOrders({ storeId: "x", status: "" })), { code: Code.InvalidArgument, field: "store_id" });
  t.like(await failure(client.countOrders({ storeId: SHOP, status: "shipped" })), { code: Code.InvalidArgument, field: "status" });
  t.like(await failure(client.countOrders({ storeId: SHOP, status: "Pending" })), { code: Code.InvalidArgument, field: "status" });
});

// MarkOrderPaid and CancelOrder

test("MarkOrderPaid: pending → paid with history and both events; a repeat changes nothing", async (t) => {
  const { client, tables } = await setup(t);
  const id = (await newOrder(client)).detail!.order!.id;
  const { order } = await client.markOrderPaid({ storeId: SHOP, orderId: id });
  t.like(order, { id, status: "paid", requiresPayment: false });
  t.deepEqual((await tables.history()).at(-1), { order_id: id, from_status: "pending", to_status: "paid", cause: "marked paid by the seller" });
  const events = (await tables.outbox()).filter((event) => event.event_type !== "order.created");
  t.deepEqual(
    events.map((event) => event.event_type),
    ["orderUpdated", "order.paid"],
  );
  t.deepEqual(Object.keys(events[0]!.payload as object), ["type", "timestamp", "data"]);
  t.like((events[1]!.payload as { data: unknown }).data, { store_id: SHOP, previous_status: "pending", order: { id, status: "paid" } });
  await client.markOrderPaid({ storeId: SHOP, orderId: id });
  t.is((await tables.count("outbox")), 3);
});

test("MarkOrderPaid and CancelOrder: bad ids (order_id first), NOT_FOUND, and a refused transition", async (t) => {
  const { client } = await setup(t);
  const id = (await newOrder(client)).detail!.order!.id;
  for (const call of [client.markOrderPaid, client.cancelOrder]) {
    t.like(await failure(call({ storeId: "x", orderId: "y" })), { code: Code.InvalidArgument, field: "order_id" });
    t.like(await failure(call({ storeId: "x", orderId: id })), { code: Code.InvalidArgument, field: "store_id" });
    t.like(await failure(call({ storeId: SHOP, orderId: MISSING })), { code: Code.NotFound });
    t.like(await failure(call({ storeId: KIOSK, orderId: id })), { code: Code.NotFound });
  }
  t.is((await client.cancelOrder({ storeId: SHOP, orderId: id })).order!.status, "cancelled");
  t.like(await failure(client.markOrderPaid({ storeId: SHOP, orderId: id })), {
    code: Code.FailedPrecondition,
    message: `order ${id}: a cancelled order cannot be marked as paid`,
  });
});

// HandlePaymentNotification

test("HandlePaymentNotification: a signed settlement pays the order; the repeat is a no-op", async (t) => {
  const { client } = await setup(t);
  const order = (await newOrder(client, { paymentMethod: "qris" })).detail!.order!;
  const settle = notification(order.paymentReference, Number(order.amount), "settlement");
  t.like(await client.handlePaymentNotification(settle), { orderId: order.id, status: "paid", changed: true });
  t.like(await client.handlePaymentNotification(settle), { orderId: order.id, status: "paid", changed: false });
  // "pending" means nothing to do yet.
  const other = (await newOrder(client, { paymentMethod: "qris" })).detail!.order!;
  t.like(await client.handlePaymentNotification(notification(other.paymentReference, Number(other.amount), "pending")), {
    status: "pending",
    changed: false,
  });
});

test("HandlePaymentNotification: a bad signature is UNAUTHENTICATED and changes nothing", async (t) => {
  const { client } = await setup(t);
  const order = (await newOrder(client, { paymentMethod: "qris" })).detail!.order!;
  const forged = notification(order.paymentReference, Number(order.amount), "settlement", {}, "not-our-key");
  t.like(await failure(client.handlePaymentNotification(forged)), { code: Code.Unauthenticated, message: "bad notification signature" });
  const tampered = notification(order.paymentReference, Number(order.amount), "settlement", { signature_key: "00" });
  t.like(await failure(client.handlePaymentNotification(tampered)), { code: Code.Unauthenticated });
  t.is((await client.getOrder({ storeId: SHOP, orderId: order.id })).detail!.order!.status, "pending");
});

test("HandlePaymentNotification: unknown provider, not a notification, bad text, unknown order, wrong amount", async (t) => {
  const { client } = await setup(t);
  const order = (await newOrder(client, { paymentMethod: "qris" })).detail!.order!;
  const transfer = (await newOrder(client)).detail!.order!;
  const amount = Number(order.amount);
  t.like(await failure(client.handlePaymentNotification({ ...notification(order.paymentReference, amount, "settlement"), provider: "xendit" })), {
    code: Code.InvalidArgument,
  });
  t.like(await failure(client.handlePaymentNotification({ provider: "midtrans", body: new TextEncoder().encode("{}") })), {
    code: Code.InvalidArgument,
    message: "not a Midtrans notification",
  });
  t.like(await failure(client.handlePaymentNotification(notification(order.paymentReference, amount, "settle\u0001ment"))), {
    code: Code.InvalidArgument,
    field: "transaction_status",
  });
  t.like(await failure(client.handlePaymentNotification(notification("SO-NOSUCHORDER", amount, "settlement"))), { code: Code.NotFound });
  t.like(await failure(client.handlePaymentNotification(notification("not a reference", amount, "settlement"))), { code: Code.NotFound });
  // A bank-transfer order is not the gateway's.
  t.like(await failure(client.handlePaymentNotification(notification(transfer.paymentReference, Number(transfer.amount), "settlement"))), {
    code: Code.NotFound,
  });
  t.like(await failure(client.handlePaymentNotification(notification(order.paymentReference, amount + 1, "settlement"))), {
    code: Code.InvalidArgument,
    message: "gross_amount does not match the order amount",
  });
  t.is((await client.getOrder({ storeId: SHOP, orderId: order.id })).detail!.order!.status, "pending");
});

test("HandlePaymentNotification: money for a cancelled order is acknowledged and logged as needing a refund", async (t) => {
  const { client, logs } = await setup(t);
  const order = (await newOrder(client, { paymentMethod: "qris" })).detail!.order!;
  await client.cancelOrder({ storeId: SHOP, orderId: order.id });
  const paid = notification(order.paymentReference, Number(order.amount), "settlement");
  t.like(await client.handlePaymentNotification(paid), { orderId: order.id, status: "cancelled", changed: false });
  t.true(logs.some((line) => line.level === "error" && line.msg === "payment received for a cancelled order: refund needed"));
  const failed = notification(order.paymentReference, Number(order.amount), "deny");
  t.like(await client.handlePaymentNotification(failed), { status: "cancelled", changed: false });
  t.true(logs.some((line) => line.level === "warn" && line.msg === "notification refused by the status machine"));
});

// GetCheckout

test("GetCheckout: by order id (any case) or session token, with the store's name; anything else NOT_FOUND", async (t) => {
  const { client } = await setup(t);
  const order = (await newOrder(client, { paymentMethod: "qris" })).detail!.order!;
  const byId = await client.getCheckout({ key: { case: "orderId", value: order.id.toUpperCase() } });
  t.is(byId.storeName, "Toko Kopi");
  t.is(byId.detail!.order!.id, order.id);
  const token = byId.detail!.payment!.snap!.token;
  const byToken = await client.getCheckout({ key: { case: "sessionToken", value: token } });
  t.is(byToken.detail!.order!.id, order.id);
  t.like(await failure(client.getCheckout({ key: { case: "orderId", value: "not-a-uuid" } })), { code: Code.NotFound, message: "order not found" });
  t.like(await failure(client.getCheckout({ key: { case: "orderId", value: MISSING } })), { code: Code.NotFound });
  t.like(await failure(client.getCheckout({ key: { case: "sessionToken", value: "tok-none" } })), { code: Code.NotFound });
  t.like(await failure(client.getCheckout({})), { code: Code.NotFound });
});

// The seam itself.

test("the routes need only the domain: a hand-made orders object is enough", async (t) => {
  const calls: unknown[] = [];
  const routes = createOrderRoutes({
    orders: {
      paymentMethods: async (storeId) => {
        calls.push(storeId);
        return [{ code: "qris", name: "QRIS", kind: "gateway", provider: "midtrans", settlement_channel: "gateway" }];
      },
    } as Parameters<typeof createOrderRoutes>[0]["orders"],
    notifications: { handle: async () => ({ orderId: "o", status: "paid", changed: true }) },
    bank: {} as Parameters<typeof createOrderRoutes>[0]["bank"],
    refunds: {} as Parameters<typeof createOrderRoutes>[0]["refunds"],
    audit: {} as Parameters<typeof createOrderRoutes>[0]["audit"],
    sales: {} as Parameters<typeof createOrderRoutes>[0]["sales"],
    paymentLinks: {} as Parameters<typeof createOrderRoutes>[0]["paymentLinks"],
  });
  const client = createClient(OrderService, createRouterTransport(routes));
  const { methods } = await client.listPaymentMethods({ storeId: SHOP.toUpperCase() });
  t.like(methods, [{ code: "qris", name: "QRIS", kind: "gateway", provider: "midtrans", settlementChannel: "gateway" }]);
  t.deepEqual(calls, [SHOP]);
  t.like(await client.handlePaymentNotification({ provider: "anything" }), { orderId: "o", changed: true });
});

test("behind the server interceptors: a control character is INVALID_ARGUMENT and a dropped database is UNAVAILABLE", async (t) => {
  const routes = createOrderRoutes({
    orders: {
      paymentMethods: async () => {
        throw Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), { code: "CONNECTION_CLOSED" });
      },
    } as unknown as Parameters<typeof createOrderRoutes>[0]["orders"],
    notifications: { handle: async () => ({ orderId: "o", status: "paid", changed: true }) },
    bank: {} as Parameters<typeof createOrderRoutes>[0]["bank"],
    refunds: {} as Parameters<typeof createOrderRoutes>[0]["refunds"],
    audit: {} as Parameters<typeof createOrderRoutes>[0]["audit"],
    sales: {} as Parameters<typeof createOrderRoutes>[0]["sales"],
    paymentLinks: {} as Parameters<typeof createOrderRoutes>[0]["paymentLinks"],
  });
  const client = createClient(OrderService, createRouterTransport(routes, { router: { interceptors: serverInterceptors(silent) } }));
  const bad = ConnectError.from(await t.throwsAsync(client.listPaymentMethods({ storeId: `${SHOP}\u0000` })));
  t.is(bad.code, Code.InvalidArgument);
  t.is(fieldViolations(bad)[0]?.field, "store_id");
  const down = ConnectError.from(await t.throwsAsync(client.listPaymentMethods({ storeId: SHOP })));
  t.is(down.code, Code.Unavailable);
  t.notRegex(down.rawMessage, /5432|CONNECTION_CLOSED/);
});

test("GetSalesSummary: paid today and this month, pending, and 30 days with today last", async (t) => {
  const { client } = await setup(t);
  const pending = await newOrder(client, { requestHash: "sales-1" });
  const paid = await newOrder(client, { requestHash: "sales-2" });
  await client.markOrderPaid({ storeId: SHOP, orderId: paid.detail!.order!.id });
  const summary = await client.getSalesSummary({ storeId: SHOP });
  const amount = (detail: typeof paid) => BigInt(detail.detail!.order!.amount);
  t.deepEqual([summary.paidToday!.count, summary.paidToday!.amount], [1n, amount(paid)]);
  t.deepEqual([summary.paidThisMonth!.count, summary.paidThisMonth!.amount], [1n, amount(paid)]);
  t.deepEqual([summary.pending!.count, summary.pending!.amount], [1n, amount(pending)]);
  t.is(summary.days.length, 30);
  t.is(summary.days.at(-1)!.amount, amount(paid), "today's bar is the paid order");
  t.true(summary.days.slice(0, -1).every((day) => day.amount === 0n));
  t.deepEqual((await client.getSalesSummary({ storeId: KIOSK })).paidToday, { $typeName: "order.v1.SalesTotal", count: 0n, amount: 0n } as never);
});

test("ListOrders with a cursor: a keyset walk of every order once, newest first, in pages up to 500; a bad cursor or an offset with one is refused", async (t) => {
  const { client } = await setup(t);
  const made: string[] = [];
  for (let i = 0; i < 7; i++) made.push((await newOrder(client, { requestHash: `walk-${i}` })).detail!.order!.id);
  const walked: string[] = [];
  let page = await client.listOrders({ storeId: SHOP, limit: 3 });
  walked.push(...page.orders.map((o) => o.id));
  while (page.hasMore) {
    t.truthy(page.nextCursor);
    page = await client.listOrders({ storeId: SHOP, limit: 3, cursor: page.nextCursor });
    walked.push(...page.orders.map((o) => o.id));
  }
  t.deepEqual(walked, [...made].reverse(), "every order once, newest first");
  t.is(page.nextCursor, "", "no cursor after the last page");
  const first = await client.listOrders({ storeId: SHOP, limit: 1 });
  t.is((await client.listOrders({ storeId: SHOP, limit: 500, cursor: first.nextCursor })).orders.length, 6, "500 a page with a cursor");
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 501, cursor: first.nextCursor })), { code: Code.InvalidArgument, field: "limit" });
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 51 })), { code: Code.InvalidArgument, field: "limit" });
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 5, cursor: "not-a-cursor" })), { code: Code.InvalidArgument, field: "cursor" });
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 5, offset: 2, cursor: first.nextCursor })), { code: Code.InvalidArgument, field: "offset" });
});
