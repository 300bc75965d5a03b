import test from "ava";
import { api } from "../helpers/http.js";
import { startFakeMidtrans } from "../helpers/fake-midtrans.js";
import { buyer, createProduct, createStore, startStack } from "../helpers/stack.js";

test("a hanging gateway holds at most 4 preparations at once; every order is still created", async (t) => {
  const fake = await startFakeMidtrans({ serverKey: "SB-Mid-server-test" });
  const stack = await startStack({
    orderEnv: { PAYMENT_GATEWAY: "midtrans", MIDTRANS_BASE_URL: fake.url, MIDTRANS_SERVER_KEY: "SB-Mid-server-test", MIDTRANS_TIMEOUT: "2s" },
  });
  try {
    const shop = await createStore(stack);
    const product = await createProduct(stack, shop.storeId, "Kopi", 10_000);
    fake.mode = "hang";
    const order = (method: string) =>
      api(stack.baseUrl, "/v1/orders", {
        method: "POST",
        key: shop.key,
        json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: method },
      });
    const [gatewayOrders, transfer] = await Promise.all([Promise.all(Array.from({ length: 10 }, () => order("qris"))), order("bank_transfer")]);
    t.true(gatewayOrders.every((r) => r.status === 201), JSON.stringify(gatewayOrders.map((r) => r.status)));
    t.true(gatewayOrders.every((r) => r.body.data.payment.snap === null), "no session while the gateway hangs");
    t.is(transfer.status, 201, "other orders are not starved of database connections");
    t.true(fake.calls <= 4, `${fake.calls} Snap calls were made at once`);
    t.true(fake.calls >= 1);

    // Once the gateway answers again, the next read prepares the session.
    fake.mode = "ok";
    const again = await api(stack.baseUrl, `/v1/orders/${gatewayOrders[9]!.body.data.order.id}`, { key: shop.key });
    t.not(again.body.data.payment.snap, null);
  } finally {
    await stack.close();
    await fake.close();
  }
});
