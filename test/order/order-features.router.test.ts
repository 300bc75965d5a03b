// Cancelling through the API, metadata and the sync walk (docs/orders.md#metadata,
// docs/orders.md#syncing, docs/api.md#cancelling-an-order) on the order service's real
// routes, domain and SQL (template-db.ts), with fake catalog clients and gateway, and
// the caller an API key, a member or the operator as the gateway and dashboard state them.
import test, { type ExecutionContext } from "ava";
import { create } from "@bufbuild/protobuf";
import { Code, createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { pino } from "pino";
import { OPERATOR, type Actor } from "../../common/actor.js";
import { changeCursor } from "../../common/change-cursor.js";
import { GetStoreResponseSchema, ItemSchema, ItemStatus, ItemType, StoreSchema } from "../../gen/catalog/v1/catalog_pb.js";
import { OrderService } from "../../gen/order/v1/order_pb.js";
import { actorInterceptor } from "../../platform/rpc-client.js";
import { serverInterceptors } from "../../platform/rpc-server.js";
import { createOrderDomain } from "../../services/order/domain.js";
import { createOrderRoutes } from "../../services/order/routes.js";
import { fakeGateway } from "../helpers/fake-payment-gateway.js";
import { orderTables } from "../helpers/order-tables.js";
import { failure } from "../helpers/rpc-failure.js";
import { notStocking } from "../helpers/two-shops.js";
import type { Sql } from "../../platform/db.js";

const silent = pino({ level: "silent" });
const SHOP = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const OTHER = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const KOPI = "11111111-1111-4111-8111-111111111111";
const TEH = "22222222-2222-4222-8222-222222222222";
const MISSING = "99999999-9999-4999-8999-999999999999";

const WRITER: Actor = { kind: "api_key", keyId: "key-writer", scopes: ["orders:read", "orders:write"] };
const READER: Actor = { kind: "api_key", keyId: "key-reader", scopes: ["orders:read"] };
const VIEWER: Actor = { kind: "member", memberId: "m-1", role: "viewer", email: "viewer@example.co.id" };

async function setup(t: ExecutionContext) {
  const tables = await orderTables(t);
  const store = (id: string) =>
    create(StoreSchema, { id, name: "Toko", bankAccount: { bankName: "BCA", bankCode: "014", accountNumber: "1234567890", accountHolder: "Budi" } });
  const items = [
    create(ItemSchema, { id: KOPI, storeId: SHOP, type: ItemType.PRODUCT, title: "Kopi", price: 15_000n, status: ItemStatus.PUBLISHED }),
    create(ItemSchema, { id: TEH, storeId: OTHER, type: ItemType.PRODUCT, title: "Teh", price: 7_500n, status: ItemStatus.PUBLISHED }),
  ];
  const domain = createOrderDomain({
    sql: tables.sql,
    logger: silent,
    stores: { getStore: async ({ id }: { id?: string }) => create(GetStoreResponseSchema, { store: store(id ?? "") }) },
    catalog: notStocking(({ storeId, ids }) => ({ store: store(storeId), items: items.filter((item) => item.storeId === storeId && ids.includes(item.id)) })),
    gateway: fakeGateway("https://shop.example"),
    publicBaseUrl: "https://shop.example",
    paymentWindowMs: 3_600_000,
    midtransServerKey: "SB-Mid-server-features",
  });
  const as = (actor: Actor) =>
    createClient(
      OrderService,
      createRouterTransport(createOrderRoutes(domain), { router: { interceptors: serverInterceptors(silent) }, transport: { interceptors: [actorInterceptor(actor)] } }),
    );
  return { client: as(OPERATOR), as, tables };
}

type OrderClient = Client<typeof OrderService>;

async function newOrder(client: OrderClient, fields: Record<string, unknown> = {}) {
  const response = await client.createOrder({
    storeId: SHOP,
    items: [{ ref: { case: "productId", value: KOPI }, quantity: 1 }],
    buyer: { name: "Budi", email: "budi@example.co.id", phone: "+6281234567890" },
    paymentMethod: "bank_transfer",
    requestHash: "h",
    ...fields,
  });
  return response.detail!.order!;
}

async function auditActors(tables: { direct: Sql }) {
  return (await tables.direct<{ actor: string; action: string }[]>`select actor, action from audit_log order by created_at`).map((row) => `${row.actor} ${row.action}`);
}

// Cancel

test("CancelOrder: an API key with orders:write cancels a pending order, with both events and an audit entry naming the key", async (t) => {
  const { as, tables } = await setup(t);
  const writer = as(WRITER);
  const order = await newOrder(writer);
  const { order: cancelled } = await writer.cancelOrder({ storeId: SHOP, orderId: order.id, onlyPending: true });
  t.is(cancelled!.status, "cancelled");
  t.deepEqual(
    (await tables.outbox(order.id)).map((event) => event.event_type),
    ["order.created", "orderUpdated", "order.cancelled"],
  );
  t.deepEqual(await auditActors(tables), ["key:key-writer order.cancelled"]);
});

test("CancelOrder: a key without orders:write and a viewer are PERMISSION_DENIED, naming what they lack, and nothing changes", async (t) => {
  const { client, as, tables } = await setup(t);
  const order = await newOrder(client);
  t.like(await failure(as(READER).cancelOrder({ storeId: SHOP, orderId: order.id, onlyPending: true })), {
    code: Code.PermissionDenied,
    message: "this key lacks orders:write",
  });
  t.like(await failure(as(VIEWER).cancelOrder({ storeId: SHOP, orderId: order.id })), { code: Code.PermissionDenied });
  t.is((await tables.order(order.id))!.status, "pending");
});

test("CancelOrder only_pending: a cancelled, paid or expired order is FAILED_PRECONDITION; without it a repeat stays a no-op", async (t) => {
  const { client, as, tables } = await setup(t);
  const writer = as(WRITER);
  const order = await newOrder(client);
  await writer.cancelOrder({ storeId: SHOP, orderId: order.id, onlyPending: true });
  t.like(await failure(writer.cancelOrder({ storeId: SHOP, orderId: order.id, onlyPending: true })), {
    code: Code.FailedPrecondition,
    message: `order ${order.id}: only a pending order can be cancelled; this one is cancelled`,
  });
  // The dashboard's second click.
  t.is((await client.cancelOrder({ storeId: SHOP, orderId: order.id })).order!.status, "cancelled");
  const paid = await newOrder(client);
  await client.markOrderPaid({ storeId: SHOP, orderId: paid.id });
  t.like(await failure(writer.cancelOrder({ storeId: SHOP, orderId: paid.id, onlyPending: true })), { code: Code.FailedPrecondition });
  const due = await newOrder(client);
  await tables.direct`update orders set expires_at = now() - interval '1 minute' where id = ${due.id}`;
  t.like(await failure(writer.cancelOrder({ storeId: SHOP, orderId: due.id, onlyPending: true })), {
    code: Code.FailedPrecondition,
    message: `order ${due.id}: only a pending order can be cancelled; this one is expired`,
  });
});

test("CancelOrder: another store's order or an unknown one is NOT_FOUND", async (t) => {
  const { client, as } = await setup(t);
  const order = await newOrder(client);
  t.like(await failure(as(WRITER).cancelOrder({ storeId: OTHER, orderId: order.id, onlyPending: true })), { code: Code.NotFound });
  t.like(await failure(as(WRITER).cancelOrder({ storeId: SHOP, orderId: MISSING, onlyPending: true })), { code: Code.NotFound });
});

// Metadata

test("metadata: given at creation, returned on the order; set and removed (null) by UpdateOrderMetadata, with one orderUpdated event", async (t) => {
  const { as, tables } = await setup(t);
  const writer = as(WRITER);
  const order = await newOrder(writer, { metadata: { erp_id: "SO-991", channel: "tokopedia" } });
  t.deepEqual(order.metadata, { erp_id: "SO-991", channel: "tokopedia" });
  const before = (await tables.order(order.id))!.updated_at;
  const { order: updated } = await writer.updateOrderMetadata({ storeId: SHOP, orderId: order.id, set: { erp_id: "SO-992", note: "gift" }, remove: ["channel", "absent"] });
  t.deepEqual(updated!.metadata, { erp_id: "SO-992", note: "gift" });
  t.deepEqual((await writer.getOrder({ storeId: SHOP, orderId: order.id })).detail!.order!.metadata, { erp_id: "SO-992", note: "gift" });
  t.true((await tables.order(order.id))!.updated_at > before);
  const events = await tables.outbox(order.id);
  t.deepEqual(
    events.map((event) => event.event_type),
    ["order.created", "orderUpdated"],
  );
  t.like((events[1]!.payload as { data: unknown }).data, { previous_status: "pending", order: { status: "pending", metadata: { erp_id: "SO-992", note: "gift" } } });
  t.deepEqual((events[0]!.payload as { data: { order: { metadata: unknown } } }).data.order.metadata, { erp_id: "SO-991", channel: "tokopedia" });
  // The same change again changes nothing: no write, no event.
  await writer.updateOrderMetadata({ storeId: SHOP, orderId: order.id, set: { erp_id: "SO-992" }, remove: ["channel"] });
  t.is((await tables.outbox(order.id)).length, 2);
});

test("metadata: an order made without it has {}; any status may change it, a paid one too", async (t) => {
  const { client } = await setup(t);
  const order = await newOrder(client);
  t.deepEqual(order.metadata, {});
  await client.markOrderPaid({ storeId: SHOP, orderId: order.id });
  const { order: updated } = await client.updateOrderMetadata({ storeId: SHOP, orderId: order.id, set: { a: "1" } });
  t.like(updated, { status: "paid", metadata: { a: "1" } });
});

test("metadata limits: key length, value length, text, 20 keys after the merge; each error names metadata or metadata.<key> and writes nothing", async (t) => {
  const { client, tables } = await setup(t);
  const long = "k".repeat(41);
  t.like(await failure(newOrder(client, { metadata: { [long]: "x" } })), { code: Code.InvalidArgument, field: `metadata.${long}` });
  t.like(await failure(newOrder(client, { metadata: { "": "x" } })), { code: Code.InvalidArgument, field: "metadata" });
  t.like(await failure(newOrder(client, { metadata: { note: "v".repeat(501) } })), { code: Code.InvalidArgument, field: "metadata.note" });
  const twentyOne = Object.fromEntries(Array.from({ length: 21 }, (_, n) => [`k${n}`, "v"]));
  t.like(await failure(newOrder(client, { metadata: twentyOne })), { code: Code.InvalidArgument, field: "metadata" });
  t.is(await tables.count("orders"), 0);
  // 40 characters and 500 characters are fine; emoji count as one character each.
  const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, n) => [`k${n}`.padEnd(40, "x"), "😀".repeat(500)]));
  const order = await newOrder(client, { metadata: twenty });
  t.is(Object.keys(order.metadata).length, 20);
  // A 21st key is refused; swapping one in the same change is not.
  t.like(await failure(client.updateOrderMetadata({ storeId: SHOP, orderId: order.id, set: { extra: "1" } })), { code: Code.InvalidArgument, field: "metadata" });
  const first = Object.keys(twenty)[0]!;
  const { order: swapped } = await client.updateOrderMetadata({ storeId: SHOP, orderId: order.id, set: { extra: "1" }, remove: [first] });
  t.is(Object.keys(swapped!.metadata).length, 20);
  t.false(first in swapped!.metadata);
  t.like(await failure(client.updateOrderMetadata({ storeId: SHOP, orderId: order.id, set: { extra: "2" }, remove: ["extra"] })), {
    code: Code.InvalidArgument,
    field: "metadata.extra",
  });
  t.is((await tables.order(order.id))!.metadata.extra, "1");
});

