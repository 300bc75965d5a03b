// `store-admin webhook …` (docs/webhooks.md, docs/cli.md): the CLI, run in this process
// (test/helpers/cli.ts), against the services over gRPC. JSON on stdout; on error a message on stderr and exit 1.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { waitFor } from "../helpers/http.js";
import { createCliRunner } from "../helpers/cli.js";
import { startReceiver, type Received, type Reply } from "../helpers/receiver.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, newShop, settled, verify, type Receiver } from "../helpers/webhooks.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const PATIENCE_MS = 30_000;

let stack: Stack;
const receivers: Receiver[] = [];
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "nats", env: { WEBHOOK_RETRY_SCHEDULE: "200ms,200ms" } } });
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await stack?.close();
});

const runner = createCliRunner(() => ({
  CATALOG_ADDR: stack.catalogAddr,
  ORDER_ADDR: stack.orderAddr,
  WEBHOOK_ADDR: stack.webhookAddr!,
}));
const ok = (t: ExecutionContext, ...args: string[]) => runner.ok(t, ["webhook", ...args]);
const fails = (t: ExecutionContext, pattern: RegExp, ...args: string[]) => runner.fails(t, ["webhook", ...args], pattern);

async function receiver(respond?: (request: Received, index: number) => Reply) {
  const started = await startReceiver(respond);
  receivers.push(started);
  return started;
}

test("webhook set prints exactly {id, url, secret}; the secret verifies deliveries", async (t) => {
  const shop = await newShop(stack, "CLI Set Store");
  const hooks = await receiver();
  const printed = await ok(t, "set", "--store", shop.storeId, "--url", hooks.url);
  t.deepEqual(Object.keys(printed).sort(), ["id", "secret", "url"]);
  t.regex(printed.id, UUID);
  t.is(printed.url, hooks.url);
  t.regex(printed.secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);

  const order = await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => hooks.received.length === 1, PATIENCE_MS);
  t.is(verify(printed.secret, hooks.received[0]!).data.order.id, order.id);

  // Setting again (a new URL) keeps the endpoint id and gives a new secret.
  const moved = await receiver();
  const again = await ok(t, "set", "--store", shop.storeId, "--url", moved.url);
  t.is(again.id, printed.id);
  t.is(again.url, moved.url);
  t.not(again.secret, printed.secret);
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: order.id });
  await waitFor(() => moved.received.length === 2, PATIENCE_MS);
  for (const entry of moved.received) t.truthy(verify(again.secret, entry));
  await settled(stack, [shop.storeId]);
  t.is(hooks.received.length, 1, "the old URL gets nothing more");
});

test("webhook rotate prints a new secret; deliveries verify with old and new", async (t) => {
  const shop = await newShop(stack, "CLI Rotate Store");
  const hooks = await receiver();
  const set = await ok(t, "set", "--store", shop.storeId, "--url", hooks.url);
  const rotated = await ok(t, "rotate", "--store", shop.storeId);
  t.is(rotated.id, set.id);
  t.is(rotated.url, hooks.url);
  t.regex(rotated.secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
  t.not(rotated.secret, set.secret);
  t.regex(rotated.previous_secret_expires_at, ISO);
  // The default overlap is 24 h (docs/webhooks.md#secrets).
  const overlap = Date.parse(rotated.previous_secret_expires_at) - Date.now();
  t.true(overlap > 23 * 3_600_000 && overlap <= 24 * 3_600_000, `${overlap} ms`);

  await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => hooks.received.length === 1, PATIENCE_MS);
  t.truthy(verify(set.secret, hooks.received[0]!));
  t.truthy(verify(rotated.secret, hooks.received[0]!));
});

