// A test key's whole flow on the real stack (docs/keys.md#test-mode): an order made with
// an sk_test_ key is a test order, paid by simulation, announced only to the store's test
// endpoint and listed only to test keys, while the same store's live key, orders and
// endpoint see none of it.
import test from "ava";
import { api, waitFor } from "../helpers/http.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, newShop, type Shop } from "../helpers/webhooks.js";
import { startReceiver } from "../helpers/receiver.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "in-process" } });
});
test.after.always(async () => {
  await stack?.close();
});

const bodies = (receiver: { received: { body: string }[] }) => receiver.received.map((entry) => JSON.parse(entry.body));

test("a test key creates, simulates and hears of its own orders only; the live key, orders and endpoint are untouched", async (t) => {
  const live = await newShop(stack, "Test Mode Store");
  const { secret: testKey } = await stack.stores.createApiKey({ storeId: live.storeId, name: "CI suite", testMode: true });
  t.regex(testKey, /^sk_test_/);
  const sandbox: Shop = { ...live, key: testKey };

  const liveReceiver = await startReceiver();
  const testReceiver = await startReceiver();
  t.teardown(() => Promise.all([liveReceiver.close(), testReceiver.close()]));
  await stack.webhooks!.setEndpoint({ storeId: live.storeId, url: liveReceiver.url });
  await stack.webhooks!.setEndpoint({ storeId: live.storeId, url: testReceiver.url, testMode: true });

  const liveOrder = await createOrder(t, stack, live, "bank_transfer");
  const testOrder = await createOrder(t, stack, sandbox, "bank_transfer");
  t.true(liveOrder.livemode);
  t.false(testOrder.livemode);
  t.is(testOrder.subtotal, liveOrder.subtotal);
  t.not(testOrder.amount, liveOrder.amount, "one subtotal, two modes: each order has its own transfer amount");

  // The other mode's ids are 404, and each key lists only its own mode.
  t.is((await api(stack.baseUrl, `/v1/orders/${liveOrder.id}`, { key: testKey })).status, 404);
  t.is((await api(stack.baseUrl, `/v1/orders/${testOrder.id}`, { key: live.key })).status, 404);
  const listed = async (key: string) => (await api(stack.baseUrl, "/v1/orders", { key })).body.data.items.map((order: any) => order.id);
  t.deepEqual(await listed(testKey), [testOrder.id]);
  t.deepEqual(await listed(live.key), [liveOrder.id]);

  // Simulation pays the test order; a live key cannot reach it, nor simulate its own live order.
  const simulate = (key: string, id: string, outcome: string) => api(stack.baseUrl, `/v1/test/orders/${id}/simulate`, { method: "POST", key, json: { outcome } });
  t.is((await simulate(live.key, liveOrder.id, "paid")).status, 404);
  t.is((await simulate(live.key, testOrder.id, "paid")).status, 404);
  const paid = await simulate(testKey, testOrder.id, "paid");
  t.is(paid.status, 200, paid.text);
  t.like(paid.body.data.order, { id: testOrder.id, status: "paid", livemode: false });
  t.is((await simulate(testKey, testOrder.id, "paid")).status, 409, "only a pending test order is simulated");

  // The test endpoint hears the test order's events; the live endpoint only the live order's.
  // The bus keeps the outbox's order, so once the test order's payment is heard the live order's creation was handled too.
  await waitFor(() => bodies(testReceiver).some((body) => body.type === "order.paid"), 30_000);
  await waitFor(() => liveReceiver.received.length >= 1, 30_000);
  t.deepEqual(bodies(testReceiver).map((body) => body.data.order.id), bodies(testReceiver).map(() => testOrder.id));
  t.true(bodies(testReceiver).every((body) => body.data.livemode === false));
  t.deepEqual(bodies(liveReceiver).map((body) => [body.type, body.data.order.id, body.data.livemode]), [["order.created", liveOrder.id, true]]);

  // Each key catches up on its own mode's events, with the data its endpoint was sent.
  const events = async (key: string) => (await api(stack.baseUrl, "/v1/events?limit=100", { key })).body.data.items;
  const byId = (pairs: [string, unknown][]) => Object.fromEntries(pairs);
  t.deepEqual(
    byId((await events(testKey)).map((event: any) => [event.id, event.data])),
    byId(testReceiver.received.map((entry) => [String(entry.headers["webhook-id"]), JSON.parse(entry.body).data])),
  );
  t.deepEqual((await events(live.key)).map((event: any) => event.data.order.id), [liveOrder.id]);

  // The live order never moved.
  const again = await api(stack.baseUrl, `/v1/orders/${liveOrder.id}`, { key: live.key });
  t.like(again.body.data.order, { status: "pending", livemode: true });
});
