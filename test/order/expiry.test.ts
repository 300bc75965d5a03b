// Expiry (docs/orders.md#expiry): a pending order past expires_at turns expired, by the sweeper
// even when nobody reads it, and reads never show it pending. An expired order can
// still be paid late: by a gateway notification or by the seller's mark-paid.
import test, { type ExecutionContext } from "ava";
import { api } from "../helpers/http.js";
import { waitFor } from "../helpers/http.js";
import { midtransNotification, postNotification, visibleText } from "../helpers/midtrans-notify.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

// Orders live one second. `swept` runs the sweeper every 200 ms; `unswept` never
// within a test run, so what it shows comes from the read path alone.
let swept: Stack;
let unswept: Stack;
test.before(async () => {
  [swept, unswept] = await Promise.all([
    startStack({ orderEnv: { ORDER_PAYMENT_WINDOW: "1s" }, sweepEveryMs: 200 }),
    startStack({ orderEnv: { ORDER_PAYMENT_WINDOW: "1s" }, sweepEveryMs: 3_600_000 }),
  ]);
});
test.after.always(async () => {
  await Promise.all([swept?.close(), unswept?.close()]);
});

const PATIENCE_MS = 30_000;

async function newStore(stack: Stack, name: string) {
  const store = await createStore(stack, Plan.GROWTH, name);
  const product = await createProduct(stack, store.storeId, "Paket Data 10GB", 120_000);
  return { ...store, productId: product.id };
}

type TestStore = Awaited<ReturnType<typeof newStore>>;

async function createOrder(t: ExecutionContext, stack: Stack, store: TestStore, paymentMethod: string): Promise<any> {
  const response = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: store.productId, quantity: 1 }], buyer, payment_method: paymentMethod },
  });
  t.is(response.status, 201, response.text);
  return response.body.data.order;
}

async function getOrder(stack: Stack, store: TestStore, id: string): Promise<any> {
  const response = await api(stack.baseUrl, `/v1/orders/${id}`, { key: store.key });
  if (response.status !== 200) throw new Error(response.text);
  return response.body.data.order;
}

async function historyOf(stack: Stack, orderId: string): Promise<string[]> {
  const rows = await stack.orderSql<{ from_status: string | null; to_status: string }[]>`
    select from_status, to_status from order_status_history where order_id = ${orderId} order by id`;
  return rows.map((row) => `${row.from_status ?? "∅"}→${row.to_status}`);
}

async function outboxOf(stack: Stack, orderId: string): Promise<{ type: string; previous: string | null }[]> {
  const rows = await stack.orderSql<{ type: string; previous: string | null }[]>`
    select event_type as type, payload->'data'->>'previous_status' as previous
    from outbox where order_id = ${orderId} order by created_at, event_type`;
  return rows.map((row) => ({ type: row.type, previous: row.previous }));
}

/** Waits until the order's expires_at has passed by the test's own clock. */
async function pastExpiry(order: { expires_at: string }) {
  await waitFor(() => Date.now() > Date.parse(order.expires_at) + 50, PATIENCE_MS, 50);
}

test("the sweeper expires a pending bank-transfer order nobody reads, with history and events", async (t) => {
  const store = await newStore(swept, "Sweeper Store");
  const order = await createOrder(t, swept, store, "bank_transfer");
  t.is(order.status, "pending");

  // Only the database is watched: no API read may be what expires it.
  await waitFor(async () => (await outboxOf(swept, order.id)).some((event) => event.type === "order.expired"), PATIENCE_MS);

  t.deepEqual(await historyOf(swept, order.id), ["∅→pending", "pending→expired"]);
  t.deepEqual(
    (await outboxOf(swept, order.id)).sort((a, b) => a.type.localeCompare(b.type)),
    [
      { type: "order.created", previous: null },
      { type: "order.expired", previous: "pending" },
      { type: "orderUpdated", previous: "pending" },
    ],
  );

  const read = await getOrder(swept, store, order.id);
  t.is(read.status, "expired");
  t.false(read.requires_payment);
  const page = await api(read.checkout_url, "", { headers: { "accept-language": "en" } });
  const text = visibleText(page.text);
  t.true(text.includes("This order has expired"), text);
  t.false(text.includes("Transfer exactly"), text);
});

