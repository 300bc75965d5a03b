// Secret rotation (docs/webhooks.md#secrets): `rotate` makes a new secret and, for the overlap
// (here WEBHOOK_ROTATION_OVERLAP=3s instead of 24 h), every delivery is signed with
// both, space-separated, so a receiver holding either verifies it with the
// standardwebhooks package; after the overlap only the new one signs. With
// WEBHOOK_SECRET_KEY set, secrets are stored encrypted and deliveries still verify.
import test, { type ExecutionContext } from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { randomUUID } from "node:crypto";
import { waitFor } from "../helpers/http.js";
import type { Received } from "../helpers/receiver.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, settled, shopWithReceiver, verify, type Receiver } from "../helpers/webhooks.js";

const OVERLAP_MS = 3_000;
const PATIENCE_MS = 30_000;
const SECRET_KEY = "test-master-key-for-webhook-secrets";

const stacks: Record<"plain" | "sealed", Stack | undefined> = { plain: undefined, sealed: undefined };
const receivers: Receiver[] = [];
test.before(async () => {
  [stacks.plain, stacks.sealed] = await Promise.all([
    startStack({ webhooks: { bus: "nats", env: { WEBHOOK_ROTATION_OVERLAP: "3s" } } }),
    startStack({ webhooks: { bus: "nats", env: { WEBHOOK_ROTATION_OVERLAP: "3s", WEBHOOK_SECRET_KEY: SECRET_KEY } } }),
  ]);
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await Promise.all(Object.values(stacks).filter((stack) => stack !== undefined).map((stack) => stack.close()));
});

const signaturesOf = (entry: Received) => String(entry.headers["webhook-signature"]).split(" ");

async function merchant(stack: Stack, name: string) {
  const setup = await shopWithReceiver(stack, undefined, name);
  receivers.push(setup.receiver);
  return setup;
}

function assertSignatureForm(t: ExecutionContext, entry: Received, count: number) {
  const signatures = signaturesOf(entry);
  t.is(signatures.length, count, String(entry.headers["webhook-signature"]));
  for (const signature of signatures) t.regex(signature, /^v1,[A-Za-z0-9+/]{43}=$/);
}

