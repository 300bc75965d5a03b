// Buyer mail on the order service's real tables (016_buyer_mails.sql, buyer-mail.ts): the
// outbox trigger owes each live order's mail once, whatever events are replayed, and two
// workers racing over the same rows (two order-service instances) send each mail once.
// A failed attempt is tried again later; a refusal for good is given up. The mail server
// and the catalog are stand-ins; the full stack with a real SMTP server is buyer-mail.test.ts.
import test from "ava";
import { pino } from "pino";
import type { OutgoingMail } from "../../platform/mail.js";
import { insertEvents } from "../../services/order/db/outbox.js";
import { startBuyerMail } from "../../services/order/buyer-mail.js";
import { createSandboxGateway } from "../../services/order/payment-gateways/sandbox.js";
import { orderTables, type OrderTables } from "../helpers/order-tables.js";
import { waitFor } from "../helpers/http.js";
import { capturingLogger } from "../helpers/logs.js";

const STORE = "77777777-7777-4777-8777-777777777777";
const gateway = createSandboxGateway({ publicBaseUrl: "https://toko.example", clientKey: "SB-client" });
const render = { publicBaseUrl: "https://toko.example", gateway, testGateway: gateway };
const stores = { getStore: async () => ({ store: { emailBuyers: true, buyerLanguage: "id" } }) } as never;
const silent = pino({ level: "silent" });

/** A pending order with one item, expiring in a day, and its order.created event (live unless told). */
async function orderWithEvent(tables: OrderTables, index: number, livemode = true) {
  const [row] = await tables.direct<{ id: string; expires_at: Date }[]>`
    insert into orders (store_id, status, payment_reference, payment_kind, payment_method, payment_provider, settlement_channel,
      subtotal, amount, buyer_name, buyer_email, buyer_phone, store_name, success_url, return_url, error_url, expires_at, livemode)
    values (${STORE}, 'pending', ${`SO-MAILTEST${String(index).padStart(4, "0")}`}, 'none', 'qris', 'sandbox', 'gateway',
      ${10_000 + index}, ${10_000 + index}, 'Budi', ${`buyer${index}@example.co.id`}, '+6281234567890', 'Toko', 'https://shop.example/',
      'https://shop.example/', 'https://shop.example/', now() + interval '1 day', ${livemode})
    returning id, expires_at`;
  await tables.direct`
    insert into order_items (order_id, position, type, item_id, title, quantity, unit_price, line_total)
    values (${row!.id}, 0, 'product', gen_random_uuid(), 'Kopi', 1, ${10_000 + index}, ${10_000 + index})`;
  await createdEvent(tables, row!.id, row!.expires_at, livemode);
  return row!.id;
}

async function createdEvent(tables: OrderTables, orderId: string, expiresAt: Date, livemode: boolean) {
  const event = { id: crypto.randomUUID(), store_id: STORE, order_id: orderId, event_type: "order.created" };
  await insertEvents(tables.direct, [{ ...event, payload: { type: "order.created", data: { store_id: STORE, order: { id: orderId, expires_at: expiresAt.toISOString() }, livemode } } }]);
}

const mailRows = async (tables: OrderTables) =>
  [...(await tables.direct<{ order_id: string; kind: string; state: string; attempts: number }[]>`select order_id, kind, state, attempts from buyer_mails order by id`)];

