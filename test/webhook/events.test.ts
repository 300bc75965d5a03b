// Order events as a merchant's webhook receiver sees them (docs/orders.md#events, docs/webhooks.md#body): every
// status change produces exactly `orderUpdated` and its status event, creation
// produces `order.created`, each with the right previous_status and the public Order,
// over the real outbox → NATS JetStream → webhook service → HTTP path.
import test, { type ExecutionContext } from "ava";
import { waitFor } from "../helpers/http.js";
import { startReceiver } from "../helpers/receiver.js";
import { startStack, type Stack } from "../helpers/stack.js";
import {
  createOrder,
  getOrder,
  newShop,
  notify,
  settled,
  shopWithReceiver,
  verify,
  type Receiver,
  type Shop,
} from "../helpers/webhooks.js";

// `stack` keeps orders pending for a day; `expiring` gives them one second and sweeps
// every 200 ms.
let stack: Stack;
let expiring: Stack;
const receivers: Receiver[] = [];
test.before(async () => {
  [stack, expiring] = await Promise.all([
    startStack({ webhooks: { bus: "nats" } }),
    startStack({ webhooks: { bus: "nats" }, orderEnv: { ORDER_PAYMENT_WINDOW: "1s" }, sweepEveryMs: 200 }),
  ]);
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await Promise.all([stack?.close(), expiring?.close()]);
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const PATIENCE_MS = 30_000;

/** "type previous→status": what one event says, in one string. */
// A refund's event says what became of the refund; an order's event, its status change.
const describe = (event: any) =>
  event.type.startsWith("refund.") ? `${event.type} ${event.data.refund.status} ${event.data.refund.amount}` : `${event.type} ${event.data.previous_status ?? "∅"}→${event.data.order.status}`;

async function merchant(target: Stack, name: string) {
  const setup = await shopWithReceiver(target, undefined, name);
  receivers.push(setup.receiver);
  return setup;
}

/**
 * Waits for `expected` events at the receiver, lets everything of the store settle,
 * then checks the received set is exactly `expected` and every body is well formed.
 */
async function assertReceived(
  t: ExecutionContext,
  target: Stack,
  setup: { shop: Shop; receiver: Receiver; secret: string },
  order: { id: string },
  expected: string[],
) {
  const { shop, receiver, secret } = setup;
  await waitFor(() => receiver.received.length >= expected.length, PATIENCE_MS);
  await settled(target, [shop.storeId]);
  const events = receiver.received.map((entry) => verify(secret, entry));
  t.deepEqual(events.map(describe).sort(), [...expected].sort(), "exactly these events, no others");

  const current = await getOrder(target, shop, order.id);
  const publicKeys = Object.keys(current).sort();
  for (const [index, event] of events.entries()) {
    const entry = receiver.received[index]!;
    t.is(entry.headers["content-type"], "application/json");
    t.deepEqual(Object.keys(event).sort(), ["data", "timestamp", "type"]);
    t.deepEqual(Object.keys(event.data).sort(), event.type.startsWith("refund.") ? ["livemode", "order", "refund", "store_id"] : ["livemode", "order", "previous_status", "store_id"]);
    t.regex(event.timestamp, ISO);
    t.false(Number.isNaN(Date.parse(event.timestamp)));
    t.is(event.data.store_id, shop.storeId);
    t.is(event.data.order.id, order.id);
    t.deepEqual(Object.keys(event.data.order).sort(), publicKeys, "data.order is the public Order shape");
    t.is(event.data.order.currency, "IDR");
    t.true(Array.isArray(event.data.order.items) && event.data.order.items.length === 1);
    t.is(event.data.order.items[0].quantity, 2);
    t.is(event.data.order.amount, current.amount);
  }

  // The newest status event carries the order as the API shows it now.
  const newest = events.filter((event) => event.type !== "orderUpdated" && event.data.order.status === current.status);
  t.true(newest.length >= 1);
  t.deepEqual(newest.at(-1)!.data.order, current, "the latest event's order is what GET /v1/orders/{id} returns");

  // orderUpdated and the status event of one change: same change, different webhook-id.
  const ids = new Set(receiver.received.map((entry) => entry.headers["webhook-id"]));
  t.is(ids.size, receiver.received.length, "every event has its own webhook-id");
  for (const updated of events.filter((event) => event.type === "orderUpdated")) {
    const twin = events.find(
      (event) =>
        event.type === `order.${updated.data.order.status}` && event.data.previous_status === updated.data.previous_status,
    );
    t.truthy(twin, `a status event accompanies ${describe(updated)}`);
    t.deepEqual(twin.data, updated.data);
    t.is(twin.timestamp, updated.timestamp);
  }

  // The delivery records agree: one succeeded delivery per event, keyed by webhook-id.
  const { deliveries } = await target.webhooks!.listDeliveries({ storeId: shop.storeId, orderId: order.id });
  t.is(deliveries.length, expected.length);
  t.deepEqual(deliveries.map((d) => d.eventId).sort(), [...ids].map(String).sort());
  for (const delivery of deliveries) {
    t.is(delivery.status, "succeeded");
    t.is(delivery.attempts.length, 1);
    t.is(delivery.attempts[0]!.statusCode, 200);
    t.is(delivery.attempts[0]!.result, "succeeded");
  }
  return events;
}

test("order.created at creation: previous_status null, the pending order", async (t) => {
  const setup = await merchant(stack, "Created Store");
  const order = await createOrder(t, stack, setup.shop, "bank_transfer");
  const [event] = await assertReceived(t, stack, setup, order, ["order.created ∅→pending"]);
  t.is(event.data.previous_status, null);
  t.is(event.data.order.payment_reference, order.payment_reference);
  t.is(event.data.order.amount, order.amount);
  t.is(event.timestamp, order.created_at);
});

test("pending → paid by a settlement notification: orderUpdated and order.paid", async (t) => {
  const setup = await merchant(stack, "Settlement Store");
  const order = await createOrder(t, stack, setup.shop, "qris");
  await notify(t, stack, order, { transaction_status: "settlement" });
  await assertReceived(t, stack, setup, order, ["order.created ∅→pending", "orderUpdated pending→paid", "order.paid pending→paid"]);
});

test("pending → paid by mark-paid (the seller saw the transfer)", async (t) => {
  const setup = await merchant(stack, "Mark Paid Store");
  const order = await createOrder(t, stack, setup.shop, "bank_transfer");
  await stack.orders.markOrderPaid({ storeId: setup.shop.storeId, orderId: order.id });
  await assertReceived(t, stack, setup, order, ["order.created ∅→pending", "orderUpdated pending→paid", "order.paid pending→paid"]);
});

test("pending → failed by a deny notification: orderUpdated and order.failed", async (t) => {
  const setup = await merchant(stack, "Deny Store");
  const order = await createOrder(t, stack, setup.shop, "qris");
  await notify(t, stack, order, { transaction_status: "deny" });
  await assertReceived(t, stack, setup, order, ["order.created ∅→pending", "orderUpdated pending→failed", "order.failed pending→failed"]);
});

test("pending → cancelled by cancel: orderUpdated and order.cancelled", async (t) => {
  const setup = await merchant(stack, "Cancel Store");
  const order = await createOrder(t, stack, setup.shop, "bank_transfer");
  await stack.orders.cancelOrder({ storeId: setup.shop.storeId, orderId: order.id });
  await assertReceived(t, stack, setup, order, [
    "order.created ∅→pending",
    "orderUpdated pending→cancelled",
    "order.cancelled pending→cancelled",
  ]);
});

test("pending → expired by the sweeper: orderUpdated and order.expired", async (t) => {
  const setup = await merchant(expiring, "Expiry Store");
  const order = await createOrder(t, expiring, setup.shop, "bank_transfer");
  // Nobody reads the order: the sweeper alone expires it.
  await assertReceived(t, expiring, setup, order, [
    "order.created ∅→pending",
    "orderUpdated pending→expired",
    "order.expired pending→expired",
  ]);
});

test("expired → paid by a late settlement: both changes, each with its previous_status", async (t) => {
  const setup = await merchant(expiring, "Late Payment Store");
  const order = await createOrder(t, expiring, setup.shop, "qris");
  await waitFor(() => setup.receiver.received.length >= 3, PATIENCE_MS);
  t.is((await getOrder(expiring, setup.shop, order.id)).status, "expired");
  await notify(t, expiring, order, { transaction_status: "settlement" });
  await assertReceived(t, expiring, setup, order, [
    "order.created ∅→pending",
    "orderUpdated pending→expired",
    "order.expired pending→expired",
    "orderUpdated expired→paid",
    "order.paid expired→paid",
  ]);
});

test("failed → paid when the buyer retries: order.paid with previous_status failed", async (t) => {
  const setup = await merchant(stack, "Retry Store");
  const order = await createOrder(t, stack, setup.shop, "qris");
  await notify(t, stack, order, { transaction_status: "deny" });
  await waitFor(() => setup.receiver.received.length >= 3, PATIENCE_MS);
  await notify(t, stack, order, { transaction_status: "settlement" });
  await assertReceived(t, stack, setup, order, [
    "order.created ∅→pending",
    "orderUpdated pending→failed",
    "order.failed pending→failed",
    "orderUpdated failed→paid",
    "order.paid failed→paid",
  ]);
});

test("paid → refunded by a refund notification: orderUpdated, order.refunded and refund.succeeded", async (t) => {
  const setup = await merchant(stack, "Refund Store");
  const order = await createOrder(t, stack, setup.shop, "qris");
  await notify(t, stack, order, { transaction_status: "settlement" });
  await notify(t, stack, order, { transaction_status: "refund" });
  await assertReceived(t, stack, setup, order, [
    "order.created ∅→pending",
    "orderUpdated pending→paid",
    "order.paid pending→paid",
    "orderUpdated paid→refunded",
    "order.refunded paid→refunded",
    `refund.succeeded succeeded ${order.amount}`,
  ]);
});

test("a free order: order.created, then orderUpdated and order.paid at once", async (t) => {
  const setup = await merchant(stack, "Free Store");
  const order = await createOrder(t, stack, setup.shop, undefined, setup.shop.freeProductId);
  t.is(order.status, "paid");
  t.is(order.amount, 0);
  await assertReceived(t, stack, setup, order, ["order.created ∅→pending", "orderUpdated pending→paid", "order.paid pending→paid"]);
});

test("repeated and refused notifications send nothing more", async (t) => {
  const setup = await merchant(stack, "Repeat Store");
  const order = await createOrder(t, stack, setup.shop, "qris");
  await notify(t, stack, order, { transaction_status: "settlement" });
  t.like(await notify(t, stack, order, { transaction_status: "settlement" }), { status: "paid", changed: false });
  // paid → failed / cancelled are not moves the status machine allows.
  t.like(await notify(t, stack, order, { transaction_status: "deny" }), { status: "paid", changed: false });
  t.like(await notify(t, stack, order, { transaction_status: "cancel" }), { status: "paid", changed: false });
  await stack.orders.markOrderPaid({ storeId: setup.shop.storeId, orderId: order.id });
  await assertReceived(t, stack, setup, order, ["order.created ∅→pending", "orderUpdated pending→paid", "order.paid pending→paid"]);
});

test("a redelivery carries the same webhook-id and the same body", async (t) => {
  const setup = await merchant(stack, "Redelivery Store");
  const order = await createOrder(t, stack, setup.shop, "bank_transfer");
  await stack.orders.markOrderPaid({ storeId: setup.shop.storeId, orderId: order.id });
  await assertReceived(t, stack, setup, order, ["order.created ∅→pending", "orderUpdated pending→paid", "order.paid pending→paid"]);

  const { deliveries } = await stack.webhooks!.listDeliveries({ storeId: setup.shop.storeId, orderId: order.id });
  const paid = deliveries.find((d) => d.eventType === "order.paid")!;
  const updated = deliveries.find((d) => d.eventType === "orderUpdated")!;
  const first = setup.receiver.received.find((entry) => entry.headers["webhook-id"] === paid.eventId)!;
  t.truthy(first);
  t.not(paid.eventId, updated.eventId);

  await stack.webhooks!.redeliver({ storeId: setup.shop.storeId, deliveryId: paid.id });
  await waitFor(() => setup.receiver.received.length === 4, PATIENCE_MS);
  const again = setup.receiver.received[3]!;
  t.is(again.headers["webhook-id"], paid.eventId, "the same webhook-id, so the receiver can dedupe");
  t.is(again.body, first.body, "byte for byte the same event");
  t.deepEqual(verify(setup.secret, again), verify(setup.secret, first));

  await waitFor(async () => {
    const [delivery] = (await stack.webhooks!.listDeliveries({ storeId: setup.shop.storeId, orderId: order.id })).deliveries.filter(
      (d) => d.id === paid.id,
    );
    return delivery!.status === "succeeded" && delivery!.attempts.length === 2;
  }, PATIENCE_MS);
  t.is(setup.receiver.received.length, 4, "only the redelivered event came again");
});

test("a store without an endpoint gets nothing, and other stores' events never reach a receiver", async (t) => {
  const mine = await merchant(stack, "Own Store");
  const other = await merchant(stack, "Other Store");
  const silent = await newShop(stack, "No Endpoint Store");
  const stray = await startReceiver();
  receivers.push(stray);

  const myOrder = await createOrder(t, stack, mine.shop, "bank_transfer");
  const otherOrder = await createOrder(t, stack, other.shop, "bank_transfer");
  const silentOrder = await createOrder(t, stack, silent, "bank_transfer");
  await stack.orders.markOrderPaid({ storeId: other.shop.storeId, orderId: otherOrder.id });
  await stack.orders.markOrderPaid({ storeId: silent.storeId, orderId: silentOrder.id });
  await stack.orders.cancelOrder({ storeId: mine.shop.storeId, orderId: myOrder.id });

  await waitFor(() => mine.receiver.received.length >= 3 && other.receiver.received.length >= 3, PATIENCE_MS);
  await settled(stack, [mine.shop.storeId, other.shop.storeId, silent.storeId]);

  t.deepEqual(mine.receiver.events().map(describe).sort(), [
    "order.cancelled pending→cancelled",
    "order.created ∅→pending",
    "orderUpdated pending→cancelled",
  ]);
  t.true(mine.receiver.events().every((event) => event.data.store_id === mine.shop.storeId && event.data.order.id === myOrder.id));
  t.deepEqual(other.receiver.events().map(describe).sort(), ["order.created ∅→pending", "order.paid pending→paid", "orderUpdated pending→paid"]);
  t.true(other.receiver.events().every((event) => event.data.store_id === other.shop.storeId));
  // Another store's secret does not verify this store's events either.
  t.throws(() => verify(other.secret, mine.receiver.received[0]!));

  // The store without an endpoint: no deliveries recorded, nothing sent anywhere.
  t.deepEqual((await stack.webhooks!.listDeliveries({ storeId: silent.storeId })).deliveries, []);
  const [row] = await stack.webhookSql!<{ n: number }[]>`select count(*)::int as n from deliveries where store_id = ${silent.storeId}`;
  t.is(row!.n, 0);
  t.is(stray.received.length, 0);
  for (const receiver of [mine.receiver, other.receiver]) {
    t.false(receiver.events().some((event) => event.data.store_id === silent.storeId));
  }
});