test("UpdateOrderMetadata: another store's or an unknown order NOT_FOUND; a key without orders:write PERMISSION_DENIED", async (t) => {
  const { client, as } = await setup(t);
  const order = await newOrder(client);
  t.like(await failure(client.updateOrderMetadata({ storeId: OTHER, orderId: order.id, set: { a: "1" } })), { code: Code.NotFound });
  t.like(await failure(client.updateOrderMetadata({ storeId: SHOP, orderId: MISSING, set: { a: "1" } })), { code: Code.NotFound });
  t.like(await failure(client.updateOrderMetadata({ storeId: SHOP, orderId: "nope", set: { a: "1" } })), { code: Code.InvalidArgument, field: "order_id" });
  t.like(await failure(as(READER).updateOrderMetadata({ storeId: SHOP, orderId: order.id, set: { a: "1" } })), { code: Code.PermissionDenied });
});

// Syncing

/**
 * Waits until every transaction that has written an order has ended, in the whole
 * database server: a sync reads a change once no transaction older than it is still
 * writing (docs/orders.md#syncing), and other tests' transactions count too.
 */
async function settled(tables: { direct: Sql }) {
  for (let tries = 0; tries < 800; tries++) {
    const [row] = await tables.direct<{ done: boolean }[]>`
      select coalesce(max(change_xid) < pg_snapshot_xmin(pg_current_snapshot()), true) as done from orders`;
    if (row!.done) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("a transaction stayed open for 20 s");
}

async function syncAll(client: OrderClient, start: { updatedSince?: string; cursor?: string }, limit = 2) {
  const seen: { id: string; updatedAt: string; status: string }[] = [];
  let cursor = start.cursor ?? "";
  let page = await client.listOrders({ storeId: SHOP, limit, updatedSince: start.updatedSince ?? "", cursor });
  for (;;) {
    seen.push(...page.orders.map((order) => ({ id: order.id, updatedAt: order.updatedAt, status: order.status })));
    cursor = page.nextCursor;
    if (!page.hasMore) break;
    page = await client.listOrders({ storeId: SHOP, limit, cursor });
  }
  return { seen, cursor };
}

test("ListOrders updated_since: orders changed at or after it, oldest change first, paged by cursor; the last cursor picks up later changes only", async (t) => {
  const { client, tables } = await setup(t);
  const old = await newOrder(client);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const since = new Date().toISOString();
  const a = await newOrder(client);
  const b = await newOrder(client);
  const c = await newOrder(client);
  await client.cancelOrder({ storeId: SHOP, orderId: a.id });
  await settled(tables);
  const first = await syncAll(client, { updatedSince: since });
  // a changed last, so it comes last; old changed before `since`.
  t.deepEqual(
    first.seen.map((order) => order.id),
    [b.id, c.id, a.id],
  );
  t.false(first.seen.some((order) => order.id === old.id));
  t.is(first.seen.at(-1)!.status, "cancelled");
  // Nothing new: an empty page, and a cursor to keep.
  await settled(tables);
  const idle = await client.listOrders({ storeId: SHOP, limit: 2, cursor: first.cursor });
  t.deepEqual(idle.orders, []);
  t.false(idle.hasMore);
  t.not(idle.nextCursor, "");
  // Later changes, and nothing seen before that did not change again.
  await client.updateOrderMetadata({ storeId: SHOP, orderId: old.id, set: { synced: "yes" } });
  await client.markOrderPaid({ storeId: SHOP, orderId: b.id });
  await settled(tables);
  const second = await syncAll(client, { cursor: idle.nextCursor });
  t.deepEqual(
    second.seen.map((order) => order.id),
    [old.id, b.id],
  );
});

test("ListOrders updated_since: the status filter applies; another store's orders never show", async (t) => {
  const { client, tables } = await setup(t);
  const since = new Date(Date.now() - 1000).toISOString();
  const a = await newOrder(client);
  await newOrder(client);
  await newOrder(client, { storeId: OTHER, items: [{ ref: { case: "productId", value: TEH }, quantity: 1 }] });
  await client.cancelOrder({ storeId: SHOP, orderId: a.id });
  await settled(tables);
  const page = await client.listOrders({ storeId: SHOP, limit: 10, updatedSince: since, status: "cancelled" });
  t.deepEqual(
    page.orders.map((order) => order.id),
    [a.id],
  );
  t.is((await client.listOrders({ storeId: SHOP, limit: 10, updatedSince: since })).orders.length, 2);
});

test("ListOrders updated_since: argument errors name updated_since, cursor (a tampered one too), starting_after, offset and limit", async (t) => {
  const { client } = await setup(t);
  const since = "2026-01-01T00:00:00Z";
  const order = await newOrder(client);
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 10, updatedSince: "yesterday" })), { code: Code.InvalidArgument, field: "updated_since" });
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 10, updatedSince: "2026-01-01T00:00:00" })), { code: Code.InvalidArgument, field: "updated_since" });
  const cursor = (await client.listOrders({ storeId: SHOP, limit: 10, updatedSince: since })).nextCursor;
  const tampered = Buffer.from(Buffer.from(cursor, "base64url").toString("utf8").replace(/\.(\d+)\./, (_, xid: string) => `.${Number(xid) + 1}.`)).toString("base64url");
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 10, cursor: tampered })), { code: Code.InvalidArgument, field: "cursor" });
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 10, updatedSince: since, cursor: "not-a-cursor" })), { code: Code.InvalidArgument, field: "cursor" });
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 10, updatedSince: since, startingAfter: order.id })), { code: Code.InvalidArgument, field: "starting_after" });
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 10, updatedSince: since, offset: 5 })), { code: Code.InvalidArgument, field: "offset" });
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 51, updatedSince: since })), { code: Code.InvalidArgument, field: "limit" });
  t.like(await failure(client.listOrders({ storeId: SHOP, limit: 10, cursor: changeCursor({ xid: "1", id: order.id }), search: "x" })), {
    code: Code.InvalidArgument,
    field: "search",
  });
});

