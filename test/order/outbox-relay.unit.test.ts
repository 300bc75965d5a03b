// The outbox relay keeps going when one batch never finishes (a query whose connection
// the database dropped can leave its promise unsettled): the batch is given up after
// its deadline and the events go out on the next run. No database, no NATS.
import test from "ava";
import { pino } from "pino";
import type { BusEvent, EventBus } from "../../platform/bus.js";
import { startOutboxRelay, type OutboxStore } from "../../services/order/outbox-relay.js";
import type { OutboxRow, Pool } from "../../services/order/db/orders.js";

test("a batch that never finishes is given up after its deadline; the events still go out, once each", async (t) => {
  const rows: (OutboxRow & { sent: boolean })[] = ["a", "b", "c"].map((id) => ({ id, store_id: "s", event_type: "order.created", payload: { id }, created_at: new Date(), sent: false }));
  let transactions = 0;
  const store: OutboxStore = {
    async transaction(_pool, work) {
      // The first batch hangs forever, as a query on a dropped connection can.
      if (++transactions === 1) return new Promise(() => {});
      return work({} as never);
    },
    async lockUnsentEvents() {
      return rows.filter((row) => !row.sent);
    },
    async markEventsSent(_db, ids) {
      for (const row of rows) if (ids.includes(row.id)) row.sent = true;
    },
    async outboxBacklog() {
      return { count: rows.filter((row) => !row.sent).length, oldestSeconds: 0 };
    },
    async deletePublishedEvents() {
      return 0;
    },
  };
  const published: string[] = [];
  const bus = { publish: async (event: BusEvent) => void published.push(event.id) } as unknown as EventBus;
  const relay = startOutboxRelay({ sql: {} as Pool, bus, logger: pino({ level: "silent" }), store, pollMs: 20, batchDeadlineMs: 100 });
  t.teardown(() => relay.stop());
  const started = Date.now();
  while (rows.some((row) => !row.sent) && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
  t.true(rows.every((row) => row.sent), "every event was sent after the stuck batch was given up");
  t.deepEqual([...published].sort(), ["a", "b", "c"]);
  t.true(transactions >= 2);
});
