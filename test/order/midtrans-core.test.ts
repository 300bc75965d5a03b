import test from "ava";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyMidtransSignature } from "../../common/midtrans.js";
import { createMidtransGateway, defaultMidtransApiBaseUrl } from "../../services/order/payment-gateways/midtrans.js";
import { createSandboxGateway } from "../../services/order/payment-gateways/sandbox.js";
import { GatewayUnavailable, type PaymentGateway } from "../../services/order/payment-gateways/types.js";
import { startFakeMidtrans, type FakeMidtrans } from "../helpers/fake-midtrans.js";

// The Midtrans adapter's Core API (refund, status, expire) against the fake on loopback.

const SERVER_KEY = "SB-Mid-server-core-test";

/** A gateway whose Snap host is nowhere: every Core API call must go to apiBaseUrl. */
function gatewayFor(fake: FakeMidtrans, overrides: { serverKey?: string; timeoutMs?: number } = {}): Required<PaymentGateway> {
  return createMidtransGateway({
    baseUrl: "http://127.0.0.1:9",
    apiBaseUrl: fake.url,
    serverKey: overrides.serverKey ?? SERVER_KEY,
    clientKey: "SB-Mid-client-core-test",
    timeoutMs: overrides.timeoutMs ?? 3_000,
  }) as Required<PaymentGateway>;
}

const reference = () => `ORD-${randomUUID().slice(0, 8).toUpperCase()}`;

async function withFake(run: (fake: FakeMidtrans) => Promise<void>) {
  const fake = await startFakeMidtrans({ serverKey: SERVER_KEY });
  try {
    await run(fake);
  } finally {
    await fake.close();
  }
}

test("a partial refund and then the rest: partial_refund, then refund, as the status answer shows", async (t) => {
  await withFake(async (fake) => {
    // Snap and the Core API on the same fake: the Snap transaction is what gets refunded.
    const gateway = createMidtransGateway({ baseUrl: fake.url, apiBaseUrl: fake.url, serverKey: SERVER_KEY, clientKey: "c" }) as Required<PaymentGateway>;
    const orderId = reference();
    await gateway.createSession({
      orderId,
      amount: 10_000,
      method: "qris",
      items: [{ id: "p1", name: "Kopi", price: 10_000, quantity: 1 }],
      buyer: { name: "Budi", email: "budi@example.com", phone: "+6281234567890" },
      expiresAt: new Date(Date.now() + 3_600_000),
      finishUrl: "https://shop.example/finish",
    });
    fake.setStatus(orderId, "settlement");

    const first = await gateway.refund({ orderId, refundKey: "rf-1", amount: 4_000, reason: "one cup was cold" });
    t.deepEqual(first, { kind: "succeeded", gatewayRefundId: "1" });
    t.deepEqual(fake.refunds(orderId)[0]!.body, { refund_key: "rf-1", amount: 4_000, reason: "one cup was cold" });
    t.is(fake.transaction(orderId)!.transaction_status, "partial_refund");

    const middle = await gateway.status(orderId);
    if (middle.kind !== "found") return t.fail("status not found");
    t.is(middle.fields.transaction_status, "partial_refund");
    t.is(middle.fields.refund_amount, "4000.00");
    t.like((middle.fields.refunds as any[])[0], { refund_chargeback_id: 1, refund_amount: "4000.00", refund_key: "rf-1", reason: "one cup was cold" });

    const rest = await gateway.refund({ orderId, refundKey: "rf-2", amount: 6_000, reason: "order cancelled" });
    t.deepEqual(rest, { kind: "succeeded", gatewayRefundId: "2" });
    const after = await gateway.status(orderId);
    if (after.kind !== "found") return t.fail("status not found");
    t.is(after.fields.transaction_status, "refund");
    t.is(after.fields.refund_amount, "10000.00");
    t.deepEqual(
      (after.fields.refunds as any[]).map((r) => [r.refund_key, r.refund_amount]),
      [
        ["rf-1", "4000.00"],
        ["rf-2", "6000.00"],
      ],
    );
    t.true(verifyMidtransSignature(after.fields as any, SERVER_KEY));

    // Nothing is left: one more refund is refused.
    const more = await gateway.refund({ orderId, refundKey: "rf-3", amount: 1, reason: "again" });
    t.is(more.kind, "refused");
  });
});