// Serial: the transaction it holds open keeps every other test's changes from a sync meanwhile.
test.serial("ListOrders sync: a change whose transaction is open while a page is read is not skipped: it comes after the cursor once it commits", async (t) => {
  const { client, tables } = await setup(t);
  const since = new Date(Date.now() - 1000).toISOString();
  const a = await newOrder(client);
  const b = await newOrder(client);
  // A transaction takes its id and writes an order, and stays open across the page read.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  t.teardown(() => release());
  await settled(tables);
  let started!: () => void;
  const begun = new Promise<void>((resolve) => (started = resolve));
  const writer = tables.direct.begin(async (tx) => {
    await tx`update orders set metadata = '{"late":"1"}', updated_at = clock_timestamp() where id = ${a.id}`;
    started();
    await held;
  });
  await begun;
  const c = await newOrder(client); // committed after the open transaction began
  const page = await client.listOrders({ storeId: SHOP, limit: 10, updatedSince: since });
  // a as it was before the open transaction; nothing written after that transaction
  // took its id is read yet (c), so nothing can later slip in behind this page.
  t.deepEqual(
    page.orders.map((order) => [order.id, order.metadata]),
    [
      [a.id, {}],
      [b.id, {}],
    ],
  );
  release();
  await writer;
  await settled(tables);
  const next = await client.listOrders({ storeId: SHOP, limit: 10, cursor: page.nextCursor });
  t.deepEqual(
    next.orders.map((order) => order.id),
    [a.id, c.id],
  );
  t.deepEqual(next.orders[0]!.metadata, { late: "1" });
});

