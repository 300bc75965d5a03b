// Keys a merchant can hand out safely, over real HTTP against the whole stack: a
// developer's own key cannot move money (the gateway refuses it by its scopes, and the
// order service refuses it again), nothing changes when it tries, a key without a
// scope is 403 FORBIDDEN naming it, and removing the developer ends their key.
import test from "ava";
import { Code } from "@connectrpc/connect";
import type { Actor } from "../../common/actor.js";
import { StoreService } from "../../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { createRpcChannel } from "../../platform/rpc-client.js";
import { api, waitFor } from "../helpers/http.js";
import { TEST_INTERNAL_TOKEN } from "../helpers/internal-token.js";
import { failure } from "../helpers/rpc-failure.js";
import { buyer, createProduct, createStore, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
test.before(async () => {
  stack = await startStack({ authCacheMs: 2_000 });
});
test.after.always(async () => {
  await stack?.close();
});

/** A store with a product, an owner's key (every scope), and a developer who made a key of their own in the dashboard's way. */
async function storeWithDeveloper(name: string) {
  const store = await createStore(stack, undefined, name);
  const product = await createProduct(stack, store.storeId, "Kopi Susu", 25_000);
  const email = `dev.${Math.random().toString(36).slice(2)}@example.co.id`;
  const { invitationToken } = await stack.accounts.inviteMember({ storeId: store.storeId, email, role: "developer" });
  const { member } = await stack.accounts.acceptInvitation({ token: invitationToken, password: "a long enough password" });
  const developer: Actor = { kind: "member", memberId: member!.id, role: "developer", email };
  const channel = createRpcChannel(stack.catalogAddr, { actor: developer, internalToken: TEST_INTERNAL_TOKEN });
  const made = await channel.client(StoreService).createApiKey({ storeId: store.storeId, name: "Dev's own", scopes: [] });
  channel.close();
  const order = async (key = store.key) =>
    (await api(stack.baseUrl, "/v1/orders", { method: "POST", key, json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" } })).body.data.order;
  const read = async (id: string) => (await api(stack.baseUrl, `/v1/orders/${id}`, { key: store.key })).body.data.order;
  return { ...store, product, developer, memberId: member!.id, devKey: made.secret, devScopes: made.apiKey!.scopes, order, read };
}

const credit = (id: string, amount: number) => ({ mutations: [{ id, amount, type: "credit", occurred_at: new Date(Date.now() + 1000).toISOString(), description: "TRSF" }] });

test("a developer's own key cannot refund or post bank mutations: 403 FORBIDDEN naming payments:write, and nothing changes", async (t) => {
  const s = await storeWithDeveloper("Toko Scopes");
  t.deepEqual(s.devScopes, ["catalog:read", "catalog:write", "orders:read", "orders:write"]);

  // What the developer's key may do, it does.
  t.is((await api(stack.baseUrl, "/v1/products", { key: s.devKey })).status, 200);
  const pending = await s.order(s.devKey);
  t.is(pending.status, "pending");

  // A credit that never arrived does not pay the order.
  const forged = await api(stack.baseUrl, "/v1/bank-mutations", { method: "POST", key: s.devKey, json: credit("FAKE-1", pending.amount) });
  t.is(forged.status, 403);
  t.is(forged.body.error.code, "FORBIDDEN");
  t.is(forged.body.error.message, "this key lacks payments:write");
  t.truthy(forged.headers.get("ratelimit"), "a refusal carries the rate headers like every keyed answer");
  t.is((await s.read(pending.id)).status, "pending");
  // The mutation id was never recorded: the owner's key posting it now matches, not "duplicate".
  const real = await api(stack.baseUrl, "/v1/bank-mutations", { method: "POST", key: s.key, json: credit("FAKE-1", pending.amount) });
  t.is(real.body.data.results[0].result, "matched");
  t.is((await s.read(pending.id)).status, "paid");

  // A paid order is not refunded.
  const refund = await api(stack.baseUrl, `/v1/orders/${pending.id}/refunds`, { method: "POST", key: s.devKey, json: { reason: "test" } });
  t.is(refund.status, 403);
  t.is(refund.body.error.code, "FORBIDDEN");
  t.regex(refund.body.error.message, /payments:write/);
  const after = await s.read(pending.id);
  t.is(after.status, "paid");
  t.is(after.refunded_amount, 0);
  t.deepEqual(after.refunds, []);
});

test("the order service refuses a key without payments:write too, whatever reaches it", async (t) => {
  const s = await storeWithDeveloper("Toko Layanan");
  const paid = await s.order();
  await api(stack.baseUrl, "/v1/bank-mutations", { method: "POST", key: s.key, json: credit(`PAY-${paid.id}`, paid.amount) });
  const keyActor: Actor = { kind: "api_key", keyId: "00000000-0000-4000-8000-000000000001", scopes: ["orders:read", "orders:write"] };
  const channel = createRpcChannel(stack.orderAddr, { actor: keyActor, internalToken: TEST_INTERNAL_TOKEN });
  const refused = await failure(channel.client(OrderService).refundOrder({ storeId: s.storeId, orderId: paid.id, reason: "sneaky" }));
  channel.close();
  t.is(refused.code, Code.PermissionDenied);
  t.is(refused.message, "this key lacks payments:write");
  t.is((await s.read(paid.id)).refunded_amount, 0);
});

test("a key with orders:read only reads orders and creates none: 403 FORBIDDEN naming orders:write", async (t) => {
  const store = await createStore(stack, undefined, "Toko Baca");
  const product = await createProduct(stack, store.storeId, "Teh", 10_000);
  const reader = await stack.stores.createApiKey({ storeId: store.storeId, name: "BI", scopes: ["orders:read"] });
  const created = await api(stack.baseUrl, "/v1/orders", { method: "POST", key: reader.secret, json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "bank_transfer" } });
  t.is(created.status, 403);
  t.deepEqual(created.body.error, { code: "FORBIDDEN", message: "this key lacks orders:write" });
  const list = await api(stack.baseUrl, "/v1/orders", { key: reader.secret });
  t.is(list.status, 200);
  t.deepEqual(list.body.data.items, [], "no order was made");
  const products = await api(stack.baseUrl, "/v1/products", { key: reader.secret });
  t.is(products.body.error.code, "FORBIDDEN");
  t.is(products.body.error.message, "this key lacks catalog:read");
});

test("removing the developer from the team revokes their key within 5 s", async (t) => {
  const s = await storeWithDeveloper("Toko Pergi");
  t.is((await api(stack.baseUrl, "/v1/orders", { key: s.devKey })).status, 200);
  const removed = await stack.accounts.removeMember({ storeId: s.storeId, memberId: s.memberId });
  t.deepEqual(removed.apiKeys, ["Dev's own"]);
  const waited = await waitFor(async () => (await api(stack.baseUrl, "/v1/orders", { key: s.devKey })).status === 401, 5_000);
  t.true(waited <= 5_000);
  t.is((await api(stack.baseUrl, "/v1/orders", { key: s.key })).status, 200, "the owner's key still works");
});