test("the same refund_key twice refunds once and answers the same refund", async (t) => {
  await withFake(async (fake) => {
    const gateway = gatewayFor(fake);
    const orderId = reference();
    fake.setStatus(orderId, "settlement", { gross_amount: 10_000 });
    const request = { orderId, refundKey: randomUUID(), amount: 3_000, reason: "retry after a timeout" };
    const first = await gateway.refund(request);
    const again = await gateway.refund(request);
    t.is(first.kind, "succeeded");
    t.deepEqual(again, first);
    t.is(fake.refunds(orderId).length, 2, "both requests reached the gateway");
    const tx = fake.transaction(orderId)!;
    t.is(tx.refunds.length, 1);
    t.is(tx.refunds[0]!.refund_amount, 3_000);
    t.is(tx.transaction_status, "partial_refund");
  });
});

test("a refund beyond what is left, or of an unpaid transaction, is refused with Midtrans' message", async (t) => {
  await withFake(async (fake) => {
    const gateway = gatewayFor(fake);
    const paid = reference();
    fake.setStatus(paid, "settlement", { gross_amount: 10_000 });
    t.is((await gateway.refund({ orderId: paid, refundKey: "a", amount: 7_000, reason: "r" })).kind, "succeeded");
    const beyond = await gateway.refund({ orderId: paid, refundKey: "b", amount: 4_000, reason: "r" });
    if (beyond.kind !== "refused") return t.fail(`expected refused, got ${beyond.kind}`);
    t.is(beyond.message, fake.refunds(paid)[1]!.answer.status_message);
    t.regex(beyond.message, /exceeds the remaining amount/);
    t.is(fake.refunds(paid)[1]!.statusCode, "412");
    t.deepEqual(
      fake.transaction(paid)!.refunds.map((r) => r.refund_amount),
      [7_000],
    );

    const unpaid = reference();
    fake.setStatus(unpaid, "pending", { gross_amount: 10_000 });
    t.deepEqual(await gateway.refund({ orderId: unpaid, refundKey: "c", amount: 1_000, reason: "r" }), {
      kind: "refused",
      message: "Merchant cannot modify the status of the transaction",
    });
    t.is(fake.transaction(unpaid)!.transaction_status, "pending");
  });
});

test('coreMode "refuse" gives refused with the gateway\'s message and refunds nothing', async (t) => {
  await withFake(async (fake) => {
    const gateway = gatewayFor(fake);
    const orderId = reference();
    fake.setStatus(orderId, "settlement", { gross_amount: 25_000 });
    fake.coreMode = "refuse";
    const answer = await gateway.refund({ orderId, refundKey: "k1", amount: 5_000, reason: "r" });
    t.deepEqual(answer, { kind: "refused", message: fake.refunds(orderId)[0]!.answer.status_message });
    t.truthy((answer as { message: string }).message);
    t.is(fake.transaction(orderId)!.refunds.length, 0);
    t.is(fake.transaction(orderId)!.transaction_status, "settlement");
    // expire is refused too
    const pending = reference();
    fake.setStatus(pending, "pending", { gross_amount: 1_000 });
    t.is((await gateway.expire(pending)).kind, "refused");
    t.is(fake.transaction(pending)!.transaction_status, "pending");
  });
});

test('coreMode "down" and "hang" throw GatewayUnavailable, without the server key in the message', async (t) => {
  await withFake(async (fake) => {
    const gateway = gatewayFor(fake, { timeoutMs: 300 });
    const orderId = reference();
    fake.setStatus(orderId, "settlement", { gross_amount: 10_000 });
    const base64 = Buffer.from(`${SERVER_KEY}:`).toString("base64");
    fake.coreMode = "down";
    for (const call of [
      () => gateway.refund({ orderId, refundKey: "k", amount: 1_000, reason: "r" }),
      () => gateway.status(orderId),
      () => gateway.expire(orderId),
    ]) {
      const error = await t.throwsAsync(call, { instanceOf: GatewayUnavailable });
      t.false(error.message.includes(SERVER_KEY) || error.message.includes(base64), error.message);
    }
    t.is(fake.refunds(orderId)[0]!.status, 503);
    t.is(fake.transaction(orderId)!.refunds.length, 0);

    fake.coreMode = "hang";
    const started = Date.now();
    await t.throwsAsync(gateway.status(orderId), { instanceOf: GatewayUnavailable, message: /no answer within 300 ms/ });
    t.true(Date.now() - started < 2_500, "the timeout applies");

    // Back up: the same refund goes through.
    fake.coreMode = "ok";
    t.is((await gateway.refund({ orderId, refundKey: "k", amount: 1_000, reason: "r" })).kind, "succeeded");
  });
});