test("ListOrders sync: refunds and the sweeper's expiry move an order to the end of the walk (updated_at is bumped by every change)", async (t) => {
  const { client, tables } = await setup(t);
  const since = new Date(Date.now() - 1000).toISOString();
  const paid = await newOrder(client);
  await client.markOrderPaid({ storeId: SHOP, orderId: paid.id });
  const due = await newOrder(client);
  await settled(tables);
  const { cursor } = await syncAll(client, { updatedSince: since }, 10);
  await client.refundOrder({ storeId: SHOP, orderId: paid.id, amount: 1000n, reason: "one cup spilt", requestHash: "r" });
  await tables.direct`update orders set expires_at = now() - interval '1 minute' where id = ${due.id}`;
  await client.getOrder({ storeId: SHOP, orderId: due.id }); // the read writes the expiry
  await settled(tables);
  const after = await syncAll(client, { cursor }, 10);
  t.deepEqual(
    after.seen.map((order) => [order.id, order.status]),
    [
      [paid.id, "paid"],
      [due.id, "expired"],
    ],
  );
});

test.serial("ListOrders sync: paging while orders change at once, one change held open across page reads, misses no change", async (t) => {
  const { client, tables } = await setup(t);
  const since = new Date(Date.now() - 1000).toISOString();
  const ids: string[] = [];
  for (let n = 0; n < 12; n++) ids.push((await newOrder(client)).id);
  await settled(tables);
  /** Each order as the pager last saw it, by its metadata's counter: a client's upsert by id. */
  const seen = new Map<string, number>();
  let pagesWhileHeld = 0;
  let holding = false;
  const version = (metadata: Record<string, string>) => Number(metadata.v ?? "0");
  let cursor = "";
  const readPage = async () => {
    const page = await client.listOrders({ storeId: SHOP, limit: 3, ...(cursor ? { cursor } : { updatedSince: since }) });
    for (const order of page.orders) seen.set(order.id, version(order.metadata));
    if (holding) pagesWhileHeld++;
    cursor = page.nextCursor;
    return page;
  };
  let writing = true;
  const pager = (async () => {
    while (writing) {
      await readPage();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  // Writers: each change sets a higher counter on one order.
  let counter = 0;
  const writers = Array.from({ length: 3 }, async () => {
    for (let n = 0; n < 15; n++) {
      // Never the held one: its change must come through on its own.
      const id = ids[1 + Math.floor(Math.random() * (ids.length - 1))]!;
      await client.updateOrderMetadata({ storeId: SHOP, orderId: id, set: { v: String(++counter) } });
    }
  });
  // One change held open while pages are read, committing last.
  const held = tables.direct.begin(async (tx) => {
    await tx`update orders set metadata = ${tx.json({ v: "1000" })}, updated_at = clock_timestamp() where id = ${ids[0]!}`;
    holding = true;
    await new Promise((resolve) => setTimeout(resolve, 400));
    holding = false;
  });
  await Promise.all([...writers, held]);
  writing = false;
  await pager;
  await settled(tables);
  for (let page = await readPage(); page.hasMore; page = await readPage());
  const final = await tables.direct<{ id: string; metadata: Record<string, string> }[]>`select id, metadata from orders`;
  // What the client holds is what the store holds, for every order.
  for (const row of final) t.is(seen.get(row.id), version(row.metadata), row.id);
  t.true(pagesWhileHeld > 0, "pages were read while the change was held open");
});