test("webhook deliveries lists deliveries with their attempts, and --order filters", async (t) => {
  const shop = await newShop(stack, "CLI Deliveries Store");
  // The first request fails, so one delivery shows a failed attempt and its retry.
  const hooks = await receiver((_, index) => (index === 0 ? { status: 500, body: "try later" } : { status: 200, body: "thanks" }));
  await ok(t, "set", "--store", shop.storeId, "--url", hooks.url);
  const first = await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => hooks.received.length === 2, PATIENCE_MS);
  const second = await createOrder(t, stack, shop, "bank_transfer");
  await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: second.id });
  await waitFor(() => hooks.received.length === 5, PATIENCE_MS);
  await settled(stack, [shop.storeId]);

  const all = await ok(t, "deliveries", "--store", shop.storeId);
  t.deepEqual(Object.keys(all), ["items"]);
  t.is(all.items.length, 4);
  for (const item of all.items) {
    t.regex(item.id, UUID);
    t.regex(item.event_id, UUID);
    t.regex(item.created_at, ISO);
    t.is(item.status, "succeeded");
    t.is(item.next_attempt_at, null);
    t.is(item.attempts_made, item.attempts.length);
    for (const attempt of item.attempts) {
      t.regex(attempt.started_at, ISO);
      t.true(Number.isInteger(attempt.latency_ms) && attempt.latency_ms >= 0);
    }
  }
  // Each delivery's event_id is the webhook-id the receiver saw.
  t.deepEqual(
    all.items.map((item: any) => item.event_id).sort(),
    [...new Set(hooks.received.map((entry) => String(entry.headers["webhook-id"])))].sort(),
  );

  const firstOnly = await ok(t, "deliveries", "--store", shop.storeId, "--order", first.id);
  t.is(firstOnly.items.length, 1);
  const [created] = firstOnly.items;
  t.is(created.order_id, first.id);
  t.is(created.event_type, "order.created");
  t.like(created.attempts[0], { number: 1, status_code: 500, result: "http_error", response_excerpt: "try later" });
  t.like(created.attempts[1], { number: 2, status_code: 200, result: "succeeded", response_excerpt: "thanks" });
  t.is(created.order_reference, first.payment_reference, "the order as a person names it");
  // Each attempt's headers as sent: the receiver got the same signature on the attempt that succeeded.
  const sentHeaders = Object.fromEntries(created.attempts[1].request_headers.map((h: { name: string; value: string }) => [h.name, h.value]));
  t.is(sentHeaders["webhook-id"], created.event_id);
  t.true(
    hooks.received.some((entry) => entry.headers["webhook-signature"] === sentHeaders["webhook-signature"] && entry.headers["webhook-timestamp"] === sentHeaders["webhook-timestamp"]),
    JSON.stringify(sentHeaders),
  );

  const secondOnly = await ok(t, "deliveries", "--store", shop.storeId, "--order", second.id);
  t.deepEqual(secondOnly.items.map((item: any) => item.event_type).sort(), ["order.created", "order.paid", "orderUpdated"]);
  for (const item of secondOnly.items) {
    t.is(item.order_id, second.id);
    t.deepEqual(
      item.attempts.map((a: any) => [a.status_code, a.result]),
      [[200, "succeeded"]],
    );
  }

  // Another store sees none of them.
  const other = await newShop(stack, "CLI Other Store");
  t.deepEqual(await ok(t, "deliveries", "--store", other.storeId), { items: [] });
  t.deepEqual(await ok(t, "deliveries", "--store", other.storeId, "--order", first.id), { items: [] });
});

