// Payment links in the order service (docs/payments.md#payment-links), through the real gRPC
// handlers in memory on real SQL: who may make and deactivate them, a test key's links
// and orders stay in test mode, every bad field is named, and a buyer's order through a
// link carries its id and counts against its usage limit and its cap of waiting orders.
import test, { type ExecutionContext } from "ava";
import { Code, createClient, createRouterTransport } from "@connectrpc/connect";
import { pino } from "pino";
import { OPERATOR, type Actor } from "../../common/actor.js";
import { ROLES, roleMay } from "../../common/roles.js";
import { MAX_PENDING_LINK_ORDERS } from "../../common/payment-links.js";
import { ConnectError } from "@connectrpc/connect";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { linkClosedState } from "../../platform/payment-link-errors.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { serverInterceptors } from "../../platform/rpc-server.js";
import { createOrderDomain } from "../../services/order/domain.js";
import { createOrderRoutes } from "../../services/order/routes.js";
import { fakeGateway } from "../helpers/fake-payment-gateway.js";
import { capturingLogger } from "../helpers/logs.js";
import { orderTables } from "../helpers/order-tables.js";
import { failure } from "../helpers/rpc-failure.js";
import { KOPI, OTHER, SHOP, TEH, twoShopServices } from "../helpers/two-shops.js";

const silent = pino({ level: "silent" });
const buyer = { name: "Budi", email: "budi@example.co.id", phone: "+6281234567890" };
const kopi = [{ ref: { case: "productId" as const, value: KOPI }, quantity: 2 }];

async function setup(t: ExecutionContext) {
  const tables = await orderTables(t);
  const as: { actor: Actor } = { actor: OPERATOR };
  const domain = createOrderDomain({
    sql: tables.sql,
    logger: capturingLogger([]),
    ...twoShopServices,
    gateway: fakeGateway("https://api.example"),
    publicBaseUrl: "https://api.example",
    paymentWindowMs: 3_600_000,
    midtransServerKey: "server-key",
  });
  const transport = createRouterTransport(createOrderRoutes(domain), { router: { interceptors: serverInterceptors(silent) }, transport: { interceptors: [actorInterceptor(() => as.actor)] } });
  return { as, orders: createClient(OrderService, transport), sql: tables.sql };
}

const member = (role: (typeof ROLES)[number]): Actor => ({ kind: "member", memberId: "3f7e6a52-0c3e-4d59-9a51-7f0e7d1e2b10", role, email: "sari@toko.example" });

test("owners, developers and support make and deactivate links; a viewer and a key without orders:write are refused, and every one sees them", async (t) => {
  const { as, orders } = await setup(t);
  const made = (await orders.createPaymentLink({ storeId: SHOP, items: kopi })).link!;
  for (const role of ROLES) {
    as.actor = member(role);
    const allowed = roleMay(role, "payment_links");
    t.is(allowed, role !== "viewer");
    if (allowed) {
      t.truthy((await orders.createPaymentLink({ storeId: SHOP, items: kopi })).link?.id, role);
    } else {
      const refused = await failure(orders.createPaymentLink({ storeId: SHOP, items: kopi }));
      t.is(refused.code, Code.PermissionDenied, role);
      t.is((await failure(orders.deactivatePaymentLink({ storeId: SHOP, linkId: made.id }))).code, Code.PermissionDenied);
    }
    t.true((await orders.listPaymentLinks({ storeId: SHOP })).links.some((link) => link.id === made.id), `${role} sees the list`);
  }
  as.actor = { kind: "api_key", keyId: "k-1", scopes: ["orders:read"] };
  t.deepEqual(await failure(orders.createPaymentLink({ storeId: SHOP, items: kopi })), { code: Code.PermissionDenied, field: undefined, message: "this key lacks orders:write" });
  as.actor = { kind: "api_key", keyId: "k-2", scopes: ["orders:write"] };
  const deactivated = (await orders.deactivatePaymentLink({ storeId: SHOP, linkId: made.id })).link!;
  t.like(deactivated, { active: false, state: "inactive" });
});

