// The outbox stays the size of an hour's traffic (outbox-relay.ts): published events
// are deleted once they are an hour old, in batches, by the relay; unpublished ones and
// recent ones stay. Real PostgreSQL; the bus is a recorder.
import test from "ava";
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import type { BusEvent, EventBus } from "../../platform/bus.js";
import { OUTBOX_KEEP_PUBLISHED_SECONDS, startOutboxRelay } from "../../services/order/outbox-relay.js";
import { orderSchemaBefore } from "../helpers/order-migrations.js";

test("published events past the hour are deleted in batches; recent and unpublished ones stay, and the unpublished still go out", async (t) => {
  // Every migration: "~" sorts after every migration's name.
  const { sql } = await orderSchemaBefore(t, "~");
  const store = randomUUID();
  // One order the events are about (the outbox refers to it).
  const [order] = await sql<{ id: string }[]>`
    insert into orders (store_id, status, payment_reference, payment_kind, payment_method, payment_provider, settlement_channel,
      subtotal, amount, buyer_name, buyer_email, buyer_phone, store_name, success_url, return_url, error_url, expires_at)
    values (${store}, 'pending', 'ORD-RETENTION1', 'none', 'free', 'none', 'none', 0, 0, 'Budi', 'budi@example.com', '0811',
      'Toko', 'https://t.example/s', 'https://t.example/r', 'https://t.example/e', clock_timestamp() + interval '1 day')
    returning id`;
  const insert = (count: number, publishedAgo: string | null) => sql`
    insert into outbox (id, store_id, order_id, event_type, payload, created_at, published_at)
    select gen_random_uuid(), ${store}, ${order!.id}, 'order.created', '{}'::json,
      clock_timestamp() - interval '2 hours',
      ${publishedAgo === null ? null : sql`clock_timestamp() - ${publishedAgo}::interval`}
    from generate_series(1, ${count})`;
  // More than two of the relay's delete batches (5,000), so batching is walked through.
  await insert(12_000, "61 minutes");
  await insert(5, "59 minutes");
  await insert(3, null);

  const published: string[] = [];
  const bus = { publish: async (event: BusEvent) => void published.push(event.id) } as unknown as EventBus;
  const relay = startOutboxRelay({ sql, bus, logger: pino({ level: "silent" }), pollMs: 50, purgeEveryMs: 50 });
  t.teardown(() => relay.stop());

  const count = async (where: "old" | "recent" | "any") => {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from outbox where store_id = ${store}
        ${where === "old" ? sql`and published_at < clock_timestamp() - make_interval(secs => ${OUTBOX_KEEP_PUBLISHED_SECONDS})` : where === "recent" ? sql`and published_at >= clock_timestamp() - make_interval(secs => ${OUTBOX_KEEP_PUBLISHED_SECONDS})` : sql``}`;
    return row!.n;
  };
  const started = Date.now();
  while ((await count("old")) > 0 && Date.now() - started < 30_000) await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(await count("old"), 0, "every event published over an hour ago is gone");
  t.is(await count("recent"), 8, "the 5 published within the hour and the 3 just published stay");
  t.is(published.length, 3, "the unpublished ones went out");
});
