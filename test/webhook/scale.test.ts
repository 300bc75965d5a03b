// Two webhook-service processes share one durable JetStream consumer and one database
// (docs/orders.md#outbox: one durable consumer shared by every instance, one delivery per event and endpoint).
// About 100 events go through: each is delivered, none twice, and the webhook schema
// holds exactly one delivery per event.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import test from "ava";
import { SHARED_NATS_URL } from "../helpers/nats.js";
import {
  arrivals,
  assertEveryEventDelivered,
  createServices,
  sleep,
  startHookReceiver,
  type HookReceiver,
  type Services,
} from "../helpers/service-processes.js";
import { freePort } from "../helpers/process.js";

const stacks: Services[] = [];
const receivers: HookReceiver[] = [];

test.after.always(async () => {
  await Promise.allSettled(stacks.map((services) => services.close()));
  await Promise.allSettled(receivers.map((receiver) => receiver.close()));
});

/**
 * Which of `pids` owns the client end of a loopback connection from `clientPort` to
 * `serverPort`, read from /proc while the connection is open (Linux only; undefined
 * when it cannot tell). Only used to report how the work was shared.
 */
function ownerOf(clientPort: number, serverPort: number, pids: number[]): number | undefined {
  try {
    const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");
    let inode: string | undefined;
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
        const fields = line.trim().split(/\s+/);
        if (fields.length < 10) continue;
        if (fields[1]!.endsWith(`:${hex(clientPort)}`) && fields[2]!.endsWith(`:${hex(serverPort)}`)) inode = fields[9];
      }
    }
    if (!inode || inode === "0") return undefined;
    const target = `socket:[${inode}]`;
    for (const pid of pids) {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid;
        } catch {}
      }
    }
  } catch {}
  return undefined;
}

test("two webhook-service instances on one durable consumer: every event delivered exactly once", async (t) => {
  t.timeout(240_000);
  const stack = await createServices({ natsUrl: SHARED_NATS_URL });
  stacks.push(stack);
  const senders = new Map<number, number>(); // pid → requests sent
  let pids: number[] = [];
  // Answers 200 at once, so there is never a retry; notes which process sent each request.
  const hooks = await startHookReceiver({
    onRequest(entry) {
      const pid = ownerOf(entry.remotePort, hooks.port, pids);
      if (pid !== undefined) senders.set(pid, (senders.get(pid) ?? 0) + 1);
    },
  });
  receivers.push(hooks);

  await stack.spawn("catalog");
  const first = await stack.spawn("webhook");
  const second = await stack.spawn("webhook", { WEBHOOK_ADDR: `http://127.0.0.1:${await freePort()}` });
  pids = [first.child.pid!, second.child.pid!];
  await stack.spawn("order");
  const store = await stack.setUpStore(hooks.url, "Busy Store");

  // 40 orders created and 30 of them paid: 40 + 30 × 2 = 100 events.
  const orders = await Promise.all(Array.from({ length: 40 }, () => stack.createOrder(store)));
  await Promise.all(orders.slice(0, 30).map((order) => stack.orders.markOrderPaid({ storeId: store.storeId, orderId: order.id })));

  const ids = await assertEveryEventDelivered(t, stack, hooks, store.secret, 90_000);
  t.is(ids.length, 100);
  // Give a late duplicate the chance to show up before counting.
  await sleep(2_000);
  const twice = [...arrivals(hooks)].filter(([, n]) => n > 1).map(([id]) => id);
  t.deepEqual(twice, [], "no webhook-id received twice");
  t.is(hooks.received.length, 100);

  const duplicated = await stack.sql`
    select event_id, count(*)::int as n from webhooks.deliveries group by event_id having count(*) > 1`;
  t.is(duplicated.length, 0, "one delivery row per event");
  const [attempts] = await stack.sql<{ n: number; most: number }[]>`
    select count(*)::int as n, max(attempts)::int as most from webhooks.deliveries`;
  t.is(attempts!.n, 100);
  t.is(attempts!.most, 1, "every delivery took a single attempt");

  const shares = pids.map((pid) => senders.get(pid) ?? 0);
  t.log(`requests sent by instance 1: ${shares[0]}, by instance 2: ${shares[1]} (${100 - shares[0]! - shares[1]!} not attributed)`);
  if (shares.every((n) => n > 0)) t.log("both instances did some of the work");
  else t.log("could not see both instances send (not a failure: the consumer may favour one)");
  t.is(first.child.exitCode, null, "instance 1 still runs");
  t.is(second.child.exitCode, null, "instance 2 still runs");
});
