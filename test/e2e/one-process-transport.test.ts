// startAll (`npm start`, the test stack) lets its roles call each other in process by
// default and over loopback gRPC on request. Both must serve the same public paths
// that cross every internal hop — gateway → catalog, gateway → order → catalog,
// order → bus → webhook, /readyz's health checks — and the socket table shows which
// one ran: gRPC keeps HTTP/2 connections to the order service's port, in process there
// are none. The order port is watched because nothing but the gateway dials it here.
import { readFileSync } from "node:fs";
import test from "ava";
import { api, waitFor } from "../helpers/http.js";
import { startReceiver } from "../helpers/receiver.js";
import { buyer, createProduct, createStore, startStack } from "../helpers/stack.js";

/** Established TCP connections (IPv4 loopback) whose far end is `port`. */
function connectionsTo(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((columns) => columns[2]?.endsWith(`:${hex}`) && columns[3] === "01").length;
}

for (const transport of ["in-process", "grpc"] as const) {
  test.serial(`${transport}: products, an order priced by the catalog, its read, its webhook and /readyz`, async (t) => {
    const stack = await startStack({ transport, webhooks: { bus: "in-process" } });
    const receiver = await startReceiver();
    try {
      const shop = await createStore(stack);
      const product = await createProduct(stack, shop.storeId, "Kopi Gayo", 85_000);
      await stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: receiver.url });

      const products = await api(stack.baseUrl, "/v1/products", { key: shop.key });
      t.is(products.status, 200, products.text);
      t.deepEqual(products.body.data.items.map((item: { id: string }) => item.id), [product.id]);

      const created = await api(stack.baseUrl, "/v1/orders", {
        method: "POST",
        key: shop.key,
        json: { items: [{ product_id: product.id, quantity: 2 }], buyer, payment_method: "bank_transfer" },
      });
      t.is(created.status, 201, created.text);
      t.is(created.body.data.order.subtotal, 170_000, "priced by the catalog");

      const read = await api(stack.baseUrl, `/v1/orders/${created.body.data.order.id}`, { key: shop.key });
      t.is(read.status, 200, read.text);
      t.is(read.body.data.order.id, created.body.data.order.id);

      await waitFor(() => receiver.received.some((hit) => hit.body.startsWith('{"type":"order.created"')));
      const ready = await api(stack.baseUrl, "/readyz");
      t.is(ready.status, 200, ready.text);

      const orderPort = Number(new URL(stack.orderAddr).port);
      if (transport === "grpc") t.true(connectionsTo(orderPort) > 0, "the gateway reached the order service over a socket");
      else t.is(connectionsTo(orderPort), 0, "no socket to the order service");
    } finally {
      await receiver.close();
      await stack.close();
    }
  });
}