test("webhook redeliver sends a delivery again with the same webhook-id", async (t) => {
  const shop = await newShop(stack, "CLI Redeliver Store");
  const hooks = await receiver();
  const set = await ok(t, "set", "--store", shop.storeId, "--url", hooks.url);
  const order = await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => hooks.received.length === 1, PATIENCE_MS);
  const [delivery] = (await ok(t, "deliveries", "--store", shop.storeId, "--order", order.id)).items;
  await waitFor(async () => (await ok(t, "deliveries", "--store", shop.storeId)).items[0].status === "succeeded", PATIENCE_MS);

  const redelivered = await ok(t, "redeliver", "--store", shop.storeId, "--delivery", delivery.id);
  t.is(redelivered.id, delivery.id);
  t.is(redelivered.event_id, delivery.event_id);
  await waitFor(() => hooks.received.length === 2, PATIENCE_MS);
  t.is(hooks.received[1]!.headers["webhook-id"], hooks.received[0]!.headers["webhook-id"]);
  t.is(hooks.received[1]!.headers["webhook-id"], delivery.event_id);
  t.is(hooks.received[1]!.body, hooks.received[0]!.body);
  t.truthy(verify(set.secret, hooks.received[1]!));

  await settled(stack, [shop.storeId]);
  const [after] = (await ok(t, "deliveries", "--store", shop.storeId, "--order", order.id)).items;
  t.is(after.status, "succeeded");
  t.is(after.attempts.length, 2, "the redelivery is logged as another attempt");
  t.is(hooks.received.length, 2);
});

test("webhook add and set --mode test make test endpoints, which list --mode test shows and a plain list does not; a bad --mode is refused", async (t) => {
  const shop = await newShop(stack, "CLI Mode Store");
  const live = await ok(t, "add", "--store", shop.storeId, "--url", "https://live.example.com/in");
  const sandbox = await ok(t, "add", "--store", shop.storeId, "--url", "https://sandbox.example.com/in", "--mode", "test");
  t.true(live.livemode);
  t.false(sandbox.livemode);
  const set = await ok(t, "set", "--store", shop.storeId, "--url", "https://set.example.com/in", "--mode", "test");
  t.is(set.id, sandbox.id, "the store's one test endpoint, replaced");
  t.deepEqual((await ok(t, "list", "--store", shop.storeId, "--mode", "test")).endpoints.map((e: any) => e.url), ["https://set.example.com/in"]);
  t.deepEqual((await ok(t, "list", "--store", shop.storeId)).endpoints.map((e: any) => e.id), [live.id]);
  await fails(t, /--mode must be live or test/, "add", "--store", shop.storeId, "--url", "https://x.example.com/in", "--mode", "sandbox");
});

test("errors: exit 1 with a message on stderr", async (t) => {
  const shop = await newShop(stack, "CLI Error Store");
  // No endpoint to rotate, for a real store and for an unknown one.
  await fails(t, /no webhook endpoint/, "rotate", "--store", shop.storeId);
  await fails(t, /no webhook endpoint/, "rotate", "--store", randomUUID());
  // Bad URLs.
  await fails(t, /url/i, "set", "--store", shop.storeId, "--url", "not a url");
  await fails(t, /url/i, "set", "--store", shop.storeId, "--url", "ftp://hooks.example.com/x");
  await fails(t, /url/i, "set", "--store", shop.storeId, "--url", "https://user:pw@hooks.example.com/x");
  // Missing or malformed arguments.
  await fails(t, /--url is required/, "set", "--store", shop.storeId);
  await fails(t, /--store is required/, "deliveries");
  await fails(t, /store_id must be a UUID/, "deliveries", "--store", "nope");
  await fails(t, /not found/, "redeliver", "--store", shop.storeId, "--delivery", randomUUID());
  await fails(t, /--delivery is required/, "redeliver", "--store", shop.storeId);
  // Nothing was registered by any of it.
  const rows = await stack.webhookSql!`select 1 from endpoints where store_id = ${shop.storeId}`;
  t.is(rows.length, 0);
});

test("webhook redeliver of another store's delivery is not found", async (t) => {
  const owner = await newShop(stack, "CLI Owner Store");
  const intruder = await newShop(stack, "CLI Intruder Store");
  const hooks = await receiver();
  await ok(t, "set", "--store", owner.storeId, "--url", hooks.url);
  await createOrder(t, stack, owner, "bank_transfer");
  await waitFor(() => hooks.received.length === 1, PATIENCE_MS);
  const [delivery] = (await ok(t, "deliveries", "--store", owner.storeId)).items;
  await fails(t, /not found/, "redeliver", "--store", intruder.storeId, "--delivery", delivery.id);
  await settled(stack, [owner.storeId]);
  t.is(hooks.received.length, 1);
});
