// Reading an order in the dashboard never makes a payment session (docs/payments.md#payment-sessions); only
// the public GET /v1/orders/{id} does (docs/payments.md#payment-sessions). Real HTTP against the whole stack with
// PAYMENT_GATEWAY=midtrans and a local Snap-speaking fake, which counts what it is asked.
import test from "ava";
import { fakeMidtransEnv, startFakeMidtrans, type FakeMidtrans } from "../helpers/fake-midtrans.js";
import { api } from "../helpers/http.js";
import { buyer, createProduct, createStore, Plan, startStack, type Stack } from "../helpers/stack.js";

const SERVER_KEY = "SB-Mid-server-dashboard-test";

let fake: FakeMidtrans;
let stack: Stack;
test.before(async () => {
  fake = await startFakeMidtrans({ serverKey: SERVER_KEY });
  stack = await startStack({
    orderEnv: fakeMidtransEnv(fake.url, SERVER_KEY, { timeout: "500ms" }),
  });
});
test.after.always(async () => {
  await stack?.close();
  await fake?.close();
});

test("the dashboard's order page of a pending gateway order without a session makes none; GET /v1/orders/{id} makes one", async (t) => {
  const store = await createStore(stack, Plan.GROWTH, "Session Free Store");
  const product = await createProduct(stack, store.storeId, "Kopi Toraja", 45_000);
  const { invitationToken } = await stack.accounts.inviteMember({ storeId: store.storeId, email: "sessions@merchant.example" });
  const { session } = await stack.accounts.acceptInvitation({ token: invitationToken, password: "a long enough password" });
  const dashboard = (path: string) =>
    fetch(`${stack.baseUrl}/dashboard/stores/${store.storeId}/${path}`, { redirect: "manual", headers: { cookie: `session=${session!.token}` } });

  // The gateway is down when the order is made: the order has no session yet.
  fake.mode = "fail";
  const created = await api(stack.baseUrl, "/v1/orders", {
    method: "POST",
    key: store.key,
    json: { items: [{ product_id: product.id, quantity: 1 }], buyer, payment_method: "qris" },
  });
  fake.mode = "ok";
  t.is(created.status, 201, created.text);
  const order = created.body.data.order;
  t.is(created.body.data.payment.snap, null);
  const asked = () => fake.transactions(order.payment_reference).length;
  const before = asked();

  for (const path of [`orders/${order.id}`, `orders/${order.id}/cancel`, "orders", `orders?q=${order.payment_reference}`]) {
    const page = await dashboard(path);
    t.is(page.status, 200, `${path}: ${page.status}`);
    t.regex(await page.text(), new RegExp(order.payment_reference), path);
  }
  t.is(asked(), before, "no payment session was asked for by the dashboard");
  const shown = await (await dashboard(`orders/${order.id}`)).text();
  t.true(shown.includes("Cancel order"), "a pending order may be cancelled");
  t.false(shown.includes("Mark as paid"), "a gateway order is never marked paid by a person");

  const read = await api(stack.baseUrl, `/v1/orders/${order.id}`, { key: store.key });
  t.is(read.status, 200, read.text);
  t.is(asked(), before + 1, "the public read prepared exactly one session");
  t.not(read.body.data.payment.snap, null);
});
