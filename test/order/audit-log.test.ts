// The order service's part of the audit log on real PostgreSQL (docs/team.md#audit-log, the
// readable audit trail): the routes in memory over db/ on a database of the
// test's own, migrated as the release before and then upgraded; the catalog and the
// gateway are stand-ins. Orders are named by their payment reference, bank transfers by
// the bank's id; filters by actor and action; pages by position, ties within one
// microsecond included.
import test, { type ExecutionContext } from "ava";
import { create } from "@bufbuild/protobuf";
import { Code, createClient, createRouterTransport } from "@connectrpc/connect";
import { pino } from "pino";
import { OPERATOR, type Actor } from "../../common/actor.js";
import { rupiah } from "../../common/rupiah.js";
import { GetStoreResponseSchema, ItemSchema, ItemStatus, ItemType } from "../../gen/catalog/v1/catalog_pb.js";
import { BankReconciliationService } from "../../gen/order/v1/bank_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { serverInterceptors } from "../../platform/rpc-server.js";
import { createOrderDomain } from "../../services/order/domain.js";
import { createOrderRoutes } from "../../services/order/routes.js";
import { notStocking } from "../helpers/two-shops.js";
import { fakeGateway } from "../helpers/fake-payment-gateway.js";
import { checkPaging } from "../helpers/audit-pages.js";
import { orderSchemaBefore } from "../helpers/order-migrations.js";
import { failure } from "../helpers/rpc-failure.js";