test("a link is made with its address, items, methods and limits; every bad field is named", async (t) => {
  const { orders } = await setup(t);
  const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
  const link = (await orders.createPaymentLink({ storeId: SHOP, items: kopi, paymentMethods: ["bank_transfer"], usageLimit: 3, expiresAt })).link!;
  t.like(link, { storeId: SHOP, active: true, livemode: true, paymentMethods: ["bank_transfer"], usageLimit: 3, paidCount: 0, pendingCount: 0, state: "open", expiresAt });
  t.regex(link.url, /^https:\/\/api\.example\/pay\/[a-z2-9]{16}$/);
  t.is(link.url, `https://api.example/pay/${link.slug}`);
  t.like(link.items[0], { ref: { case: "productId", value: KOPI }, quantity: 2 });

  const named = async (request: Parameters<typeof orders.createPaymentLink>[0]) => (await failure(orders.createPaymentLink({ storeId: SHOP, ...request }))).field;
  t.is(await named({ items: [] }), "items");
  t.is(await named({ items: [{ ref: { case: "productId", value: "nope" }, quantity: 1 }] }), "items[0].product_id");
  t.is(await named({ items: [{ ref: { case: "productId", value: KOPI }, quantity: 0 }] }), "items[0].quantity");
  t.is(await named({ items: kopi, usageLimit: 0 }), "usage_limit");
  t.is(await named({ items: kopi, expiresAt: "tomorrow" }), "expires_at");
  t.is(await named({ items: kopi, expiresAt: "2020-01-01T00:00:00Z" }), "expires_at");
  t.is(await named({ items: kopi, paymentMethods: ["bank_transfer", "cash"] }), "payment_methods[1]");
  // Another store's product is no product of this one.
  t.is(await named({ items: [{ ref: { case: "productId", value: TEH }, quantity: 1 }] }), "items[0].product_id");
});

test("a test key's links are test links: the live list never shows them, their orders are test orders, and a live deactivation cannot reach them", async (t) => {
  const { orders } = await setup(t);
  const testLink = (await orders.createPaymentLink({ storeId: SHOP, items: kopi, testMode: true })).link!;
  const liveLink = (await orders.createPaymentLink({ storeId: SHOP, items: kopi })).link!;
  t.false(testLink.livemode);
  t.deepEqual((await orders.listPaymentLinks({ storeId: SHOP })).links.map((link) => link.id), [liveLink.id]);
  t.deepEqual((await orders.listPaymentLinks({ storeId: SHOP, testMode: true })).links.map((link) => link.id), [testLink.id]);
  t.deepEqual((await orders.listPaymentLinks({ storeId: OTHER })).links, []);
  t.is((await failure(orders.deactivatePaymentLink({ storeId: SHOP, linkId: testLink.id }))).code, Code.NotFound);
  t.is((await failure(orders.deactivatePaymentLink({ storeId: OTHER, linkId: liveLink.id, testMode: true }))).code, Code.NotFound);

  const order = (await orders.payPaymentLink({ slug: testLink.slug, buyer, paymentMethod: "bank_transfer" })).detail!.order!;
  t.like(order, { livemode: false, paymentLinkId: testLink.id, storeId: SHOP, subtotal: 30_000n });
  const live = (await orders.payPaymentLink({ slug: liveLink.slug, buyer, paymentMethod: "bank_transfer" })).detail!.order!;
  t.like(live, { livemode: true, paymentLinkId: liveLink.id });
});

test("the public page shows the store, the items priced now and the link's methods; a buyer's bad field is named", async (t) => {
  const { orders } = await setup(t);
  const link = (await orders.createPaymentLink({ storeId: SHOP, items: kopi, paymentMethods: ["bank_transfer"] })).link!;
  const page = await orders.getPaymentLinkPage({ slug: link.slug });
  t.like(page, { storeName: "Toko", total: 30_000n, currency: "IDR" });
  t.like(page.items[0], { title: "Kopi", quantity: 2, unitPrice: 15_000n, lineTotal: 30_000n, productId: KOPI });
  t.deepEqual(page.methods.map((method) => method.code), ["bank_transfer"]);
  t.is((await failure(orders.getPaymentLinkPage({ slug: "nosuchlink" }))).code, Code.NotFound);
  t.is((await failure(orders.payPaymentLink({ slug: link.slug, buyer: { ...buyer, email: "budi" }, paymentMethod: "bank_transfer" }))).field, "buyer.email");
  t.is((await failure(orders.payPaymentLink({ slug: link.slug, buyer: { ...buyer, phone: "12" }, paymentMethod: "bank_transfer" }))).field, "buyer.phone");
  t.is((await failure(orders.payPaymentLink({ slug: link.slug, buyer, paymentMethod: "" }))).field, "payment_method");
});

