// Baseline servers for the bench: the same work as the product, without the product's
// layers. `node --import tsx bench/baselines.ts <port> <database url>`.
//   GET  /bare              the products response body, constant (Koa alone)
//   GET  /sql/products      the catalog's listing query, straight from postgres.js
//   GET  /sql/orders/:id    the order read's queries (order, items, live session)
//   POST /sql/orders        one order and two items inserted in one transaction
import { randomUUID } from "node:crypto";
import Router from "@koa/router";
import Koa from "koa";
import postgres from "postgres";

const [port, url, storeId] = process.argv.slice(2);
// The same pool size and int8 handling as the services (platform/db.ts).
const sql = postgres(url!, { max: 10, onnotice: () => {} });
let bareBody = "{}";

const app = new Koa();
const router = new Router();
router.put("/bare", async (ctx) => {
  bareBody = await new Promise<string>((resolve) => {
    let text = "";
    ctx.req.on("data", (chunk) => (text += chunk));
    ctx.req.on("end", () => resolve(text));
  });
  ctx.status = 204;
});
router.get("/bare", (ctx) => {
  ctx.type = "application/json";
  ctx.body = bareBody;
});
router.get("/sql/products", async (ctx) => {
  const rows = await sql<{ id: string; type: string; title: string; slug: string; price: string; status: string }[]>`
    select i.id, i.type, i.title, i.slug, i.price, i.status,
      coalesce((select array_agg(b.product_id::text order by b.position) from catalog.bundle_products b where b.bundle_id = i.id), '{}') as product_ids
    from catalog.items i
    where i.store_id = ${storeId!} and i.status = 'published'
    order by i.created_at, i.id limit 21 offset 0`;
  ctx.body = {
    success: true,
    data: {
      items: rows.slice(0, 20).map((r) => ({ id: r.id, type: r.type, title: r.title, slug: r.slug, price: Number(r.price), status: r.status })),
      has_more: rows.length > 20,
    },
  };
});
router.get("/sql/orders/:id", async (ctx) => {
  const id = ctx.params.id!;
  const [order] = await sql`select * from orders.orders where id = ${id} and store_id = ${storeId!}`;
  const items = await sql`select * from orders.order_items where order_id = ${id} order by position`;
  const sessions = await sql`select * from orders.payment_sessions where order_id = ${id} and expires_at > now() order by created_at desc limit 1`;
  ctx.body = { success: true, data: { order: { ...order, amount: Number(order?.amount), items: items.map((i) => ({ ...i, unit_price: Number(i.unit_price) })) }, session: sessions[0] ?? null } };
});
let counter = 0;
router.post("/sql/orders", async (ctx) => {
  const id = randomUUID();
  const n = ++counter;
  await sql.begin(async (tx) => {
    await tx`insert into bench.orders ${tx({
      id,
      store_id: storeId!,
      status: "pending",
      payment_reference: `BENCH-${process.pid}-${n}`,
      payment_kind: "bank_transfer",
      payment_method: "bank_transfer",
      payment_provider: "manual",
      settlement_channel: "seller_bank",
      // Distinct amounts, so the pending-transfer unique index is exercised, never hit.
      subtotal: 100_000 + n * 1_000,
      unique_amount_code: (n % 999) + 1,
      amount: 100_000 + n * 1_000 + (n % 999) + 1,
      buyer_name: "Budi",
      buyer_email: "budi@example.co.id",
      buyer_phone: "+6281234567890",
      store_name: "Bench",
      success_url: "http://x/",
      return_url: "http://x/",
      error_url: "http://x/",
      expires_at: new Date(Date.now() + 86_400_000),
    })}`;
    await tx`insert into bench.order_items ${tx([
      { order_id: id, position: 0, type: "product", item_id: randomUUID(), title: "A", quantity: 1, unit_price: 50_000, line_total: 50_000 },
      { order_id: id, position: 1, type: "product", item_id: randomUUID(), title: "B", quantity: 1, unit_price: 50_000, line_total: 50_000 },
    ])}`;
  });
  ctx.status = 201;
  ctx.body = { success: true, data: { id } };
});
app.use(router.routes());
app.listen(Number(port), "127.0.0.1", () => process.stdout.write(`baselines listening on ${port}\n`));
process.on("SIGTERM", () => {
  // Not awaited: the process exits once the pool has ended, however it ended.
  void sql.end({ timeout: 1 }).finally(() => process.exit(0));
});
