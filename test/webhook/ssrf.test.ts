// The SSRF guard (docs/webhooks.md#destinations): destinations resolving to loopback, private or
// link-local addresses, and http://, are refused unless configuration allows them,
// and the check runs at send time (on the addresses actually connected to).
import test, { type ExecutionContext } from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { waitFor } from "../helpers/http.js";
import { startReceiver } from "../helpers/receiver.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, newShop, settled, type Receiver } from "../helpers/webhooks.js";
import { sendWebhook } from "../../services/webhook/sender.js";
import { generateSecret } from "../../services/webhook/signing.js";

const PATIENCE_MS = 30_000;

// `guarded`: http:// allowed (so loopback receivers can exist), private destinations not.
// `httpsOnly`: private destinations allowed, http:// not.
let guarded: Stack;
let httpsOnly: Stack;
const receivers: Receiver[] = [];
test.before(async () => {
  [guarded, httpsOnly] = await Promise.all([
    startStack({ webhooks: { bus: "nats", env: { WEBHOOK_ALLOW_PRIVATE: "false", WEBHOOK_ALLOW_HTTP: "true" } } }),
    startStack({ webhooks: { bus: "nats", env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_ALLOW_HTTP: "false" } } }),
  ]);
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await Promise.all([guarded?.close(), httpsOnly?.close()]);
});

async function receiver() {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

/** An order event for the shop; returns its one delivery once finished. */
async function deliverTo(t: ExecutionContext, stack: Stack, shop: Awaited<ReturnType<typeof newShop>>) {
  const { storeId } = shop;
  await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(async () => {
    const { deliveries } = await stack.webhooks!.listDeliveries({ storeId });
    return deliveries.length === 1 && deliveries[0]!.status !== "pending";
  }, PATIENCE_MS);
  await settled(stack, [storeId]);
  const { deliveries } = await stack.webhooks!.listDeliveries({ storeId });
  t.is(deliveries.length, 1);
  return deliveries[0]!;
}

function assertRefused(t: ExecutionContext, delivery: Awaited<ReturnType<typeof deliverTo>>) {
  t.is(delivery.status, "refused");
  t.is(delivery.attemptsMade, 1, "a refused destination is not retried");
  t.is(delivery.attempts.length, 1);
  t.is(delivery.attempts[0]!.result, "refused");
  t.is(delivery.attempts[0]!.statusCode, 0);
  t.truthy(delivery.attempts[0]!.error);
}

const destinations: { name: string; url: (port: number) => string }[] = [
  { name: "loopback 127.0.0.1", url: (port) => `http://127.0.0.1:${port}/hooks` },
  { name: "private 10.1.2.3", url: () => "http://10.1.2.3/hooks" },
  { name: "cloud metadata 169.254.169.254", url: () => "http://169.254.169.254/latest/meta-data" },
  { name: "IPv6 loopback [::1]", url: (port) => `http://[::1]:${port}/hooks` },
  { name: "a name resolving to loopback (localhost)", url: (port) => `http://localhost:${port}/hooks` },
  { name: "loopback written as one decimal number", url: (port) => `http://2130706433:${port}/hooks` },
  { name: "IPv4-mapped IPv6 loopback", url: (port) => `http://[::ffff:127.0.0.1]:${port}/hooks` },
  { name: "private 192.168.1.1", url: () => "http://192.168.1.1/hooks" },
  { name: "https to loopback", url: (port) => `https://127.0.0.1:${port}/hooks` },
];

for (const destination of destinations) {
  test(`${destination.name} is refused at send time; the receiver gets nothing`, async (t) => {
    const local = await receiver();
    const shop = await newShop(guarded, `SSRF ${destination.name}`);
    // Registration accepts it: the guard runs when sending, on the resolved address.
    await guarded.webhooks!.setEndpoint({ storeId: shop.storeId, url: destination.url(local.port) });
    const delivery = await deliverTo(t, guarded, shop);
    assertRefused(t, delivery);
    t.is(local.received.length, 0);
  });
}

test("with WEBHOOK_ALLOW_HTTP false, an http:// URL is refused at setEndpoint with INVALID_ARGUMENT", async (t) => {
  const shop = await newShop(httpsOnly, "HTTPS Only Store");
  const local = await receiver();
  for (const url of [local.url, "http://hooks.example.com/x", "ftp://hooks.example.com/x", "not a url", "https://user:pw@hooks.example.com/x"]) {
    const error = await t.throwsAsync(httpsOnly.webhooks!.setEndpoint({ storeId: shop.storeId, url }), { instanceOf: ConnectError }, url);
    t.is(error?.code, Code.InvalidArgument, url);
  }
  const registered = await httpsOnly.webhookSql!`select id from endpoints where store_id = ${shop.storeId}`;
  t.is(registered.length, 0, "nothing registered");
  // https:// is what it takes.
  const { endpoint } = await httpsOnly.webhooks!.setEndpoint({ storeId: shop.storeId, url: "https://hooks.example.com/x" });
  t.is(endpoint!.url, "https://hooks.example.com/x");
});

test("with WEBHOOK_ALLOW_HTTP false, an http:// endpoint registered while it was allowed is refused at send time", async (t) => {
  const local = await receiver();
  const shop = await newShop(httpsOnly, "Legacy HTTP Store");
  // The endpoint as a service configured with WEBHOOK_ALLOW_HTTP=true wrote it, before
  // the configuration changed.
  const [endpoint] = await httpsOnly.webhookSql!<{ id: string }[]>`
    insert into endpoints (store_id, url) values (${shop.storeId}, ${local.url}) returning id`;
  await httpsOnly.webhookSql!`insert into endpoint_secrets (endpoint_id, secret) values (${endpoint!.id}, ${`plain:${generateSecret()}`})`;
  const delivery = await deliverTo(t, httpsOnly, shop);
  assertRefused(t, delivery);
  t.is(local.received.length, 0);
});

test("sendWebhook refuses http:// and private destinations unless allowed, and sends nothing", async (t) => {
  const local = await receiver();
  const headers = { "content-type": "application/json" };
  const body = JSON.stringify({ type: "order.created" });
  const timeoutMs = 5_000;

  const noHttp = await sendWebhook(local.url, headers, body, { allowHttp: false, allowPrivate: true, timeoutMs });
  t.is(noHttp.result, "refused");
  const noPrivate = await sendWebhook(local.url, headers, body, { allowHttp: true, allowPrivate: false, timeoutMs });
  t.is(noPrivate.result, "refused");
  const byName = await sendWebhook(`http://localhost:${local.port}/hooks`, headers, body, { allowHttp: true, allowPrivate: false, timeoutMs });
  t.is(byName.result, "refused");
  t.regex(byName.error ?? "", /private/);
  const bad = await sendWebhook("::not a url::", headers, body, { allowHttp: true, allowPrivate: true, timeoutMs });
  t.is(bad.result, "refused");
  t.is(local.received.length, 0);

  // The same request with both allowed goes through: the refusals above were the guard.
  const allowed = await sendWebhook(local.url, headers, body, { allowHttp: true, allowPrivate: true, timeoutMs });
  t.is(allowed.result, "succeeded");
  t.is(allowed.statusCode, 200);
  t.is(local.received.length, 1);
  t.is(local.received[0]!.body, body);
});
