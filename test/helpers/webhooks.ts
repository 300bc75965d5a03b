// Helpers for webhook tests: a store with an endpoint and a receiver, orders made
// through the public API, and `settled()` — the moment every event of some stores has
// gone all the way through (outbox → JetStream → consumer → delivery finished), after
// which nothing more can arrive at their receivers.
import type { ExecutionContext } from "ava";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { Webhook } from "standardwebhooks";
import { api, waitFor } from "./http.js";
import { midtransNotification, postNotification, type NotificationFields } from "./midtrans-notify.js";
import { startReceiver, type Received, type Reply } from "./receiver.js";
import { SHARED_NATS_URL } from "./nats.js";
import { buyer, createProduct, createStore, Plan, type Stack } from "./stack.js";

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export interface Shop {
  storeId: string;
  key: string;
  productId: string;
  freeProductId: string;
}

/** A growth store (with a bank account) and two products: one priced, one free. */
export async function newShop(stack: Stack, name = "Webhook Store", price = 75_000): Promise<Shop> {
  const store = await createStore(stack, Plan.GROWTH, name);
  const product = await createProduct(stack, store.storeId, "Kaos Polos", price);
  const free = await createProduct(stack, store.storeId, "Stiker Gratis", 0);
  return { storeId: store.storeId, key: store.key, productId: product.id, freeProductId: free.id };
}

/** A shop with its webhook endpoint pointing at a fresh receiver. */
export async function shopWithReceiver(stack: Stack, respond?: (request: Received, index: number) => Reply, name?: string) {
  const shop = await newShop(stack, name);
  const receiver = await startReceiver(respond);
  const { endpoint, secret } = await stack.webhooks!.setEndpoint({ storeId: shop.storeId, url: receiver.url });
  return { shop, receiver, secret, endpointId: endpoint!.id };
}

/** POST /v1/orders for one item; returns `data.order`. */
export async function createOrder(
  t: ExecutionContext,
  stack: Stack,
  shop: Shop,
  paymentMethod: string | undefined = "qris",
  productId = shop.productId,
): Promise<any> {
  const response = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: shop.key,
    json: { items: [{ product_id: productId, quantity: 2 }], buyer, ...(paymentMethod ? { payment_method: paymentMethod } : {}) },
  });
  t.is(response.status, 201, response.text);
  return response.body.data.order;
}

export async function getOrder(stack: Stack, shop: Shop, id: string): Promise<any> {
  const response = await api(stack.baseUrl, `/v1/orders/${id}`, { key: shop.key });
  if (response.status !== 200) throw new Error(response.text);
  return response.body.data.order;
}

/** A signed Midtrans notification for the order, through the public endpoint. */
export async function notify(t: ExecutionContext, stack: Stack, order: { payment_reference: string; amount: number }, fields: NotificationFields) {
  const response = await postNotification(
    stack.baseUrl,
    midtransNotification(order.payment_reference, order.amount, fields, stack.config.MIDTRANS_SERVER_KEY),
  );
  t.is(response.status, 200, response.text);
  return response.body.data;
}

/** The standard-webhooks headers of a received request. */
export function webhookHeaders(entry: Received) {
  return {
    "webhook-id": String(entry.headers["webhook-id"]),
    "webhook-timestamp": String(entry.headers["webhook-timestamp"]),
    "webhook-signature": String(entry.headers["webhook-signature"]),
  };
}

/** Verifies a received request with the standardwebhooks package; throws when it does not. */
export function verify(secret: string, entry: Received): any {
  return new Webhook(secret).verify(entry.body, webhookHeaders(entry));
}

/**
 * Waits until every event of `storeIds` has been published, consumed and (when the
 * store has an endpoint) delivered to completion: after this, their receivers get
 * nothing more unless something new happens.
 */
export async function settled(stack: Stack, storeIds: string[], ms = 30_000) {
  await waitFor(async () => {
    const [row] = await stack.orderSql<{ n: number }[]>`
      select count(*)::int as n from outbox where store_id = any(${storeIds}::uuid[]) and published_at is null`;
    return row!.n === 0;
  }, ms);
  const nc = await connect({ servers: SHARED_NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    // Every event of these stores is in the stream at or below `last`.
    const last = (await jsm.streams.info(stack.busNames.EVENTS_STREAM)).state.last_seq;
    await waitFor(async () => {
      const info = await jsm.consumers.info(stack.busNames.EVENTS_STREAM, stack.busNames.EVENTS_CONSUMER);
      return info.ack_floor.stream_seq >= last;
    }, ms);
  } finally {
    await nc.close();
  }
  await waitFor(async () => {
    const [row] = await stack.webhookSql!<{ n: number }[]>`
      select count(*)::int as n from deliveries where store_id = any(${storeIds}::uuid[]) and status = 'pending'`;
    return row!.n === 0;
  }, ms);
}