for (const kind of ["plain", "sealed"] as const) {
  test(`${kind}: after rotate both secrets verify; after the overlap only the new one`, async (t) => {
    const stack = stacks[kind]!;
    const { shop, receiver, secret: oldSecret } = await merchant(stack, `Rotation ${kind}`);

    // Before rotating: one signature, by the only secret.
    const first = await createOrder(t, stack, shop, "bank_transfer");
    await waitFor(() => receiver.received.length === 1, PATIENCE_MS);
    assertSignatureForm(t, receiver.received[0]!, 1);
    t.is(verify(oldSecret, receiver.received[0]!).data.order.id, first.id);

    const before = Date.now();
    const rotated = await stack.webhooks!.rotateSecret({ storeId: shop.storeId });
    const after = Date.now();
    const newSecret = rotated.secret;
    t.regex(newSecret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    t.not(newSecret, oldSecret);
    t.is(rotated.endpoint!.url, receiver.url);
    const oldExpires = Date.parse(rotated.previousSecretExpiresAt);
    t.true(oldExpires >= before + OVERLAP_MS && oldExpires <= after + OVERLAP_MS, rotated.previousSecretExpiresAt);

    // During the overlap: two signatures, and either secret alone verifies.
    await stack.orders.markOrderPaid({ storeId: shop.storeId, orderId: first.id });
    await waitFor(() => receiver.received.length === 3, PATIENCE_MS);
    for (const entry of receiver.received.slice(1)) {
      t.true(entry.at < oldExpires, "arrived within the overlap");
      assertSignatureForm(t, entry, 2);
      const withOld = verify(oldSecret, entry);
      const withNew = verify(newSecret, entry);
      t.deepEqual(withOld, withNew);
      t.is(withNew.data.order.status, "paid");
    }

    // After the overlap: only the new secret signs.
    await waitFor(() => Date.now() > oldExpires + 100, PATIENCE_MS, 50);
    const second = await createOrder(t, stack, shop, "bank_transfer");
    await waitFor(() => receiver.received.length === 4, PATIENCE_MS);
    const late = receiver.received[3]!;
    assertSignatureForm(t, late, 1);
    t.is(verify(newSecret, late).data.order.id, second.id);
    t.throws(() => verify(oldSecret, late), undefined, "the rotated-out secret no longer verifies");

    // A redelivery of an event from the overlap is signed now, so by the new secret only.
    const { deliveries } = await stack.webhooks!.listDeliveries({ storeId: shop.storeId, orderId: first.id });
    const paid = deliveries.find((d) => d.eventType === "order.paid")!;
    await stack.webhooks!.redeliver({ storeId: shop.storeId, deliveryId: paid.id });
    await waitFor(() => receiver.received.length === 5, PATIENCE_MS);
    const redelivered = receiver.received[4]!;
    t.is(redelivered.headers["webhook-id"], paid.eventId);
    assertSignatureForm(t, redelivered, 1);
    t.is(verify(newSecret, redelivered).type, "order.paid");
    t.throws(() => verify(oldSecret, redelivered));

    await settled(stack, [shop.storeId]);
    t.is(receiver.received.length, 5);
  });

  test(`${kind}: rotating twice within the overlap signs with all three live secrets`, async (t) => {
    const stack = stacks[kind]!;
    const { shop, receiver, secret: s1 } = await merchant(stack, `Double Rotation ${kind}`);
    const { secret: s2, previousSecretExpiresAt: s1Expires } = await stack.webhooks!.rotateSecret({ storeId: shop.storeId });
    const { secret: s3 } = await stack.webhooks!.rotateSecret({ storeId: shop.storeId });
    await createOrder(t, stack, shop, "bank_transfer");
    await waitFor(() => receiver.received.length === 1, PATIENCE_MS);
    const entry = receiver.received[0]!;
    t.true(entry.at < Date.parse(s1Expires), "arrived before the first secret lapsed");
    assertSignatureForm(t, entry, 3);
    for (const secret of [s1, s2, s3]) t.is(verify(secret, entry).type, "order.created");
  });
}

test("sealed: the stored secret is encrypted (aesgcm:), never the plain whsec_ secret, and deliveries verify", async (t) => {
  const stack = stacks.sealed!;
  const { shop, receiver, secret, endpointId } = await merchant(stack, "Sealed Store");
  const { secret: rotated } = await stack.webhooks!.rotateSecret({ storeId: shop.storeId });

  const rows = await stack.webhookSql!<{ secret: string }[]>`select secret from endpoint_secrets where endpoint_id = ${endpointId}`;
  t.is(rows.length, 2);
  for (const row of rows) {
    t.true(row.secret.startsWith("aesgcm:"), row.secret.slice(0, 12));
    for (const plain of [secret, rotated]) {
      t.false(row.secret.includes(plain));
      t.false(row.secret.includes(plain.slice("whsec_".length)), "not even the base64 part");
    }
    t.false(row.secret.includes("whsec_"));
  }
  // Nothing else in the schema holds the secret either.
  const [dump] = await stack.webhookSql!<{ text: string }[]>`
    select coalesce(string_agg(e::text, ' '), '') as text from endpoints e`;
  t.false(dump!.text.includes(secret.slice("whsec_".length)));

  const order = await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => receiver.received.length === 1, PATIENCE_MS);
  t.is(verify(secret, receiver.received[0]!).data.order.id, order.id);
  t.is(verify(rotated, receiver.received[0]!).data.order.id, order.id);
});

test("rotating a store without an endpoint is NOT_FOUND", async (t) => {
  const error = await t.throwsAsync(stacks.plain!.webhooks!.rotateSecret({ storeId: randomUUID() }), { instanceOf: ConnectError });
  t.is(error?.code, Code.NotFound);
});
