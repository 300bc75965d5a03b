// Recording an attempt cannot fail on the receiver's bytes, and a delivery ends whatever
// fails while recording (docs/webhooks.md#recording-attempts). A receiver answering with NUL bytes used to roll
// back the attempt's record (PostgreSQL's text refuses 0x00): the lease lapsed and the
// delivery was sent again every ~20 s, forever, with no attempt shown. Real PostgreSQL,
// NATS and loopback receivers.
import test from "ava";
import { waitFor } from "../helpers/http.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, shopWithReceiver, type Receiver } from "../helpers/webhooks.js";
import type { Reply } from "../helpers/receiver.js";

const SCHEDULE = ["300ms", "300ms", "300ms"];
// The lease is the timeout plus 5 s: an unrecorded send is retried only after it lapses.
const TIMEOUT_MS = 1_000;
const PATIENCE_MS = 45_000;

let stack: Stack;
const receivers: Receiver[] = [];
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "nats", env: { WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(",") }, timeoutMs: TIMEOUT_MS } });
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await stack?.close();
});

async function onlyDelivery(storeId: string) {
  await waitFor(async () => {
    const { deliveries } = await stack.webhooks!.listDeliveries({ storeId });
    return deliveries.length === 1 && deliveries[0]!.status !== "pending";
  }, PATIENCE_MS);
  return (await stack.webhooks!.listDeliveries({ storeId })).deliveries[0]!;
}

const ANSWERS: [string, () => Reply, (excerpt: string) => boolean][] = [
  ["NUL bytes", () => ({ status: 200, body: "ok\u0000\u0000done" }), (excerpt) => excerpt === "ok\\x00\\x00done"],
  ["invalid UTF-8", () => ({ status: 200, body: Buffer.from([0x6f, 0x6b, 0xff, 0xfe, 0xc3]) }), (excerpt) => excerpt === "ok\\xff\\xfe\\xc3"],
  [
    "1 MiB of binary",
    () => ({ status: 200, headers: { "content-type": "application/octet-stream" }, body: Buffer.from(Array.from({ length: 1024 * 1024 }, (_, i) => i % 256)) }),
    (excerpt) => excerpt.startsWith("\\x00\\x01\\x02") && !excerpt.includes("\u0000"),
  ],
];

for (const [name, answer, excerptOk] of ANSWERS) {
  test(`a 2xx answer of ${name}: one request, the attempt recorded, the delivery succeeded`, async (t) => {
    const { shop, receiver } = await shopWithReceiver(stack, answer, `Bytes ${name}`);
    receivers.push(receiver);
    await createOrder(t, stack, shop, "bank_transfer");
    const delivery = await onlyDelivery(shop.storeId);
    t.is(delivery.status, "succeeded");
    t.is(delivery.attempts.length, 1);
    t.is(delivery.attempts[0]!.result, "succeeded");
    t.true(excerptOk(delivery.attempts[0]!.responseExcerpt), JSON.stringify(delivery.attempts[0]!.responseExcerpt.slice(0, 40)));
    t.is(receiver.received.length, 1, "sent once");
  });
}

test("an attempt that can never be recorded still ends: sent once per step at most, then failed", async (t) => {
  const { shop, receiver } = await shopWithReceiver(stack, () => ({ status: 200, body: "ok" }), "Unrecordable Store");
  receivers.push(receiver);
  // Every attempt of this store's deliveries is refused by the database, whatever it holds.
  const fn = `refuse_attempts_${shop.storeId.replaceAll("-", "")}`;
  await stack.webhookSql!.unsafe(`
    create function ${fn}() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from deliveries where id = new.delivery_id and store_id = '${shop.storeId}') then
        raise exception 'injected: attempts of this store cannot be recorded';
      end if;
      return new;
    end $$;
    create trigger ${fn} before insert on delivery_attempts for each row execute function ${fn}();`);
  t.teardown(() => stack.webhookSql!.unsafe(`drop trigger if exists ${fn} on delivery_attempts; drop function if exists ${fn}();`).then(() => undefined));
  await createOrder(t, stack, shop, "bank_transfer");
  const delivery = await onlyDelivery(shop.storeId);
  t.is(delivery.status, "failed");
  t.regex(delivery.lastError, /could not be recorded/);
  t.true(receiver.received.length >= 1 && receiver.received.length <= 2, `sent ${receiver.received.length} times`);
  const ids = new Set(receiver.received.map((entry) => entry.headers["webhook-id"]));
  t.is(ids.size, 1, "one webhook-id");
});
