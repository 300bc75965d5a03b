// Cancel, metadata and the sync walk as a client sees them through the gateway
// (docs/api.md#cancelling-an-order, docs/orders.md#metadata, docs/orders.md#syncing):
// status codes, the envelope, scopes, and metadata in the order and in its events' bodies.
import test, { type ExecutionContext } from "ava";
import { api, type ApiResponse } from "../helpers/http.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.close();
});

type Store = Awaited<ReturnType<typeof createStore>>;

async function shop(name: string) {
  const store = await createStore(stack, Plan.GROWTH, name);
  const product = await createProduct(stack, store.storeId, "Kopi", 15_000);
  return { ...store, product };
}

async function order(t: ExecutionContext, store: Store & { product: { id: string } }, extra: Record<string, unknown> = {}) {
  const response = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: store.product.id, quantity: 1 }], buyer, payment_method: "bank_transfer", ...extra },
  });
  t.is(response.status, 201, response.text);
  return response.body.data.order;
}

function assertError(t: ExecutionContext, response: ApiResponse, status: number, code: string, field?: string) {
  t.is(response.status, status, response.text);
  t.is(response.body?.error?.code, code, response.text);
  if (field) t.is(response.body.error.details?.[0]?.field, field, response.text);
}

async function eventBodies(orderId: string) {
  return stack.orderSql<{ event_type: string; payload: any }[]>`select event_type, payload from outbox where order_id = ${orderId} order by created_at, ctid`;
}

test("POST /v1/orders/{id}/cancel: a pending order → 200 cancelled with its events; again → 409; unknown or another store's → 404", async (t) => {
  const store = await shop("Cancel Store");
  const other = await shop("Other Store");
  const pending = await order(t, store);
  const cancel = (key: string, id: string, init: RequestInit & { json?: unknown } = {}) => api(stack.baseUrl, `/v1/orders/${id}/cancel`, { method: "POST", key, ...init });
  assertError(t, await cancel(other.key, pending.id), 404, "NOT_FOUND");
  assertError(t, await cancel(store.key, "7d1e0c5e-0000-4000-8000-000000000000"), 404, "NOT_FOUND");
  assertError(t, await cancel(store.key, "nope"), 400, "INVALID_REQUEST", "order_id");
  assertError(t, await cancel(store.key, pending.id, { json: { reason: "x" } }), 400, "INVALID_REQUEST", "reason");
  const response = await cancel(store.key, pending.id);
  t.is(response.status, 200, response.text);
  t.like(response.body, { success: true, data: { order: { id: pending.id, status: "cancelled", requires_payment: false } } });
  t.truthy(response.headers.get("ratelimit"));
  t.deepEqual(
    (await eventBodies(pending.id)).map((event) => event.event_type),
    ["order.created", "orderUpdated", "order.cancelled"],
  );
  assertError(t, await cancel(store.key, pending.id), 409, "CONFLICT");
  const audit = await stack.auditLog(store.storeId);
  t.deepEqual(
    audit.filter((entry) => entry.action === "order.cancelled").map((entry) => entry.actor),
    [`key:${store.keyId}`],
  );
});

test("POST /v1/orders/{id}/cancel and PATCH need orders:write: a read-only key is 403", async (t) => {
  const store = await shop("Scope Store");
  const pending = await order(t, store);
  const { secret } = await stack.stores.createApiKey({ storeId: store.storeId, name: "reader", scopes: ["orders:read"] });
  assertError(t, await api(stack.baseUrl, `/v1/orders/${pending.id}/cancel`, { method: "POST", key: secret }), 403, "FORBIDDEN");
  assertError(t, await api(stack.baseUrl, `/v1/orders/${pending.id}`, { method: "PATCH", key: secret, json: { metadata: { a: "1" } } }), 403, "FORBIDDEN");
});

