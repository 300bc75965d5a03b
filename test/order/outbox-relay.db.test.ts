// The outbox relay keeps going when one batch never finishes (a query whose connection
// the database dropped can leave its promise unsettled): the batch is given up after
// its deadline and the events go out on the next run. The outbox is the real table of a
// database of the test's own; the first transaction on it never settles. No NATS.
import test from "ava";
import { pino } from "pino";
import type { BusEvent, EventBus } from "../../platform/bus.js";
import { hookQueries } from "../../platform/sql-hooks.js";
import { insertEvents } from "../../services/order/db/outbox.js";
import { startOutboxRelay } from "../../services/order/outbox-relay.js";
import { orderTables } from "../helpers/order-tables.js";

const STORE = "77777777-7777-4777-8777-777777777777";
const ORDER = "66666666-6666-4666-8666-666666666666";
const EVENTS = ["a1111111-1111-4111-8111-111111111111", "b2222222-2222-4222-8222-222222222222", "c3333333-3333-4333-8333-333333333333"];

test("a batch that never finishes is given up after its deadline; the events still go out, once each", async (t) => {
  const tables = await orderTables(t);
  // The events' order (the outbox refers to it), then its three events, unsent.
  await tables.direct`
    insert into orders (id, store_id, status, payment_reference, payment_kind, payment_method, payment_provider, settlement_channel,
      subtotal, amount, buyer_name, buyer_email, buyer_phone, store_name, success_url, return_url, error_url, expires_at)
    values (${ORDER}, ${STORE}, 'paid', 'SO-RELAYTEST1', 'none', 'none', 'none', 'none',
      0, 0, 'Budi', 'budi@example.co.id', '+6281234567890', 'Toko', 'https://shop.example/', 'https://shop.example/', 'https://shop.example/', now())`;
  await insertEvents(
    tables.direct,
    EVENTS.map((id) => ({ id, store_id: STORE, order_id: ORDER, event_type: "order.created", payload: { id } })),
  );
  let transactions = 0;
  const sql = hookQueries(tables.sql, {
    sent: () => {},
    // The first batch hangs forever, as a query on a dropped connection can.
    scope: (_name, run) => (++transactions === 1 ? new Promise<never>(() => {}) : run()),
  });
  const published: string[] = [];
  const bus = { publish: async (event: BusEvent) => void published.push(event.id) } as unknown as EventBus;
  const relay = startOutboxRelay({ sql, bus, logger: pino({ level: "silent" }), pollMs: 20, batchDeadlineMs: 100 });
  t.teardown(() => relay.stop());
  const unsent = async () => (await tables.direct<{ count: number }[]>`select count(*)::int as count from outbox where published_at is null`)[0]!.count;
  const started = Date.now();
  while ((await unsent()) > 0 && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(await unsent(), 0, "every event was sent after the stuck batch was given up");
  t.deepEqual([...published].sort(), EVENTS);
  t.true(transactions >= 2);
});
