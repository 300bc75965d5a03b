import test from "ava";
import { Webhook } from "standardwebhooks";
import { api, waitFor } from "../helpers/http.js";
import { startReceiver } from "../helpers/receiver.js";
import { buyer, createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";

for (const bus of ["nats", "in-process"] as const) {
  test(`deliveries over the ${bus} bus verify with the standardwebhooks package, byte for byte`, async (t) => {
    const stack: Stack = await startStack({ webhooks: { bus } });
    const receiver = await startReceiver();
    try {
      const shop = await createStore(stack);
      const product = await createProduct(stack, shop.storeId, "Kopi", 25_000);
      const { secret } = await stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: receiver.url });
      t.regex(secret, /^whsec_[A-Za-z0-9+/=]+$/);
      const created = await api(stack.baseUrl, "/v1/orders", {
        method: "POST",
        key: shop.key,
        json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" },
      });
      t.is(created.status, 201);
      await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: created.body.data.order.id });
      await waitFor(() => receiver.received.length >= 3);

      const verifier = new Webhook(secret);
      const events = receiver.received.map((entry) => {
        t.is(entry.headers["content-type"], "application/json");
        // verify() checks the HMAC over the exact bytes received.
        return verifier.verify(entry.body, {
          "webhook-id": String(entry.headers["webhook-id"]),
          "webhook-timestamp": String(entry.headers["webhook-timestamp"]),
          "webhook-signature": String(entry.headers["webhook-signature"]),
        }) as any;
      });
      t.deepEqual(events.map((e) => e.type).sort(), ["order.created", "order.paid", "orderUpdated"]);
      const ids = new Set(receiver.received.map((entry) => entry.headers["webhook-id"]));
      t.is(ids.size, 3, "each event has its own webhook-id");
      const paid = events.find((e) => e.type === "order.paid");
      t.is(paid.data.store_id, shop.storeId);
      t.is(paid.data.previous_status, "pending");
      t.is(paid.data.order.status, "paid");
      t.is(events.find((e) => e.type === "order.created").data.previous_status, null);

      const tampered = receiver.received[0]!;
      t.throws(() =>
        verifier.verify(tampered.body.replace("}", " }"), {
          "webhook-id": String(tampered.headers["webhook-id"]),
          "webhook-timestamp": String(tampered.headers["webhook-timestamp"]),
          "webhook-signature": String(tampered.headers["webhook-signature"]),
        }),
      );
    } finally {
      await receiver.close();
      await stack.close();
    }
  });
}