test("metadata: at creation and by PATCH (null removes), in GET, in the list and in the event bodies; limits name the field", async (t) => {
  const store = await shop("Metadata Store");
  const made = await order(t, store, { metadata: { erp_id: "SO-1", channel: "web" } });
  t.deepEqual(made.metadata, { erp_id: "SO-1", channel: "web" });
  t.deepEqual((await order(t, store)).metadata, {});
  const patch = (json: unknown, id = made.id) => api(stack.baseUrl, `/v1/orders/${id}`, { method: "PATCH", key: store.key, json });
  const patched = await patch({ metadata: { channel: null, note: "gift wrap" } });
  t.is(patched.status, 200, patched.text);
  t.deepEqual(patched.body.data.order.metadata, { erp_id: "SO-1", note: "gift wrap" });
  const read = await api(stack.baseUrl, `/v1/orders/${made.id}`, { key: store.key });
  t.deepEqual(read.body.data.order.metadata, { erp_id: "SO-1", note: "gift wrap" });
  const list = await api(stack.baseUrl, `/v1/orders?limit=5`, { key: store.key });
  t.deepEqual(list.body.data.items.find((item: { id: string }) => item.id === made.id).metadata, { erp_id: "SO-1", note: "gift wrap" });
  t.false("next_cursor" in list.body.data);
  const events = await eventBodies(made.id);
  t.deepEqual(
    events.map((event) => [event.event_type, event.payload.data.order.metadata]),
    [
      ["order.created", { erp_id: "SO-1", channel: "web" }],
      ["orderUpdated", { erp_id: "SO-1", note: "gift wrap" }],
    ],
  );
  t.is(events[1]!.payload.data.previous_status, "pending");
  assertError(t, await patch({ metadata: { ["k".repeat(41)]: "v" } }), 400, "INVALID_REQUEST", `metadata.${"k".repeat(41)}`);
  assertError(t, await patch({ metadata: { note: "v".repeat(501) } }), 400, "INVALID_REQUEST", "metadata.note");
  assertError(t, await patch({ metadata: { note: 5 } }), 400, "INVALID_REQUEST", "metadata.note");
  assertError(t, await patch({ metadata: Object.fromEntries(Array.from({ length: 19 }, (_, n) => [`k${n}`, "v"])) }), 400, "INVALID_REQUEST", "metadata");
  assertError(t, await patch({ status: "paid" }), 400, "INVALID_REQUEST");
  assertError(t, await patch({ metadata: { a: "1" } }, "7d1e0c5e-0000-4000-8000-000000000000"), 404, "NOT_FOUND");
  const nullAtCreation = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: store.product.id, quantity: 1 }], buyer, payment_method: "bank_transfer", metadata: { x: null } },
  });
  assertError(t, nullAtCreation, 400, "INVALID_REQUEST", "metadata.x");
  // The Idempotency-Key's hash covers metadata: the same key with other metadata is another request.
  const keyed = (metadata: Record<string, string>) =>
    api(stack.baseUrl, "/v1/orders", {
      method: "POST",
      key: store.key,
      headers: { "Idempotency-Key": "meta-1" },
      json: { items: [{ product_id: store.product.id, quantity: 1 }], buyer, payment_method: "bank_transfer", metadata },
    });
  t.is((await keyed({ a: "1" })).status, 201);
  t.is((await keyed({ a: "1" })).headers.get("idempotent-replayed"), "true");
  assertError(t, await keyed({ a: "2" }), 409, "CONFLICT");
});

test("GET /v1/orders?updated_since: oldest change first with next_cursor; the cursor pages on; bad values are 400 naming the parameter", async (t) => {
  const store = await shop("Sync Store");
  const since = new Date(Date.now() - 1000).toISOString();
  const a = await order(t, store);
  const b = await order(t, store);
  await api(stack.baseUrl, `/v1/orders/${a.id}/cancel`, { method: "POST", key: store.key });
  const seen: string[] = [];
  // A change shows once every transaction begun before it has ended (other tests' too): poll briefly, as a client would.
  let cursor = "";
  for (let tries = 0; tries < 200 && seen.length < 2; tries++) {
    const path = cursor ? `/v1/orders?limit=1&cursor=${cursor}` : `/v1/orders?limit=1&updated_since=${encodeURIComponent(since)}`;
    const page = await api(stack.baseUrl, path, { key: store.key });
    t.is(page.status, 200, page.text);
    t.true(typeof page.body.data.next_cursor === "string");
    seen.push(...page.body.data.items.map((item: { id: string }) => item.id));
    cursor = page.body.data.next_cursor;
    if (!page.body.data.has_more) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.deepEqual(seen, [b.id, a.id]);
  assertError(t, await api(stack.baseUrl, "/v1/orders?updated_since=yesterday", { key: store.key }), 400, "INVALID_REQUEST", "updated_since");
  assertError(t, await api(stack.baseUrl, `/v1/orders?cursor=${cursor.slice(0, -3)}`, { key: store.key }), 400, "INVALID_REQUEST", "cursor");
  assertError(t, await api(stack.baseUrl, `/v1/orders?updated_since=${encodeURIComponent(since)}&starting_after=${a.id}`, { key: store.key }), 400, "INVALID_REQUEST", "starting_after");
});