test("reads never show a pending order past expires_at, even before any sweep", async (t) => {
  const store = await newStore(unswept, "Read Path Store");
  const transfer = await createOrder(t, unswept, store, "bank_transfer");
  const gateway = await createOrder(t, unswept, store, "qris");
  await pastExpiry(transfer);
  await pastExpiry(gateway);

  const pendingList = await api(unswept.baseUrl, "/v1/orders?status=pending", { key: store.key });
  t.is(pendingList.status, 200);
  t.deepEqual(pendingList.body.data.items, []);

  const list = await api(unswept.baseUrl, "/v1/orders", { key: store.key });
  t.is(list.status, 200);
  const statuses = Object.fromEntries(list.body.data.items.map((item: any) => [item.id, item.status]));
  t.deepEqual(statuses, { [transfer.id]: "expired", [gateway.id]: "expired" });
  for (const item of list.body.data.items) t.false(item.requires_payment);

  const single = await getOrder(unswept, store, gateway.id);
  t.is(single.status, "expired");
  t.is(single.payment_url, single.checkout_url, "an expired order has no live payment page");

  // Reading the one order wrote its change like any other: one history row and both events.
  t.deepEqual(await historyOf(unswept, gateway.id), ["∅→pending", "pending→expired"]);
  t.deepEqual((await outboxOf(unswept, gateway.id)).map((event) => event.type).sort(), ["order.created", "order.expired", "orderUpdated"]);
  // A list only shows it: writing a store's due orders is the sweeper's work, never a read's.
  t.deepEqual(await historyOf(unswept, transfer.id), ["∅→pending"]);
});

test("orders due together are expired in one sweep's batch, each with its own history, events and transfer amount hold", async (t) => {
  const store = await newStore(swept, "Batch Expiry Store");
  const orders = [
    await createOrder(t, swept, store, "bank_transfer"),
    await createOrder(t, swept, store, "bank_transfer"),
    await createOrder(t, swept, store, "qris"),
    await createOrder(t, swept, store, "qris"),
  ];
  const ids = orders.map((order) => order.id as string);
  // Due at once, so the next sweep takes them together.
  await swept.orderSql`update orders set expires_at = clock_timestamp() - interval '1 second' where id = any(${ids}::uuid[])`;
  await waitFor(async () => {
    const rows = await swept.orderSql<{ status: string }[]>`select status from orders where id = any(${ids}::uuid[])`;
    return rows.every((row) => row.status === "expired");
  }, PATIENCE_MS);
  for (const id of ids) {
    t.deepEqual(await historyOf(swept, id), ["∅→pending", "pending→expired"], id);
    t.deepEqual((await outboxOf(swept, id)).map((event) => event.type).sort(), ["order.created", "order.expired", "orderUpdated"], id);
  }
  // A bank transfer's amount stays reserved for the grace after expiry, then is free.
  const holds = await swept.orderSql<{ order_id: string; reserved_until: Date }[]>`
    select order_id, reserved_until from transfer_amount_reservations where order_id = any(${ids}::uuid[])`;
  t.deepEqual(holds.map((hold) => hold.order_id).sort(), ids.slice(0, 2).sort());
  t.true(holds.every((hold) => hold.reserved_until.getFullYear() < 9999), "held until a time, no longer for ever");
});

