// Event payloads (docs/orders.md#events, docs/webhooks.md) come from one builder: the key order of the body is
// the key order a webhook receiver sees. Pure.
import test from "ava";
import { create } from "@bufbuild/protobuf";
import { OrderSchema } from "../../gen/order/v1/order_pb.js";
import { createdEvents, orderEventPayload, orderEvents, statusChangeEvents } from "../../services/order/events.js";
import { orderJson } from "../../common/public-json.js";

const ORDER_ID = "33333333-3333-4333-8333-333333333333";
const STORE_ID = "44444444-4444-4444-8444-444444444444";
const created = new Date("2026-01-02T03:04:05.678Z");
const updated = new Date("2026-01-02T04:05:06.789Z");

const order = create(OrderSchema, {
  id: ORDER_ID,
  storeId: STORE_ID,
  status: "paid",
  paymentReference: "SO-ABCDEFGHJKLM",
  amount: 50_123n,
  subtotal: 50_000n,
  currency: "IDR",
  buyer: { name: "Budi", email: "budi@example.co.id", phone: "+6281234567890" },
  items: [{ type: "product", title: "Kopi", quantity: 2, unitPrice: 25_000n, lineTotal: 50_000n, productId: "55555555-5555-4555-8555-555555555555" }],
  expiresAt: "2026-01-03T03:04:05.678Z",
  createdAt: created.toISOString(),
  updatedAt: updated.toISOString(),
  livemode: true,
});

let n = 0;
const ids = () => `id-${++n}`;

test("a payload is {type, timestamp, data: {store_id, order, previous_status, livemode}} in that key order", (t) => {
  const payload = orderEventPayload("order.paid", updated, STORE_ID, orderJson(order), "pending");
  t.deepEqual(Object.keys(payload), ["type", "timestamp", "data"]);
  t.deepEqual(Object.keys(payload.data), ["store_id", "order", "previous_status", "livemode"]);
  t.true(
    JSON.stringify(payload).startsWith(`{"type":"order.paid","timestamp":"2026-01-02T04:05:06.789Z","data":{"store_id":"${STORE_ID}","order":{"id":"${ORDER_ID}"`),
  );
  t.true(JSON.stringify(payload).endsWith(`},"previous_status":"pending","livemode":true}}`));
});

test("order.created: one event at the creation time, previous_status null, the order in its public JSON", (t) => {
  const events = createdEvents({ id: ORDER_ID, store_id: STORE_ID, created_at: created }, order, ids);
  t.is(events.length, 1);
  const [event] = events;
  t.like(event, { store_id: STORE_ID, order_id: ORDER_ID, event_type: "order.created" });
  t.regex(event!.id, /^id-\d+$/);
  t.deepEqual(event!.payload, {
    type: "order.created",
    timestamp: created.toISOString(),
    data: { store_id: STORE_ID, order: orderJson(order), previous_status: null, livemode: true },
  });
});

test("a status change: orderUpdated and the status event, stamped with updated_at, each with its own id", (t) => {
  const events = statusChangeEvents({ id: ORDER_ID, store_id: STORE_ID, status: "paid", updated_at: updated }, order, "pending", ids);
  t.deepEqual(
    events.map((event) => event.event_type),
    ["orderUpdated", "order.paid"],
  );
  t.deepEqual(
    events.map((event) => event.payload.type),
    ["orderUpdated", "order.paid"],
  );
  t.not(events[0]!.id, events[1]!.id);
  for (const event of events) {
    t.is(event.payload.timestamp, updated.toISOString());
    t.is(event.payload.data.previous_status, "pending");
    t.deepEqual(event.payload.data.order, orderJson(order));
    t.deepEqual(Object.keys(event), ["id", "store_id", "order_id", "event_type", "payload"]);
  }
});

test("without an id source the ids are random UUIDs", (t) => {
  const [a, b] = orderEvents(["orderUpdated", "order.cancelled"], { orderId: ORDER_ID, storeId: STORE_ID, at: updated, order, previousStatus: "pending" });
  t.regex(a!.id, /^[0-9a-f-]{36}$/);
  t.not(a!.id, b!.id);
});
