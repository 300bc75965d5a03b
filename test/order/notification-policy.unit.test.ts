// The Midtrans notification policy of docs/payments.md#notifications as pure functions: what each
// transaction status means, how gross_amount is read, the signature and text checks,
// how a refused transition is acknowledged, which notifications wait for the gateway's
// status answer and when that answer counts. No database, no process.
import test from "ava";
import { Code, ConnectError } from "@connectrpc/connect";
import { midtransSignature } from "../../common/midtrans.js";
import {
  amountMatches,
  movesMoney,
  parseGrossAmount,
  parseMidtransNotification,
  readNotification,
  refusalLog,
  statusFromMidtrans,
  verifiedAnswer,
} from "../../services/order/notifications.js";
import type { OrderStatus } from "../../services/order/status-machine.js";
import { fieldViolations } from "../../platform/field-errors.js";

const KEY = "SB-Mid-server-unit";

test("statusFromMidtrans: every transaction status", (t) => {
  const cases: [string, OrderStatus | undefined][] = [
    ["settlement", "paid"],
    ["deny", "failed"],
    ["failure", "failed"],
    ["cancel", "cancelled"],
    ["expire", "expired"],
    // Refunds are recorded as refunds (refunds.ts), which turn the order refunded at full.
    ["refund", undefined],
    ["pending", undefined],
    ["authorize", undefined],
    ["partial_refund", undefined],
    ["chargeback", undefined],
    ["partial_chargeback", undefined],
    ["something_new", undefined],
    ["", undefined],
  ];
  for (const [status, expected] of cases) {
    t.is(statusFromMidtrans({ transaction_status: status }), expected, status);
    // fraud_status only matters for capture.
    t.is(statusFromMidtrans({ transaction_status: status, fraud_status: "challenge" }), expected, `${status}+challenge`);
  }
});

test("statusFromMidtrans: capture is paid only when accepted (or no fraud status)", (t) => {
  t.is(statusFromMidtrans({ transaction_status: "capture" }), "paid");
  t.is(statusFromMidtrans({ transaction_status: "capture", fraud_status: "accept" }), "paid");
  t.is(statusFromMidtrans({ transaction_status: "capture", fraud_status: "challenge" }), undefined);
  t.is(statusFromMidtrans({ transaction_status: "capture", fraud_status: "deny" }), undefined);
  t.is(statusFromMidtrans({ transaction_status: "settlement", fraud_status: "deny" }), "paid");
});

test("parseGrossAmount reads whole rupiah with up to two zero decimals", (t) => {
  t.is(parseGrossAmount("150000"), 150_000);
  t.is(parseGrossAmount("150000.00"), 150_000);
  t.is(parseGrossAmount("150000.0"), 150_000);
  t.is(parseGrossAmount("0.00"), 0);
  t.is(parseGrossAmount("9999999999999"), 9_999_999_999_999);
  for (const bad of ["150000.50", "150000.01", "10000000000000", "-1", "1e5", "", " 1", "1.000", "1.", ".5", "0x10", "１２"]) {
    t.is(parseGrossAmount(bad), undefined, bad);
  }
});

test("amountMatches compares to the rupiah", (t) => {
  t.true(amountMatches({ gross_amount: "50123.00" }, 50_123));
  t.false(amountMatches({ gross_amount: "50124.00" }, 50_123));
  t.false(amountMatches({ gross_amount: "50123.50" }, 50_123));
});

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

function signed(fields: Record<string, unknown> = {}) {
  const base = { order_id: "SO-ABCDEFGHJKLM", status_code: "200", gross_amount: "50123.00", transaction_status: "settlement", fraud_status: "accept", ...fields };
  return { ...base, signature_key: midtransSignature(base, KEY) };
}

test("parseMidtransNotification needs the five fields; a numeric gross_amount is read as text", (t) => {
  t.is(parseMidtransNotification(encode({ order_id: "x" })), undefined);
  t.is(parseMidtransNotification(new TextEncoder().encode("not json")), undefined);
  t.is(parseMidtransNotification(encode(null)), undefined);
  const parsed = parseMidtransNotification(encode({ ...signed(), gross_amount: 50123 }));
  t.is(parsed?.gross_amount, "50123");
  t.is(parsed?.fraud_status, "accept");
});