test("two workers racing over the same rows send each buyer's mail once; replayed and test events owe nothing more", async (t) => {
  const tables = await orderTables(t);
  const orders: string[] = [];
  for (let i = 0; i < 30; i++) orders.push(await orderWithEvent(tables, i));
  const testOrder = await orderWithEvent(tables, 99, false);
  // The same event written again (a replay) owes no second mail.
  await createdEvent(tables, orders[0]!, new Date(Date.now() + 86_400_000), true);

  const rows = await mailRows(tables);
  t.is(rows.filter((row) => row.kind === "received").length, 30);
  t.is(rows.filter((row) => row.kind === "reminder").length, 30);
  t.false(rows.some((row) => row.order_id === testOrder), "a test order owes no mail");

  const delivered: OutgoingMail[] = [];
  const mailer = {
    // Slow enough that both workers are busy at once.
    deliver: async (mail: OutgoingMail) => {
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 10));
      delivered.push(mail);
      return {};
    },
  };
  const workers = [tables.sql, tables.direct].map((sql) =>
    startBuyerMail({ sql, logger: silent, mailer, stores, render, reminderBeforeMs: 3 * 3_600_000, pollMs: 10 }),
  );
  t.teardown(() => Promise.all(workers.map((worker) => worker.stop())));
  workers.forEach((worker) => worker.kick());

  await waitFor(async () => (await mailRows(tables)).filter((row) => row.kind === "received" && row.state === "sent").length === 30, 20_000, 50);
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.is(delivered.length, 30, "each order's mail once, not once per worker");
  t.is(new Set(delivered.map((mail) => mail.to)).size, 30);
  t.is(new Set(delivered.map((mail) => mail.messageId)).size, 30);
  t.true(delivered.every((mail) => mail.kind === "buyer-received"));
  // The reminders are not due for hours yet.
  t.true((await mailRows(tables)).filter((row) => row.kind === "reminder").every((row) => row.state === "waiting" && row.attempts === 0));
});

test("a failed attempt is tried again later and the mail goes out once; a refusal for good is given up; logs never show the address in full or the mail", async (t) => {
  const tables = await orderTables(t);
  const flaky = await orderWithEvent(tables, 1);
  const refused = await orderWithEvent(tables, 2);
  const delivered: string[] = [];
  let failures = 0;
  const mailer = {
    deliver: async (mail: OutgoingMail) => {
      if (mail.to === "buyer2@example.co.id") throw Object.assign(new Error("550 5.1.1 <buyer2@example.co.id>: no such user"), { responseCode: 550 });
      if (failures < 2) {
        failures++;
        throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
      }
      delivered.push(mail.to);
      return {};
    },
  };
  const lines: Record<string, any>[] = [];
  const worker = startBuyerMail({ sql: tables.sql, logger: capturingLogger(lines, { labels: true }), mailer, stores, render, reminderBeforeMs: 3 * 3_600_000, pollMs: 10, retryDelaysMs: [50, 50, 50] });
  t.teardown(() => worker.stop());

  const received = async (orderId: string) => (await mailRows(tables)).find((row) => row.order_id === orderId && row.kind === "received")!;
  await waitFor(async () => (await received(flaky)).state === "sent" && (await received(refused)).state === "failed", 10_000, 20);
  t.deepEqual(delivered, ["buyer1@example.co.id"]);
  t.like(await received(flaky), { state: "sent", attempts: 3 });
  t.like(await received(refused), { state: "failed", attempts: 1 });

  // What an operator reads: each attempt by kind, order and store, the buyer masked.
  const about = (orderId: string) => lines.filter((line) => line.orderId === orderId && line.kind === "received").map((line) => `${line.level} ${line.msg}`);
  t.deepEqual(about(flaky), ["warn buyer mail not delivered; will retry", "warn buyer mail not delivered; will retry", "info buyer mail sent"]);
  t.deepEqual(about(refused), ["error buyer mail not delivered"]);
  t.true(lines.filter((line) => line.orderId).every((line) => line.storeId === STORE));
  t.is(lines.find((line) => line.orderId === flaky && line.msg === "buyer mail sent")?.to, "b***@example.co.id");
  t.regex(lines.find((line) => line.orderId === refused)!.error.message, /b\*\*\*@example\.co\.id/, "even in the server's reply");
  const logged = JSON.stringify(lines);
  t.false(/buyer[12]@example/.test(logged), "no address in full");
  t.false(logged.includes("Kopi") || logged.includes("SO-MAILTEST"), "nothing of the mail itself");
});