const ADDED = "009_audit_label_changes.sql";
const SHOP = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const KOPI = "11111111-1111-4111-8111-111111111111";
const silent = pino({ level: "silent" });
const bankAccount = { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" };
const kopi = create(ItemSchema, { id: KOPI, storeId: SHOP, type: ItemType.PRODUCT, title: "Kopi", price: 15_000n, status: ItemStatus.PUBLISHED });

const gateway = fakeGateway();

/** The schema as the release before left it, with one entry of then; upgraded; the routes over it. */
async function setup(t: ExecutionContext) {
  const { sql, upgrade } = await orderSchemaBefore(t, ADDED);
  await sql`insert into audit_log (store_id, actor, action, target) values (${SHOP}, 'operator', 'order.cancelled', 'order:old')`;
  t.true((await upgrade()).includes(ADDED), "the upgrade applies it");
  const as: { actor: Actor } = { actor: OPERATOR };
  const domain = createOrderDomain({
    sql,
    logger: silent,
    stores: { getStore: async ({ id }) => create(GetStoreResponseSchema, { store: { id, name: "Toko", bankAccount } }) },
    catalog: notStocking(({ storeId }) => ({ store: { id: storeId, name: "Toko", bankAccount }, items: [kopi] })),
    gateway,
    publicBaseUrl: "https://shop.example",
    paymentWindowMs: 3_600_000,
    midtransServerKey: "server-key",
  });
  const transport = createRouterTransport(createOrderRoutes(domain), { router: { interceptors: serverInterceptors(silent) }, transport: { interceptors: [actorInterceptor(() => as.actor)] } });
  const orders = createClient(OrderService, transport);
  const bank = createClient(BankReconciliationService, transport);
  let n = 0;
  async function newOrder() {
    const { detail } = await orders.createOrder({
      storeId: SHOP,
      items: [{ ref: { case: "productId", value: KOPI }, quantity: 1 }],
      buyer: { name: "Budi", email: "budi@example.co.id", phone: "+6281234567890" },
      paymentMethod: "bank_transfer",
      requestHash: `h${++n}`,
    });
    return detail!.order!;
  }
  return { sql, as, orders, bank, newOrder, list: (request: object) => orders.listAudit({ storeId: SHOP, ...request }) };
}

const support: Actor = { kind: "member", memberId: "7d1b9a60-3c2e-4f0a-9b1d-2e5c8f6a4b30", role: "support", email: "support@toko.example" };

test("an entry of the release before reads with no label; orders are named by their payment reference, bank transfers by the bank's id", async (t) => {
  const s = await setup(t);
  const [legacy] = (await s.list({})).entries;
  t.like(legacy, { action: "order.cancelled", target: "order:old", targetLabel: "", changes: [] });

  const paid = await s.newOrder();
  const cancelled = await s.newOrder();
  const waiting = await s.newOrder();
  await s.orders.markOrderPaid({ storeId: SHOP, orderId: paid.id });
  s.as.actor = support;
  await s.orders.cancelOrder({ storeId: SHOP, orderId: cancelled.id });
  await s.orders.refundOrder({ storeId: SHOP, orderId: paid.id, amount: 5_000n, reason: "kopi tumpah", requestHash: "r1" });
  s.as.actor = OPERATOR;
  const credit = (id: string, amount: bigint) => ({ id, amount, type: "credit", occurredAt: new Date().toISOString(), description: "TRF" });
  await s.bank.reconcileMutations({ storeId: SHOP, mutations: [credit("BCA-001", 1n), credit("BCA-002", 2n)] });
  // Rp 1 for the whole order: a person accepted the difference, and the entry says so.
  await s.bank.assignMutation({ storeId: SHOP, mutationId: "BCA-001", paymentReference: waiting.paymentReference, acceptAmountDifference: true });
  await s.bank.dismissMutation({ storeId: SHOP, mutationId: "BCA-002" });

  const { entries } = await s.list({});
  t.deepEqual(
    entries.reverse().map((e) => [e.actor, e.action, e.target, e.targetLabel]),
    [
      ["operator", "order.cancelled", "order:old", ""],
      ["operator", "order.marked_paid", `order:${paid.id}`, paid.paymentReference],
      ["support@toko.example", "order.cancelled", `order:${cancelled.id}`, cancelled.paymentReference],
      ["support@toko.example", "order.refunded", `order:${paid.id}`, paid.paymentReference],
      ["operator", "bank_mutations.imported", `store:${SHOP}`, ""],
      ["operator", "bank_mutation.assigned", "mutation:BCA-001", "BCA-001"],
      ["operator", "bank_mutation.dismissed", "mutation:BCA-002", "BCA-002"],
    ],
  );
  const assigned = entries.find((e) => e.action === "bank_mutation.assigned")!;
  t.deepEqual(
    assigned.changes.map((c) => [c.field, c.before, c.after]),
    [["amount", `${rupiah(waiting.amount)} due`, `Rp 1 received, ${rupiah(waiting.amount - 1n)} short`]],
  );
  t.true(entries.filter((e) => e !== assigned).every((e) => e.changes.length === 0));
  t.regex(paid.paymentReference, /^SO-/);
});

test("filters by actor and action; pages by position give every entry once, ties within one microsecond included; an unknown action is INVALID_ARGUMENT", async (t) => {
  const s = await setup(t);
  const order = await s.newOrder();
  s.as.actor = support;
  await s.orders.cancelOrder({ storeId: SHOP, orderId: order.id });
  s.as.actor = OPERATOR;
  // Three entries of one transaction, all at its start time: only seq tells them apart.
  await s.sql.begin(async (tx) => {
    for (const n of [1, 2, 3]) {
      await tx`insert into audit_log (store_id, created_at, actor, action, target, target_label)
        values (${SHOP}, now(), 'system', 'order.cancelled', ${`order:${n}`}, ${`SO-${n}`})`;
    }
  });

  t.deepEqual((await s.list({ actor: "support@toko.example" })).entries.map((e) => e.targetLabel), [order.paymentReference]);
  t.deepEqual((await s.list({ actor: "system", action: "order.cancelled" })).entries.map((e) => e.targetLabel), ["SO-3", "SO-2", "SO-1"]);
  t.is((await s.list({ action: "order.cancelled" })).entries.length, 5);
  t.deepEqual((await s.list({ action: "order.refunded" })).entries, []);

  t.is((await checkPaging(t, s.list, { ties: true })).length, 5);
  await checkPaging(t, s.list, { filters: { actor: "system" }, ties: true });
  t.deepEqual((await s.orders.listAudit({ storeId: "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb" })).entries, [], "one store's entries only");

  t.deepEqual(await failure(s.list({ action: "order.deleted" })), { code: Code.InvalidArgument, field: "action", message: "action: is not an action the audit log records" });
});
