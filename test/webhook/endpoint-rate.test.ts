// Max deliveries per second (docs/webhooks.md#rate) across two webhook-service processes on one
// database and one JetStream consumer: an endpoint limited to 2 a second is sent at most
// a token bucket's bound (the burst and a second's refill) in any second, every delivery
// arrives, and another endpoint of the store is not held up behind it. Real PostgreSQL,
// NATS and loopback receivers.
import test from "ava";
import { freePort, spawnEntry } from "../helpers/process.js";
import { waitFor } from "../helpers/http.js";
import { startReceiver } from "../helpers/receiver.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, newShop, type Receiver } from "../helpers/webhooks.js";

const cleanups: (() => Promise<unknown>)[] = [];
let stack: Stack;
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "nats" } });
  cleanups.push(() => stack.close());
  // A second webhook service, as its own process from its own entry point: its own pool,
  // worker and consumer on the same database and JetStream consumer.
  const second = spawnEntry("services/webhook/main.ts", {
    DATABASE_URL: stack.dbUrl,
    NATS_URL: stack.config.NATS_URL,
    EVENTS_STREAM: stack.config.EVENTS_STREAM,
    EVENTS_CONSUMER: stack.config.EVENTS_CONSUMER,
    WEBHOOK_ADDR: `http://127.0.0.1:${await freePort()}`,
    CATALOG_ADDR: stack.catalogAddr,
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
    LOG_LEVEL: "info",
  });
  cleanups.push(() => second.stop("SIGKILL"));
  await second.waitFor(/"msg":"webhook listening"/, 60_000);
});
test.after.always(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

/** The most requests that arrived within any one second. */
const busiestSecond = (times: number[]) => Math.max(0, ...times.map((start) => times.filter((at) => at >= start && at < start + 1_000).length));

test("2 a second over two processes: about 2 in any second, none dropped; an unlimited endpoint is not held up", async (t) => {
  t.timeout(90_000);
  const shop = await newShop(stack, "Rate Store");
  const limited: Receiver = await startReceiver();
  const free: Receiver = await startReceiver();
  cleanups.push(() => limited.close(), () => free.close());
  const { endpoint } = await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: limited.url, description: "ERP", events: { all: true, types: [] } });
  await stack.webhooks!.createEndpoint({ storeId: shop.storeId, url: free.url, description: "BI", events: { all: true, types: [] } });
  const { endpoint: rated } = await stack.webhooks!.updateEndpoint({ storeId: shop.storeId, endpointId: endpoint!.id, maxPerSecond: "2" });
  t.is(rated!.maxPerSecond, 2);

  const orders = 12;
  await Promise.all(Array.from({ length: orders }, () => createOrder(t, stack, shop, "bank_transfer")));
  await waitFor(async () => free.received.length >= orders, 20_000, 50);
  const freeDoneAt = Date.now();
  await waitFor(async () => limited.received.length >= orders, 40_000, 50);

  t.is(new Set(limited.received.map((entry) => entry.headers["webhook-id"])).size, orders, "every event arrived once");
  // Judged on when each attempt started, as the service recorded it: what the bucket
  // governs. Arrival times add the machine's scheduling noise on top.
  // An attempt is recorded once its answer is in: the receiver may have the last request a moment before.
  const attempts = async () =>
    (await stack.webhooks!.listDeliveries({ storeId: shop.storeId, endpointId: endpoint!.id })).deliveries.flatMap((delivery) => delivery.attempts);
  await waitFor(async () => (await attempts()).length >= orders, 20_000, 50);
  const times = (await attempts()).map((attempt) => Date.parse(attempt.startedAt));
  t.is(times.length, orders, "one attempt each");
  const spreadMs = Math.max(...times) - Math.min(...times);
  t.log(`limited: ${orders} sent over ${spreadMs} ms, busiest second ${busiestSecond(times)}; unlimited done ${freeDoneAt - Math.min(...free.received.map((e) => e.at))} ms after its first`);
  // A token bucket's bound: the burst (2) plus what refills within the second (2).
  t.true(busiestSecond(times) <= 4, `at most the burst and one second's refill in any second (saw ${busiestSecond(times)})`);
  t.true(spreadMs >= ((orders - 2) / 2 - 1) * 1_000, `the rest waited for tokens: spread over ${spreadMs} ms`);
  t.true(free.received.length === orders && freeDoneAt <= Math.max(...times), "the unlimited endpoint finished first");
});