test("readNotification accepts a body signed with our server key, in any hex case", (t) => {
  const body = signed();
  t.like(readNotification("midtrans", encode(body), KEY), { order_id: "SO-ABCDEFGHJKLM", transaction_status: "settlement" });
  t.like(readNotification("midtrans", encode({ ...body, signature_key: body.signature_key.toUpperCase() }), KEY), { status_code: "200" });
});

test("readNotification: a bad or foreign signature is UNAUTHENTICATED", (t) => {
  const body = signed();
  for (const tampered of [
    { ...body, signature_key: "0".repeat(128) },
    { ...body, signature_key: "abc" },
    { ...body, gross_amount: "1.00" },
    { ...body, order_id: "SO-OTHERORDER1" },
  ]) {
    const error = t.throws(() => readNotification("midtrans", encode(tampered), KEY), { instanceOf: ConnectError });
    t.is(error.code, Code.Unauthenticated);
  }
  const otherKey = t.throws(() => readNotification("midtrans", encode(body), "another-key"), { instanceOf: ConnectError });
  t.is(otherKey.code, Code.Unauthenticated);
});

test("readNotification: an unknown provider or a body that is not a notification is INVALID_ARGUMENT", (t) => {
  const provider = t.throws(() => readNotification("xendit", encode(signed()), KEY), { instanceOf: ConnectError });
  t.is(provider.code, Code.InvalidArgument);
  t.regex(provider.message, /unknown provider xendit/);
  const shape = t.throws(() => readNotification("midtrans", encode({ hello: "world" }), KEY), { instanceOf: ConnectError });
  t.is(shape.code, Code.InvalidArgument);
  t.regex(shape.message, /not a Midtrans notification/);
});

test("readNotification: signed text that breaks the text rule names its field", (t) => {
  for (const field of ["transaction_status", "fraud_status"]) {
    const error = t.throws(() => readNotification("midtrans", encode(signed({ [field]: "settle\u0000ment" })), KEY), { instanceOf: ConnectError });
    t.is(error.code, Code.InvalidArgument);
    t.is(fieldViolations(error)[0]?.field, field);
  }
});

test("refusalLog: money for a cancelled order is an error asking for a refund; the rest a warning", (t) => {
  t.deepEqual(refusalLog("paid", "cancelled"), { level: "error", message: "payment received for a cancelled order: refund needed" });
  t.is(refusalLog("paid", "refunded").level, "warn");
  t.is(refusalLog("failed", "cancelled").level, "warn");
  t.is(refusalLog("expired", "paid").message, "notification refused by the status machine");
});

test("movesMoney: paying (settlement, capture accepted) and refunds wait for the gateway's status answer; the rest do not", (t) => {
  const cases: [string, string | undefined, boolean][] = [
    ["settlement", undefined, true],
    ["capture", "accept", true],
    ["capture", undefined, true],
    ["refund", undefined, true],
    ["partial_refund", undefined, true],
    ["capture", "challenge", false],
    ["pending", undefined, false],
    ["deny", undefined, false],
    ["failure", undefined, false],
    ["cancel", undefined, false],
    ["expire", undefined, false],
    ["authorize", undefined, false],
    ["something_new", undefined, false],
  ];
  for (const [status, fraud, expected] of cases) {
    t.is(movesMoney({ transaction_status: status, ...(fraud === undefined ? {} : { fraud_status: fraud }) }), expected, `${status}+${fraud}`);
  }
});

test("verifiedAnswer: a status answer counts only signed with our key and about the transaction asked about", (t) => {
  const answer = { ...signed({ transaction_status: "partial_refund" }), refund_amount: "1000.00", refunds: [{ refund_key: "rf-1", refund_amount: "1000.00" }] };
  t.like(verifiedAnswer(answer, "SO-ABCDEFGHJKLM", KEY), { transaction_status: "partial_refund", refund_amount: 1_000, refunds: [{ key: "rf-1", amount: 1_000 }] });
  const other = t.throws(() => verifiedAnswer(answer, "SO-OTHERORDER1", KEY), { instanceOf: ConnectError });
  t.is(other.code, Code.InvalidArgument);
  const forged = t.throws(() => verifiedAnswer(answer, "SO-ABCDEFGHJKLM", "another-key"), { instanceOf: ConnectError });
  t.is(forged.code, Code.Unauthenticated);
  const notAnAnswer = t.throws(() => verifiedAnswer({ status_code: "404", status_message: "Transaction doesn't exist." }, "SO-ABCDEFGHJKLM", KEY), { instanceOf: ConnectError });
  t.is(notAnAnswer.code, Code.InvalidArgument);
});
