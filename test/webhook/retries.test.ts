// Delivery outcomes and retries (docs/webhooks.md#retries): any 2xx is success; anything else is
// retried on WEBHOOK_RETRY_SCHEDULE (here 4 × 200 ms) and then marked failed; a longer
// Retry-After on 429/502/503/504 is honoured; 410 Gone disables the endpoint;
// redirects are not followed. Every attempt is recorded.
import test, { type ExecutionContext } from "ava";
import { waitFor } from "../helpers/http.js";
import { startReceiver, type Received, type Reply } from "../helpers/receiver.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, settled, shopWithReceiver, verify, type Receiver } from "../helpers/webhooks.js";

const SCHEDULE = ["200ms", "200ms", "200ms", "200ms"];
const MAX_ATTEMPTS = 1 + SCHEDULE.length;
const TIMEOUT_MS = 1_000;
const PATIENCE_MS = 30_000;

let stack: Stack;
const receivers: Receiver[] = [];
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "nats", env: { WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(",") }, timeoutMs: TIMEOUT_MS } });
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await stack?.close();
});

async function merchant(respond: (request: Received, index: number) => Reply, name: string) {
  const setup = await shopWithReceiver(stack, respond, name);
  receivers.push(setup.receiver);
  return setup;
}

/** The store's deliveries, with their attempts, as `listDeliveries` reports them. */
async function deliveriesOf(storeId: string) {
  return (await stack.webhooks!.listDeliveries({ storeId })).deliveries;
}

/** Waits for the store's only delivery to reach a final status, and returns it. */
async function finished(storeId: string, status: string) {
  await waitFor(async () => {
    const deliveries = await deliveriesOf(storeId);
    return deliveries.length === 1 && deliveries[0]!.status !== "pending";
  }, PATIENCE_MS);
  const [delivery] = await deliveriesOf(storeId);
  if (delivery!.status !== status) throw new Error(`delivery is ${delivery!.status}, expected ${status}: ${JSON.stringify(delivery)}`);
  return delivery!;
}

function assertNumbered(t: ExecutionContext, attempts: { number: number; startedAt: string }[]) {
  t.deepEqual(
    attempts.map((a) => a.number),
    attempts.map((_, index) => index + 1),
  );
  const started = attempts.map((a) => Date.parse(a.startedAt));
  t.deepEqual([...started].sort((a, b) => a - b), started, "attempts in time order");
}

test("a receiver failing three times gets the fourth attempt: succeeded, four attempts recorded, one webhook-id", async (t) => {
  const { shop, receiver, secret } = await merchant(
    (_, index) => (index < 3 ? { status: 500, body: `boom ${index}` } : { status: 200, body: "ok" }),
    "Flaky Store",
  );
  const order = await createOrder(t, stack, shop, "bank_transfer");
  const delivery = await finished(shop.storeId, "succeeded");

  t.is(delivery.attemptsMade, 4);
  t.is(delivery.eventType, "order.created");
  t.is(delivery.orderId, order.id);
  t.is(delivery.nextAttemptAt, "");
  t.deepEqual(
    delivery.attempts.map((a) => [a.statusCode, a.result]),
    [
      [500, "http_error"],
      [500, "http_error"],
      [500, "http_error"],
      [200, "succeeded"],
    ],
  );
  t.deepEqual(
    delivery.attempts.map((a) => a.responseExcerpt),
    ["boom 0", "boom 1", "boom 2", "ok"],
  );
  assertNumbered(t, delivery.attempts);
  for (const attempt of delivery.attempts) t.true(attempt.latencyMs >= 0);

  await settled(stack, [shop.storeId]);
  t.is(receiver.received.length, 4, "exactly four requests");
  t.deepEqual(
    receiver.received.map((entry) => entry.headers["webhook-id"]),
    Array(4).fill(delivery.eventId),
    "the same webhook-id on every attempt",
  );
  const bodies = new Set(receiver.received.map((entry) => entry.body));
  t.is(bodies.size, 1, "the same body on every attempt");
  for (const entry of receiver.received) {
    // webhook-timestamp is the time of this attempt (Unix seconds), and each attempt is signed for it.
    const stamp = Number(entry.headers["webhook-timestamp"]);
    t.true(Number.isInteger(stamp));
    t.true(stamp >= Math.floor(entry.at / 1000) - 1 && stamp <= Math.ceil(entry.at / 1000), `timestamp ${stamp} at ${entry.at}`);
    t.is(verify(secret, entry).data.order.id, order.id);
  }
});