test("status: pending, settled (signed so it verifies), unknown", async (t) => {
  await withFake(async (fake) => {
    const gateway = gatewayFor(fake);
    const pending = reference();
    fake.setStatus(pending, "pending", { gross_amount: 15_000 });
    const p = await gateway.status(pending);
    if (p.kind !== "found") return t.fail("pending not found");
    t.like(p.fields, { order_id: pending, status_code: "201", transaction_status: "pending", gross_amount: "15000.00" });
    t.true(verifyMidtransSignature(p.fields as any, SERVER_KEY));

    const settled = reference();
    fake.setStatus(settled, "settlement", { gross_amount: 10_000 });
    const s = await gateway.status(settled);
    if (s.kind !== "found") return t.fail("settled not found");
    t.like(s.fields, { order_id: settled, status_code: "200", transaction_status: "settlement", fraud_status: "accept", gross_amount: "10000.00" });
    t.regex(String(s.fields.signature_key), /^[0-9a-f]{128}$/);
    t.true(verifyMidtransSignature(s.fields as any, SERVER_KEY));
    t.false(verifyMidtransSignature(s.fields as any, "another-server-key"));
    t.false("refunds" in s.fields, "no refunds before a refund");

    t.deepEqual(await gateway.status(reference()), { kind: "not_found" });
    t.is(fake.statusChecks().length, 3);
    t.is(fake.statusChecks(settled).length, 1);
  });
});

test("a Snap transaction is pending to the Core API, or unknown as real Midtrans has it until a method is chosen", async (t) => {
  await withFake(async (fake) => {
    const gateway = createMidtransGateway({ baseUrl: fake.url, apiBaseUrl: fake.url, serverKey: SERVER_KEY, clientKey: "c" }) as Required<PaymentGateway>;
    const orderId = reference();
    await gateway.createSession({
      orderId,
      amount: 12_000,
      method: "qris",
      items: [{ id: "p1", name: "Teh", price: 6_000, quantity: 2 }],
      buyer: { name: "Sari", email: "sari@example.com", phone: "+6281111111111" },
      expiresAt: new Date(Date.now() + 3_600_000),
      finishUrl: "https://shop.example/finish",
    });
    const seen = await gateway.status(orderId);
    t.like(seen, { kind: "found", fields: { transaction_status: "pending", gross_amount: "12000.00" } });
    fake.snapTransactionsVisible = false;
    t.deepEqual(await gateway.status(orderId), { kind: "not_found" });
    t.deepEqual(await gateway.expire(orderId), { kind: "not_found" });
    fake.setStatus(orderId, "pending");
    t.like(await gateway.status(orderId), { kind: "found" });
  });
});

test("expire: a pending transaction expires; unknown is not_found; a settled one is refused", async (t) => {
  await withFake(async (fake) => {
    const gateway = gatewayFor(fake);
    const pending = reference();
    fake.setStatus(pending, "pending", { gross_amount: 10_000 });
    t.deepEqual(await gateway.expire(pending), { kind: "expired" });
    t.is(fake.expires(pending)[0]!.statusCode, "407");
    t.is(fake.transaction(pending)!.transaction_status, "expire");
    const after = await gateway.status(pending);
    t.like(after, { kind: "found", fields: { transaction_status: "expire", status_code: "407" } });
    t.true(verifyMidtransSignature((after as any).fields, SERVER_KEY));
    t.deepEqual(await gateway.expire(pending), { kind: "expired" }, "expiring again is still expired");

    t.deepEqual(await gateway.expire(reference()), { kind: "not_found" });

    const settled = reference();
    fake.setStatus(settled, "settlement", { gross_amount: 10_000 });
    t.deepEqual(await gateway.expire(settled), { kind: "refused", message: "Merchant cannot modify the status of the transaction" });
    t.is(fake.transaction(settled)!.transaction_status, "settlement");
  });
});

