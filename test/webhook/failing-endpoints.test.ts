// Failing endpoints on the whole stack (docs/webhooks.md#failing-endpoints): an endpoint answering 500 for
// WEBHOOK_DISABLE_AFTER=10s is disabled with its reason, audited as `system` and its
// store's owners are mailed (a local SMTP receiver); enabled again with "Resend failed
// since", every event that did not reach it is delivered once more with its webhook-id,
// including one that happened while it was off. Real PostgreSQL, NATS and receivers.
import test from "ava";
import { waitFor } from "../helpers/http.js";
import { startSmtpReceiver, type SmtpReceiver } from "../helpers/smtp-receiver.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, shopWithReceiver, type Receiver } from "../helpers/webhooks.js";

let stack: Stack;
let smtp: SmtpReceiver;
const receivers: Receiver[] = [];
test.before(async () => {
  smtp = await startSmtpReceiver();
  stack = await startStack({
    smtpUrl: smtp.url,
    webhooks: {
      bus: "nats",
      // Retries every 500 ms for longer than the bound, so the streak is all failures.
      env: { WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 60 }, () => "500ms").join(","), WEBHOOK_DISABLE_AFTER: "10s" },
      timeoutMs: 2_000,
      disableSweepEveryMs: 500,
    },
  });
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await stack?.close();
  await smtp?.close();
});

test("500 for 10 s: disabled, audited as system, owners mailed; enabled with Resend failed since, each missed event arrives once more", async (t) => {
  t.timeout(120_000);
  let healthy = false;
  const { shop, receiver, endpointId } = await shopWithReceiver(stack, () => (healthy ? { status: 200 } : { status: 500, body: "down" }), "Failing Store");
  receivers.push(receiver);
  const owner = "pemilik@failing.example";
  // Members once they accept: an invitation alone makes nobody an owner to be mailed.
  for (const [email, role] of [
    [owner, "owner"],
    ["dev@failing.example", "developer"],
  ] as const) {
    const { invitationToken } = await stack.accounts.inviteMember({ storeId: shop.storeId, email, role });
    await stack.accounts.acceptInvitation({ token: invitationToken, password: "a long enough password" });
  }

  const first = await createOrder(t, stack, shop, "bank_transfer");
  const second = await createOrder(t, stack, shop, "bank_transfer");
  const endpoint = async () => (await stack.webhooks!.listEndpoints({ storeId: shop.storeId })).endpoints.find((e) => e.id === endpointId)!;
  await waitFor(async () => !(await endpoint()).enabled, 60_000, 250);
  const disabled = await endpoint();
  t.regex(disabled.disabledReason, /^every attempt failed for 10 seconds, since \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  t.true(disabled.failedFrom !== "", "when it started failing is kept");
  const streakMs = Date.parse(disabled.updatedAt) - Date.parse(disabled.failedFrom);
  t.true(streakMs >= 10_000, `disabled after ${streakMs} ms of failures, not before the bound`);

  const audit = (await stack.auditLog(shop.storeId)).filter((entry) => entry.action === "endpoint.disabled");
  t.deepEqual(audit.map((entry) => [entry.actor, entry.target]), [["system", `endpoint:${endpointId}`]]);
  const disabledMails = () => smtp.messages.filter((mail) => /Webhook endpoint disabled/.test(mail.subject));
  await waitFor(async () => disabledMails().length > 0, 20_000, 100);
  const mails = disabledMails();
  t.deepEqual(mails.map((mail) => mail.envelope.to), [[owner]], "one mail, to the owner only");
  t.true(mails[0]!.text.includes(`/dashboard/stores/${shop.storeId}/webhooks/${endpointId}`), mails[0]!.text);

  // While it is off: an event that makes no delivery to it.
  const third = await createOrder(t, stack, shop, "bank_transfer");
  const before = receiver.received.length;
  healthy = true;
  const { endpoint: enabled } = await stack.webhooks!.updateEndpoint({ storeId: shop.storeId, endpointId, enabled: true, resendFailedSince: disabled.failedFrom });
  t.true(enabled!.enabled);
  await waitFor(async () => receiver.received.length - before >= 3, 60_000, 100).catch(async (error) => {
    const { deliveries } = await stack.webhooks!.listDeliveries({ storeId: shop.storeId, limit: 50 });
    t.log("endpoint now:", await endpoint(), "deliveries:", deliveries.map((d) => [d.kind, d.status, d.attempts.length, d.lastError]));
    throw error;
  });
  // Nothing more comes after the three.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const resent = receiver.received.slice(before);
  const orderIds = resent.map((entry) => JSON.parse(entry.body).data.order.id).sort();
  t.deepEqual(orderIds, [first.id, second.id, third.id].sort(), "each missed event once");
  const { events } = await stack.webhooks!.listEvents({ storeId: shop.storeId });
  t.deepEqual(resent.map((entry) => entry.headers["webhook-id"]).sort(), events.map((event) => event.id).sort(), "with their own webhook-ids");
  const actions = (await stack.auditLog(shop.storeId)).map((entry) => entry.action);
  t.true(actions.includes("endpoint.enabled") && actions.includes("events.replayed"));
  t.is((await endpoint()).failingSince, "", "the successes ended the streak");
});
