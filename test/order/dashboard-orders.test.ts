// What the merchant dashboard (docs/dashboard.md#orders) asks the order service for, on real
// PostgreSQL: the Orders page's search by payment reference, external id or buyer
// email; the Overview's count of pending orders; an order's status history with
// causes. Orders are made through the public API, as a merchant's shop makes them.
import test, { type ExecutionContext } from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";
import { fieldViolations } from "../../platform/field-errors.js";

// The sweeper never runs within a test: an order past expires_at stays pending in the
// table until a read (or the count) writes the change.
let stack: Stack;
test.before(async () => {
  stack = await startStack({ sweepEveryMs: 3_600_000 });
});
test.after.always(async () => {
  await stack?.close();
});

async function newStore(name: string) {
  const store = await createStore(stack, Plan.GROWTH, name);
  const product = await createProduct(stack, store.storeId, "Kopi Gayo 250g", 85_000);
  return { ...store, productId: product.id };
}

type TestStore = Awaited<ReturnType<typeof newStore>>;

interface PublicOrder {
  id: string;
  status: string;
  payment_reference: string;
  external_id: string | null;
}

async function createOrder(
  t: ExecutionContext,
  store: TestStore,
  fields: { email?: string; external_id?: string; payment_method?: string } = {},
): Promise<PublicOrder> {
  const { email, ...rest } = fields;
  const response = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: store.productId, quantity: 1 }], buyer: { ...buyer, email: email ?? buyer.email }, payment_method: "bank_transfer", ...rest },
  });
  t.is(response.status, 201, response.text);
  return response.body.data.order;
}

/** The ids ListOrders answers for a search, newest first. */
async function search(store: TestStore, text: string, status = ""): Promise<string[]> {
  const { orders } = await stack.orders.listOrders({ storeId: store.storeId, limit: 50, offset: 0, status, search: text });
  return orders.map((order) => order.id);
}

async function count(store: TestStore, status: string): Promise<bigint> {
  return (await stack.orders.countOrders({ storeId: store.storeId, status })).count;
}

/** Moves the order's payment window into the past, as time would. */
async function overdue(orderId: string) {
  await stack.orderSql`update orders set expires_at = clock_timestamp() - interval '1 second' where id = ${orderId}`;
}

async function history(store: TestStore, orderId: string) {
  const response = await stack.orders.getOrder({ storeId: store.storeId, orderId, includeHistory: true });
  return response.history;
}

const causes = (rows: { fromStatus: string; toStatus: string; cause: string }[]) => rows.map((row) => `${row.fromStatus || "∅"}→${row.toStatus}: ${row.cause}`);

test("search finds an order by its payment reference in any letter case", async (t) => {
  const store = await newStore("Reference Store");
  const order = await createOrder(t, store);
  await createOrder(t, store);
  t.deepEqual(await search(store, order.payment_reference), [order.id]);
  t.deepEqual(await search(store, order.payment_reference.toLowerCase()), [order.id]);
  t.deepEqual(await search(store, order.payment_reference.slice(0, -1)), [], "not a prefix search");
});

test("search finds orders by external id exactly", async (t) => {
  const store = await newStore("External Id Store");
  const invoice = await createOrder(t, store, { external_id: "Inv-2024-0042" });
  await createOrder(t, store, { external_id: "Inv-2024-0043" });
  t.deepEqual(await search(store, "Inv-2024-0042"), [invoice.id]);
  t.deepEqual(await search(store, "INV-2024-0042"), [], "external ids are the merchant's, compared exactly");
  t.deepEqual(await search(store, "inv-2024-0042"), []);
});

test("search finds a buyer's orders by email in any letter case, newest first, with the status filter", async (t) => {
  const store = await newStore("Email Store");
  const first = await createOrder(t, store, { email: "Siti.Aminah@Example.co.id" });
  const second = await createOrder(t, store, { email: "siti.aminah@example.co.id", payment_method: "qris" });
  await createOrder(t, store, { email: "someone.else@example.co.id" });
  t.deepEqual(await search(store, "SITI.AMINAH@EXAMPLE.CO.ID"), [second.id, first.id]);
  t.deepEqual(await search(store, "siti.aminah@example.co.id"), [second.id, first.id]);
  t.deepEqual(await search(store, "siti.aminah@example"), []);

  await stack.orders.cancelOrder({ storeId: store.storeId, orderId: first.id });
  t.deepEqual(await search(store, "Siti.Aminah@example.co.id", "cancelled"), [first.id]);
  t.deepEqual(await search(store, "Siti.Aminah@example.co.id", "pending"), [second.id]);
  const [shown] = (await stack.orders.listOrders({ storeId: store.storeId, limit: 50, offset: 0, status: "", search: "siti.aminah@example.co.id" })).orders;
  t.like(shown, { id: second.id, status: "pending", buyer: { email: "siti.aminah@example.co.id" } });
});