test("every Core API call sends the server key as Basic auth, accepts JSON, and URL-encodes the order id", async (t) => {
  await withFake(async (fake) => {
    const gateway = gatewayFor(fake);
    const orderId = "ORD #1/2?x";
    fake.setStatus(orderId, "settlement", { gross_amount: 5_000 });
    await gateway.status(orderId);
    await gateway.refund({ orderId, refundKey: "k", amount: 5_000, reason: "r" });
    await gateway.expire(orderId);
    const expected = `Basic ${Buffer.from(`${SERVER_KEY}:`).toString("base64")}`;
    const calls = [...fake.statusChecks(orderId), ...fake.refunds(orderId), ...fake.expires(orderId)];
    t.is(calls.length, 3);
    for (const call of calls) {
      t.is(call.headers.authorization, expected);
      t.is(call.headers.accept, "application/json");
      t.true(call.path.startsWith("/v2/ORD%20%231%2F2%3Fx/"), call.path);
    }
    t.is(fake.refunds(orderId)[0]!.headers["content-type"], "application/json");
    t.is(fake.transaction(orderId)!.transaction_status, "refund");

    // A server key Midtrans does not accept is a fault to fix, not a verdict on the refund.
    const wrong = gatewayFor(fake, { serverKey: "SB-Mid-server-wrong" });
    await t.throwsAsync(wrong.refund({ orderId, refundKey: "k2", amount: 1, reason: "r" }), { instanceOf: GatewayUnavailable, message: /401/ });
    t.is(fake.refunds(orderId).at(-1)!.status, 401);
  });
});

test("answers read by the body's status_code: HTTP 404 with a 404 body, HTML, a 5xx body", async (t) => {
  let reply: { status: number; type: string; body: string } = { status: 200, type: "application/json", body: "{}" };
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(reply.status, { "content-type": reply.type });
    res.end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gateway = createMidtransGateway({ baseUrl: url, serverKey: SERVER_KEY, clientKey: "c" }) as Required<PaymentGateway>;
  try {
    reply = { status: 404, type: "application/json", body: JSON.stringify({ status_code: "404", status_message: "Transaction doesn't exist." }) };
    t.deepEqual(await gateway.status("ORD-1"), { kind: "not_found" });
    t.deepEqual(await gateway.expire("ORD-1"), { kind: "not_found" });

    reply = { status: 200, type: "text/html", body: "<html>maintenance</html>" };
    await t.throwsAsync(gateway.status("ORD-1"), { instanceOf: GatewayUnavailable });

    reply = { status: 200, type: "application/json", body: JSON.stringify({ status_code: "500", status_message: "Internal server error" }) };
    await t.throwsAsync(gateway.refund({ orderId: "ORD-1", refundKey: "k", amount: 1, reason: "r" }), { instanceOf: GatewayUnavailable });

    reply = { status: 200, type: "application/json", body: JSON.stringify({ status_code: "200", refund_chargeback_id: "abc" }) };
    t.deepEqual(await gateway.refund({ orderId: "ORD-1", refundKey: "k", amount: 1, reason: "r" }), { kind: "succeeded", gatewayRefundId: "abc" });

    reply = { status: 200, type: "application/json", body: JSON.stringify({ status_code: "412", transaction_status: "expire" }) };
    t.deepEqual(await gateway.expire("ORD-1"), { kind: "expired" }, "already expired");
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("the Core API host defaults to Midtrans' api host for its app host, else the same host", (t) => {
  t.is(defaultMidtransApiBaseUrl("https://app.sandbox.midtrans.com"), "https://api.sandbox.midtrans.com");
  t.is(defaultMidtransApiBaseUrl("https://app.midtrans.com/"), "https://api.midtrans.com");
  t.is(defaultMidtransApiBaseUrl("http://127.0.0.1:4000/"), "http://127.0.0.1:4000");
});

test("the sandbox refunds at once and has no status or expire of its own", async (t) => {
  const sandbox = createSandboxGateway({ publicBaseUrl: "http://localhost:3000", clientKey: "sandbox-client-key" });
  t.deepEqual(await sandbox.refund({ orderId: "ORD-1", refundKey: randomUUID(), amount: 5_000, reason: "r" }), { kind: "succeeded" });
  t.is(typeof sandbox.status, "undefined");
  t.is(typeof sandbox.expire, "undefined");
});