test("a receiver that never answers: every attempt times out, then the delivery is failed", async (t) => {
  const { shop, receiver } = await merchant(() => "hang", "Hanging Store");
  await createOrder(t, stack, shop, "bank_transfer");
  const delivery = await finished(shop.storeId, "failed");

  t.is(delivery.attemptsMade, MAX_ATTEMPTS);
  t.is(delivery.attempts.length, MAX_ATTEMPTS, "1 + schedule length attempts");
  assertNumbered(t, delivery.attempts);
  for (const attempt of delivery.attempts) {
    t.is(attempt.result, "timeout");
    t.is(attempt.statusCode, 0);
    t.true(attempt.latencyMs >= TIMEOUT_MS - 10, `latency ${attempt.latencyMs}`);
  }
  t.is(delivery.nextAttemptAt, "");
  t.is(receiver.received.length, MAX_ATTEMPTS);
  t.is(new Set(receiver.received.map((entry) => entry.headers["webhook-id"])).size, 1);
});

test("410 Gone disables the endpoint; later events are not delivered; webhook set enables it again", async (t) => {
  let gone = true;
  const { shop, receiver } = await merchant(() => (gone ? { status: 410, body: "gone" } : { status: 200 }), "Gone Store");
  const order = await createOrder(t, stack, shop, "bank_transfer");
  const delivery = await finished(shop.storeId, "failed");
  t.is(delivery.attempts.length, 1, "no retry after 410");
  t.is(delivery.attempts[0]!.statusCode, 410);
  t.is(receiver.received.length, 1);
  const [endpoint] = await stack.webhookSql!<{ enabled: boolean; disabled_reason: string | null }[]>`
    select enabled, disabled_reason from endpoints where store_id = ${shop.storeId}`;
  t.false(endpoint!.enabled);
  t.truthy(endpoint!.disabled_reason);

  // Later events of the store are not delivered, even to a receiver that would now accept.
  gone = false;
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: order.id });
  await settled(stack, [shop.storeId]);
  t.is(receiver.received.length, 1);
  t.deepEqual(
    (await deliveriesOf(shop.storeId)).map((d) => d.eventType),
    ["order.created"],
  );

  // `webhook set` (SetEndpoint) on the same URL turns it back on, with a new secret.
  const { endpoint: again, secret } = await stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: receiver.url });
  t.true(again!.enabled);
  const [row] = await stack.webhookSql!<{ enabled: boolean }[]>`select enabled from endpoints where store_id = ${shop.storeId}`;
  t.true(row!.enabled);
  const next = await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => receiver.received.length === 2, PATIENCE_MS);
  const event = verify(secret, receiver.received[1]!);
  t.is(event.type, "order.created");
  t.is(event.data.order.id, next.id);
  await settled(stack, [shop.storeId]);
  t.is(receiver.received.length, 2);
});

test("a 302 is a failure and is not followed: the Location target gets nothing", async (t) => {
  const target = await startReceiver();
  receivers.push(target);
  const { shop, receiver } = await merchant(() => ({ status: 302, headers: { location: target.url } }), "Redirect Store");
  await createOrder(t, stack, shop, "bank_transfer");
  const delivery = await finished(shop.storeId, "failed");
  t.is(delivery.attempts.length, MAX_ATTEMPTS, "retried like any other failure, then failed");
  for (const attempt of delivery.attempts) {
    t.is(attempt.statusCode, 302);
    t.is(attempt.result, "http_error");
  }
  t.is(receiver.received.length, MAX_ATTEMPTS);
  t.is(target.received.length, 0, "the redirect was never followed");
});