test("search never shows another store's orders, by any of the three keys", async (t) => {
  const mine = await newStore("Mine");
  const theirs = await newStore("Theirs");
  const shared = { email: "budi@example.co.id", external_id: "ORDER-1" };
  const own = await createOrder(t, mine, shared);
  const foreign = await createOrder(t, theirs, shared);
  t.deepEqual(await search(mine, "ORDER-1"), [own.id]);
  t.deepEqual(await search(mine, "BUDI@example.co.id"), [own.id]);
  t.deepEqual(await search(mine, foreign.payment_reference), []);
  t.deepEqual(await search(mine, foreign.payment_reference.toLowerCase()), []);
  t.deepEqual(await search(theirs, "ORDER-1"), [foreign.id]);
  t.deepEqual(await search(theirs, own.payment_reference), []);
});

test("search over 254 characters is INVALID_ARGUMENT naming search", async (t) => {
  const store = await newStore("Long Search Store");
  const error = ConnectError.from(await t.throwsAsync(search(store, "a".repeat(255))));
  t.is(error.code, Code.InvalidArgument);
  t.is(fieldViolations(error)[0]?.field, "search");
  t.deepEqual(await search(store, "a".repeat(254)), []);
});

test("CountOrders counts an unswept order past expires_at as expired, never pending, and leaves the writing to the sweeper", async (t) => {
  const store = await newStore("Count Store");
  const late = await createOrder(t, store);
  const open = await createOrder(t, store);
  const cancelled = await createOrder(t, store);
  await stack.orders.cancelOrder({ storeId: store.storeId, orderId: cancelled.id });
  await overdue(late.id);
  const stored = async () => (await stack.orderSql<{ status: string }[]>`select status from orders where id = ${late.id}`)[0]!.status;
  t.is(await stored(), "pending", "nothing has expired it yet");

  t.is(await count(store, "pending"), 1n);
  t.is(await count(store, "expired"), 1n);
  t.is(await count(store, "cancelled"), 1n);
  t.is(await count(store, "paid"), 0n);
  t.is(await count(store, ""), 3n);
  // A count of a store with many due orders must not wait for their expiry to be written.
  t.is(await stored(), "pending", "the count wrote nothing");
  const events = await stack.orderSql<{ event_type: string }[]>`select event_type from outbox where order_id = ${late.id} order by event_type`;
  t.deepEqual(
    events.map((row) => row.event_type),
    ["order.created"],
  );
  t.is((await stack.orders.getOrder({ storeId: store.storeId, orderId: open.id })).detail!.order!.status, "pending");
  const other = await newStore("Empty Store");
  t.is(await count(other, ""), 0n, "another store's orders are not counted");
});

test("CountOrders counts a due order as expired even while another instance's sweep holds it locked", async (t) => {
  const store = await newStore("Locked Count Store");
  const late = await createOrder(t, store);
  await overdue(late.id);
  // The sweep's SKIP LOCKED lets this count's own expiry pass the row by.
  await stack.orderSql.begin(async (sweep) => {
    await sweep`select id from orders where id = ${late.id} for update`;
    t.is(await count(store, "pending"), 0n);
    t.is(await count(store, "expired"), 1n);
  });
  t.is(await count(store, "expired"), 1n);
});

test("GetOrder with history: the causes of creation, mark-paid and cancel, oldest first; only when asked", async (t) => {
  const store = await newStore("History Store");
  const paid = await createOrder(t, store);
  const cancelled = await createOrder(t, store);
  await stack.orders.markOrderPaid({ storeId: store.storeId, orderId: paid.id });
  await stack.orders.cancelOrder({ storeId: store.storeId, orderId: cancelled.id });

  const paidHistory = await history(store, paid.id);
  t.deepEqual(causes(paidHistory), ["∅→pending: created", "pending→paid: marked paid by the seller"]);
  t.deepEqual(causes(await history(store, cancelled.id)), ["∅→pending: created", "pending→cancelled: cancelled by the seller"]);
  for (const row of paidHistory) t.regex(row.at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  t.true(Date.parse(paidHistory[0]!.at) <= Date.parse(paidHistory[1]!.at));

  const plain = await stack.orders.getOrder({ storeId: store.storeId, orderId: paid.id });
  t.deepEqual(plain.history, []);
  t.is(plain.detail!.order!.status, "paid");
});

test("GetOrder with history: another store's order is NOT_FOUND", async (t) => {
  const mine = await newStore("History Mine");
  const theirs = await newStore("History Theirs");
  const order = await createOrder(t, theirs);
  const error = ConnectError.from(await t.throwsAsync(stack.orders.getOrder({ storeId: mine.storeId, orderId: order.id, includeHistory: true })));
  t.is(error.code, Code.NotFound);
  t.notRegex(error.rawMessage, /pending|created/);
});