test("a link takes no order once deactivated, expired or used up (paid orders count; pending ones may still be paid), nor beyond its cap of waiting orders", async (t) => {
  const { orders, sql } = await setup(t);
  const closed = async (slug: string) => {
    const error = ConnectError.from(await t.throwsAsync(orders.payPaymentLink({ slug, buyer, paymentMethod: "bank_transfer" })));
    t.is(error.code, Code.FailedPrecondition);
    return linkClosedState(error);
  };
  const limited = (await orders.createPaymentLink({ storeId: SHOP, items: kopi, usageLimit: 1 })).link!;
  const first = (await orders.payPaymentLink({ slug: limited.slug, buyer, paymentMethod: "bank_transfer" })).detail!.order!;
  const second = (await orders.payPaymentLink({ slug: limited.slug, buyer, paymentMethod: "bank_transfer" })).detail!.order!;
  await orders.markOrderPaid({ storeId: SHOP, orderId: first.id });
  t.is(await closed(limited.slug), "used_up");
  // Already waiting when the limit was reached: it may still be paid.
  t.like((await orders.markOrderPaid({ storeId: SHOP, orderId: second.id })).order, { status: "paid", paymentLinkId: limited.id });
  t.like((await orders.listPaymentLinks({ storeId: SHOP })).links.find((link) => link.id === limited.id), { paidCount: 2, pendingCount: 0, state: "used_up" });

  const off = (await orders.createPaymentLink({ storeId: SHOP, items: kopi })).link!;
  await orders.deactivatePaymentLink({ storeId: SHOP, linkId: off.id });
  t.is(await closed(off.slug), "inactive");

  const old = (await orders.createPaymentLink({ storeId: SHOP, items: kopi, expiresAt: new Date(Date.now() + 60_000).toISOString() })).link!;
  await sql`update payment_links set expires_at = now() - interval '1 second' where id = ${old.id}`;
  t.is(await closed(old.slug), "expired");
  t.is((await orders.getPaymentLinkPage({ slug: old.slug })).link?.state, "expired");

  // The cap: orders waiting for payment, made at once, never pass it.
  const busy = (await orders.createPaymentLink({ storeId: SHOP, items: [{ ref: { case: "productId", value: KOPI }, quantity: 1 }] })).link!;
  const tries = await Promise.allSettled(
    Array.from({ length: MAX_PENDING_LINK_ORDERS + 10 }, () => orders.payPaymentLink({ slug: busy.slug, buyer, paymentMethod: "bank_transfer" })),
  );
  const refused = tries.filter((result) => result.status === "rejected").map((result) => ConnectError.from((result).reason).code);
  t.is(tries.length - refused.length, MAX_PENDING_LINK_ORDERS);
  t.true(refused.every((code) => code === Code.ResourceExhausted));
  t.like((await orders.listPaymentLinks({ storeId: SHOP })).links.find((link) => link.id === busy.id), { pendingCount: MAX_PENDING_LINK_ORDERS });
});

test("making and deactivating a link is audited with who did it, a repeated deactivation once", async (t) => {
  const { as, orders } = await setup(t);
  as.actor = member("support");
  const link = (await orders.createPaymentLink({ storeId: SHOP, items: kopi })).link!;
  as.actor = { kind: "api_key", keyId: "k-9", scopes: ["orders:write"] };
  await orders.deactivatePaymentLink({ storeId: SHOP, linkId: link.id });
  await orders.deactivatePaymentLink({ storeId: SHOP, linkId: link.id });
  const { entries } = await orders.listAudit({ storeId: SHOP });
  t.deepEqual(
    entries.map((entry) => [entry.action, entry.actor, entry.target, entry.targetLabel]).reverse(),
    [
      ["payment_link.created", "sari@toko.example", `payment_link:${link.id}`, link.slug],
      ["payment_link.deactivated", "key:k-9", `payment_link:${link.id}`, link.slug],
    ],
  );
});
