// Standard Webhooks signatures (docs/webhooks.md#requests): `v1,<base64 HMAC-SHA256>` over
// "{id}.{timestamp}.{body}" with the secret's bytes, verified here by the
// `standardwebhooks` package itself; during a rotation every live secret signs.
import test from "ava";
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { generateSecret, sign, signatureHeader } from "../../services/webhook/signing.js";

const body = JSON.stringify({ type: "order.paid", timestamp: "2025-06-01T12:00:00.000Z", data: { store_id: "s", order: { id: "o", note: "ünïcödé ✓" }, previous_status: "pending" } });

function headers(id: string, timestamp: number, signature: string) {
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature };
}

test("a secret is whsec_ and base64 of 32 random bytes", (t) => {
  const secret = generateSecret();
  t.regex(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.is(Buffer.from(secret.slice(6), "base64").length, 32);
  t.not(generateSecret(), secret);
});

test("a signature verifies with the standardwebhooks package, byte for byte", (t) => {
  const secret = generateSecret();
  const id = randomUUID();
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = signatureHeader([secret], id, timestamp, body);
  t.regex(signature, /^v1,[A-Za-z0-9+/]{43}=$/);
  t.deepEqual(new Webhook(secret).verify(body, headers(id, timestamp, signature)), JSON.parse(body));
  t.is(signature, new Webhook(secret).sign(id, new Date(timestamp * 1000), body), "the same as the package's own signature");
});

test("a signature does not verify with another secret, body, id or timestamp", (t) => {
  const secret = generateSecret();
  const id = randomUUID();
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = sign(secret, id, timestamp, body);
  t.throws(() => new Webhook(generateSecret()).verify(body, headers(id, timestamp, signature)));
  t.throws(() => new Webhook(secret).verify(body.replace("order.paid", "order.failed"), headers(id, timestamp, signature)));
  t.throws(() => new Webhook(secret).verify(body, headers(randomUUID(), timestamp, signature)));
  t.throws(() => new Webhook(secret).verify(body, headers(id, timestamp - 1, signature)));
});

test("during a rotation the header holds two signatures, space-separated, and each secret verifies", (t) => {
  const [current, previous] = [generateSecret(), generateSecret()];
  const id = randomUUID();
  const timestamp = Math.floor(Date.now() / 1000);
  const header = signatureHeader([current, previous], id, timestamp, body);
  const parts = header.split(" ");
  t.is(parts.length, 2);
  t.deepEqual(parts, [sign(current, id, timestamp, body), sign(previous, id, timestamp, body)]);
  for (const secret of [current, previous]) {
    t.notThrows(() => new Webhook(secret).verify(body, headers(id, timestamp, header)));
  }
  t.throws(() => new Webhook(generateSecret()).verify(body, headers(id, timestamp, header)));
});

test("a secret without the whsec_ prefix signs the same (its base64 bytes)", (t) => {
  const secret = generateSecret();
  t.is(sign(secret.slice(6), "id", 1, "{}"), sign(secret, "id", 1, "{}"));
});
