// Custom headers on the wire (docs/webhooks.md#custom-headers): sent with every request to the endpoint,
// test events included, beside the signature headers they can never replace; a
// forbidden name is refused naming the field. Real PostgreSQL, NATS and a receiver.
import test from "ava";
import { ConnectError, Code } from "@connectrpc/connect";
import { waitFor } from "../helpers/http.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, shopWithReceiver, verify, type Receiver } from "../helpers/webhooks.js";

let stack: Stack;
const receivers: Receiver[] = [];
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "nats" } });
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await stack?.close();
});

test("every request carries the endpoint's custom headers, test events too; the signature still verifies", async (t) => {
  const { shop, receiver, secret, endpointId } = await shopWithReceiver(stack, undefined, "Header Store");
  receivers.push(receiver);
  await stack.webhooks!.setEndpointHeader({ storeId: shop.storeId, endpointId, header: { name: "Authorization", value: "Bearer erp-token-123" } });
  await stack.webhooks!.setEndpointHeader({ storeId: shop.storeId, endpointId, header: { name: "X-Tenant", value: "toko 1" } });
  const refused = ConnectError.from(
    await t.throwsAsync(stack.webhooks!.setEndpointHeader({ storeId: shop.storeId, endpointId, header: { name: "Webhook-Signature", value: "v1,forged" } })),
  );
  t.is(refused.code, Code.InvalidArgument);
  t.regex(refused.rawMessage, /^header_name /);

  await stack.webhooks!.sendTestEvent({ storeId: shop.storeId, endpointId });
  await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(async () => receiver.received.length >= 2, 20_000, 100);
  for (const entry of receiver.received) {
    t.is(entry.headers.authorization, "Bearer erp-token-123");
    t.is(entry.headers["x-tenant"], "toko 1");
    t.is(entry.headers["content-type"], "application/json");
    t.truthy(verify(secret, entry), "the signature headers are the service's own");
  }
  t.deepEqual(receiver.received.map((entry) => JSON.parse(entry.body).type).sort(), ["order.created", "webhook.test"]);
});