test("the status filter sees due orders as expired: written and unwritten ones page together, newest first", async (t) => {
  const store = await newStore(unswept, "Filter Expiry Store");
  const first = await createOrder(t, unswept, store, "bank_transfer");
  const second = await createOrder(t, unswept, store, "qris");
  const third = await createOrder(t, unswept, store, "bank_transfer");
  const open = await createOrder(t, unswept, store, "qris");
  for (const order of [first, second, third]) await pastExpiry(order);
  // The second is written expired (a read of it did); the others are only due.
  t.is((await getOrder(unswept, store, second.id)).status, "expired");
  await unswept.orderSql`update orders set expires_at = clock_timestamp() + interval '1 hour' where id = ${open.id}`;

  const list = async (query: string) => {
    const response = await api(unswept.baseUrl, `/v1/orders?${query}`, { key: store.key });
    t.is(response.status, 200, response.text);
    return response.body.data as { items: { id: string; status: string }[]; has_more: boolean };
  };
  const expired = await list("status=expired");
  t.deepEqual(expired.items.map((item) => item.id), [third.id, second.id, first.id]);
  t.true(expired.items.every((item) => item.status === "expired"));
  t.deepEqual((await list("status=expired&limit=1&offset=1")).items.map((item) => item.id), [second.id]);
  const last = await list("status=expired&limit=2&offset=1");
  t.deepEqual(last.items.map((item) => item.id), [second.id, first.id]);
  t.false(last.has_more);
  t.deepEqual((await list("status=pending")).items.map((item) => item.id), [open.id]);
});

test("the checkout page of an order past expires_at shows it expired, before any sweep", async (t) => {
  const store = await newStore(unswept, "Checkout Expiry Store");
  const order = await createOrder(t, unswept, store, "bank_transfer");
  await pastExpiry(order);
  const page = await api(order.checkout_url, "", { headers: { "accept-language": "en" } });
  t.is(page.status, 200);
  const text = visibleText(page.text);
  t.true(text.includes("Expired"), text);
  t.true(text.includes(order.payment_reference), "the buyer can quote the reference to the seller");
  t.false(text.includes("Transfer exactly"), text);
});

test("a late settlement notification pays an expired gateway order", async (t) => {
  const store = await newStore(swept, "Late Payment Store");
  const order = await createOrder(t, swept, store, "qris");
  await waitFor(async () => (await getOrder(swept, store, order.id)).status === "expired", PATIENCE_MS);

  const body = midtransNotification(order.payment_reference, order.amount, { transaction_status: "settlement" }, swept.config.MIDTRANS_SERVER_KEY);
  const response = await postNotification(swept.baseUrl, body);
  t.is(response.status, 200, response.text);
  t.deepEqual(response.body.data, { order_id: order.id, status: "paid", changed: true });

  t.is((await getOrder(swept, store, order.id)).status, "paid");
  t.deepEqual(await historyOf(swept, order.id), ["∅→pending", "pending→expired", "expired→paid"]);
  const paidEvents = (await outboxOf(swept, order.id)).filter((event) => event.previous === "expired");
  t.deepEqual(paidEvents.map((event) => event.type).sort(), ["order.paid", "orderUpdated"]);
  const [payload] = await swept.orderSql<{ previous: string }[]>`
    select payload->'data'->>'previous_status' as previous from outbox where order_id = ${order.id} and event_type = 'order.paid'`;
  t.is(payload!.previous, "expired");
});

test("an expired bank-transfer order can still be marked paid by the seller", async (t) => {
  const store = await newStore(swept, "Mark Paid Store");
  const order = await createOrder(t, swept, store, "bank_transfer");
  await waitFor(async () => (await getOrder(swept, store, order.id)).status === "expired", PATIENCE_MS);

  const { order: marked } = await swept.orders.markOrderPaid({ storeId: store.storeId, orderId: order.id });
  t.is(marked!.status, "paid");
  const read = await getOrder(swept, store, order.id);
  t.is(read.status, "paid");
  t.false(read.requires_payment);
  t.deepEqual(await historyOf(swept, order.id), ["∅→pending", "pending→expired", "expired→paid"]);
  const [payload] = await swept.orderSql<{ previous: string }[]>`
    select payload->'data'->>'previous_status' as previous from outbox where order_id = ${order.id} and event_type = 'order.paid'`;
  t.is(payload!.previous, "expired");
});
