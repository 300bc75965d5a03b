// The main flows of the API, driven through a client that @hey-api/openapi-ts generates
// from the served document: test/docs/generated-client.test.ts generates it into
// ./client beside a copy of this file, compiles both with `tsc --strict` and runs
// drive(). Only the generated, typed functions call the API, so a document that types an
// answer wrongly fails to compile here, and one that describes it wrongly fails the run.
//
// Not part of the project's tsconfig (./client exists only in the test's temp dir). To
// cover another operation: call its generated function in drive(), return what the test
// should check, and assert on it there.
import { createClient } from "./client/client/index.js";
import { cancelOrder, createOrder, getOrder, listEvents, listOrders, listPaymentMethods, listProducts, refundOrder, updateOrder } from "./client/sdk.gen.js";
import type { CreateOrderRequest, ErrorEnvelope, Order, OrderDetail, PaymentMethod, RefundResult } from "./client/types.gen.js";

export interface DriverInput {
  baseUrl: string;
  /** An API key with every scope. */
  key: string;
  /** What every request is sent with: the test's fetch, which checks each answer against the document. */
  fetch: typeof fetch;
  /** Marks a bank-transfer order paid, as the store does when the money arrives. */
  markPaid(orderId: string): Promise<void>;
  /** Makes each Idempotency-Key unique to this run. */
  runId: string;
}

export interface DriverReport {
  productId: string;
  paymentMethods: PaymentMethod["code"][];
  created: OrderDetail;
  replayed: string | null;
  read: OrderDetail;
  listedIds: string[];
  afterFirst: string[];
  refund: RefundResult;
  missing: { status: number; error: ErrorEnvelope["error"]["code"] | undefined };
  /** A second order: metadata set at creation, changed by PATCH, then cancelled. */
  metadata: Order["metadata"];
  cancelled: Order;
  /** The types of the second order's events, as GET /v1/events lists them. */
  eventTypes: string[];
  /** The ids a sync from before both orders lists. */
  synced: string[];
  syncCursor: string | undefined;
}

export async function drive(input: DriverInput): Promise<DriverReport> {
  const client = createClient({ baseUrl: input.baseUrl, auth: input.key, fetch: input.fetch });

  const products = await listProducts({ client, query: { limit: 50 }, throwOnError: true });
  const product = products.data.data.items.find((item) => item.type === "product" && item.price > 0);
  if (!product) throw new Error("the store lists no product with a price");

  const methods = await listPaymentMethods({ client, throwOnError: true });

  const body: CreateOrderRequest = {
    items: [{ product_id: product.id, quantity: 2 }],
    buyer: { name: "Budi Santoso", email: "budi@example.co.id", phone: "+6281234567890" },
    payment_method: "bank_transfer",
    external_id: `GEN-${input.runId}`,
  };
  const headers = { "Idempotency-Key": `generated-client-${input.runId}` };
  const created = await createOrder({ client, body, headers, throwOnError: true });
  const again = await createOrder({ client, body, headers, throwOnError: true });
  const order: Order = created.data.data.order;

  const read = await getOrder({ client, path: { order_id: order.id }, throwOnError: true });
  const listed = await listOrders({ client, query: { status: "pending", limit: 50 }, throwOnError: true });
  const next = await listOrders({ client, query: { starting_after: order.id, limit: 50 }, throwOnError: true });

  await input.markPaid(order.id);
  const refunded = await refundOrder({
    client,
    path: { order_id: order.id },
    headers: { "Idempotency-Key": `generated-client-refund-${input.runId}` },
    body: { amount: 1_000, reason: "One item arrived damaged" },
    throwOnError: true,
  });

  // An error answer is typed too: the envelope the document gives for 404.
  const missing = await getOrder({ client, path: { order_id: "00000000-0000-4000-8000-000000000000" } });

  // An order the storefront abandons: its own data on it, then cancelled.
  const since = new Date(Date.parse(order.created_at) - 1_000).toISOString();
  const second = await createOrder({
    client,
    body: { ...body, external_id: `GEN2-${input.runId}`, metadata: { cart: "c-1", channel: "web" } },
    headers: { "Idempotency-Key": `generated-client-2-${input.runId}` },
    throwOnError: true,
  });
  const secondId = second.data.data.order.id;
  const patched = await updateOrder({ client, path: { order_id: secondId }, body: { metadata: { channel: null, erp_id: "SO-991" } }, throwOnError: true });
  const cancelled = await cancelOrder({ client, path: { order_id: secondId }, throwOnError: true });
  // Events reach the log through the outbox and the bus, a moment after the answer.
  let events = await listEvents({ client, query: { order_id: secondId, limit: 100 }, throwOnError: true });
  for (let tries = 0; tries < 150 && !events.data.data.items.some((item) => item.type === "order.cancelled"); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    events = await listEvents({ client, query: { order_id: secondId, limit: 100 }, throwOnError: true });
  }
  // A change shows in a sync once every transaction older than it has ended, server-wide
  // (docs/orders.md#syncing): another client's open transaction can hold it back a moment.
  let synced = await listOrders({ client, query: { updated_since: since, limit: 50 }, throwOnError: true });
  const lists = (ids: string[]) => ids.every((id) => synced.data.data.items.some((item) => item.id === id));
  for (let tries = 0; tries < 300 && !lists([order.id, secondId]); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    synced = await listOrders({ client, query: { updated_since: since, limit: 50 }, throwOnError: true });
  }

  return {
    metadata: patched.data.data.order.metadata,
    cancelled: cancelled.data.data.order,
    eventTypes: events.data.data.items.map((item) => item.type),
    synced: synced.data.data.items.map((item) => item.id),
    syncCursor: synced.data.data.next_cursor,
    productId: product.id,
    paymentMethods: methods.data.data.items.map((method) => method.code),
    created: created.data.data,
    replayed: again.response.headers.get("Idempotent-Replayed"),
    read: read.data.data,
    listedIds: listed.data.data.items.map((item) => item.id),
    afterFirst: next.data.data.items.map((item) => item.id),
    refund: refunded.data.data,
    missing: { status: missing.response.status, error: missing.error?.error.code },
  };
}