for (const status of [503, 429, 502, 504]) {
  test(`Retry-After: 2 on a ${status} is honoured: the next attempt waits at least 2 s`, async (t) => {
    const { shop, receiver } = await merchant(
      (_, index) => (index === 0 ? { status, headers: { "retry-after": "2" } } : { status: 200 }),
      `Retry After ${status} Store`,
    );
    await createOrder(t, stack, shop, "bank_transfer");
    const delivery = await finished(shop.storeId, "succeeded");
    t.deepEqual(
      delivery.attempts.map((a) => a.statusCode),
      [status, 200],
    );
    t.is(receiver.received.length, 2);
    const gap = receiver.received[1]!.at - receiver.received[0]!.at;
    t.true(gap >= 2_000, `second attempt ${gap} ms after the first, though the schedule says 200 ms`);
    const startedGap = Date.parse(delivery.attempts[1]!.startedAt) - Date.parse(delivery.attempts[0]!.startedAt);
    t.true(startedGap >= 2_000, `attempts started ${startedGap} ms apart`);
  });
}

test("Retry-After as an HTTP date on a 503 is honoured too", async (t) => {
  let until = 0;
  const { shop, receiver } = await merchant((_, index) => {
    if (index > 0) return { status: 200 };
    // Three seconds ahead, written to the second: at least two seconds from now.
    until = Math.floor((Date.now() + 3_000) / 1000) * 1000;
    return { status: 503, headers: { "retry-after": new Date(until).toUTCString() } };
  }, "Retry After Date Store");
  await createOrder(t, stack, shop, "bank_transfer");
  const delivery = await finished(shop.storeId, "succeeded");
  t.deepEqual(
    delivery.attempts.map((a) => a.statusCode),
    [503, 200],
  );
  t.true(receiver.received[1]!.at >= until, `second attempt ${until - receiver.received[1]!.at} ms before the date`);
  t.true(receiver.received[1]!.at - receiver.received[0]!.at >= 2_000);
});

test("Retry-After on a 500 is not honoured: the schedule decides", async (t) => {
  const { shop, receiver } = await merchant(
    (_, index) => (index === 0 ? { status: 500, headers: { "retry-after": "60" } } : { status: 200 }),
    "Retry After 500 Store",
  );
  await createOrder(t, stack, shop, "bank_transfer");
  // Honouring it would hold the retry for a minute; the schedule's 200 ms wins.
  const delivery = await finished(shop.storeId, "succeeded");
  t.deepEqual(
    delivery.attempts.map((a) => a.statusCode),
    [500, 200],
  );
  const gap = receiver.received[1]!.at - receiver.received[0]!.at;
  t.true(gap < 60_000, `second attempt ${gap} ms after the first`);
});

for (const status of [204, 201, 202]) {
  test(`a ${status} is success: one attempt`, async (t) => {
    const { shop, receiver } = await merchant(() => ({ status }), `Status ${status} Store`);
    await createOrder(t, stack, shop, "bank_transfer");
    const delivery = await finished(shop.storeId, "succeeded");
    t.is(delivery.attempts.length, 1);
    t.is(delivery.attempts[0]!.statusCode, status);
    t.is(delivery.attempts[0]!.result, "succeeded");
    await settled(stack, [shop.storeId]);
    t.is(receiver.received.length, 1);
  });
}

test("a 4xx other than 410 is retried, not disabling the endpoint", async (t) => {
  const { shop, receiver } = await merchant(
    (_, index) => (index === 0 ? { status: 400 } : index === 1 ? { status: 404 } : { status: 200 }),
    "Client Error Store",
  );
  await createOrder(t, stack, shop, "bank_transfer");
  const delivery = await finished(shop.storeId, "succeeded");
  t.deepEqual(
    delivery.attempts.map((a) => [a.statusCode, a.result]),
    [
      [400, "http_error"],
      [404, "http_error"],
      [200, "succeeded"],
    ],
  );
  t.is(receiver.received.length, 3);
  const [row] = await stack.webhookSql!<{ enabled: boolean }[]>`select enabled from endpoints where store_id = ${shop.storeId}`;
  t.true(row!.enabled);
});

test("a long response body is recorded truncated", async (t) => {
  const { shop } = await merchant(() => ({ status: 200, body: "x".repeat(10_000) }), "Chatty Store");
  await createOrder(t, stack, shop, "bank_transfer");
  const delivery = await finished(shop.storeId, "succeeded");
  const excerpt = delivery.attempts[0]!.responseExcerpt;
  t.true(excerpt.length > 0 && excerpt.length < 10_000, `excerpt of ${excerpt.length} characters`);
  t.true(/^x+$/.test(excerpt));
});
