// The developer-settings commands of `store-admin` (docs/webhooks.md, docs/cli.md): several webhook
// endpoints with their own subscriptions, the event log and replay, test events,
// members and the audit log. The CLI run in this process (test/helpers/cli.ts; the first
// test: the real CLI as a child process), against every role on real PostgreSQL and NATS, with loopback receivers verified by `standardwebhooks`.
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { createCliRunner } from "../helpers/cli.js";
import { waitFor } from "../helpers/http.js";
import { startReceiver, type Received } from "../helpers/receiver.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { createOrder, newShop, settled, verify, type Receiver } from "../helpers/webhooks.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PATIENCE_MS = 30_000;

let stack: Stack;
const receivers: Receiver[] = [];
test.before(async () => {
  stack = await startStack({ webhooks: { bus: "nats", env: { WEBHOOK_RETRY_SCHEDULE: "200ms,200ms" } } });
});
test.after.always(async () => {
  await program.stopAll();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await stack?.close();
});

const cliEnv = () => ({
  CATALOG_ADDR: stack.catalogAddr,
  ORDER_ADDR: stack.orderAddr,
  WEBHOOK_ADDR: stack.webhookAddr!,
  PUBLIC_BASE_URL: stack.baseUrl,
});
const runner = createCliRunner(cliEnv);
const program = createCliRunner(cliEnv, { spawn: true });
const ok = (t: ExecutionContext, ...args: string[]) => runner.ok(t, args);
const fails = (t: ExecutionContext, pattern: RegExp, ...args: string[]) => runner.fails(t, args, pattern);

async function receiver() {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

const types = (received: Received[]) => received.map((entry) => JSON.parse(entry.body).type as string).sort();

test("two endpoints with different subscriptions each get exactly their events", async (t) => {
  // The program: each command a process of its own, calling the webhook and order services.
  const shop = await newShop(stack, "Two Endpoints");
  const paidOnly = await receiver();
  const everything = await receiver();
  const a = await program.ok(t, ["webhook", "add", "--store", shop.storeId, "--url", paidOnly.url, "--description", "fulfilment", "--events", "order.paid"]);
  const b = await program.ok(t, ["webhook", "add", "--store", shop.storeId, "--url", everything.url]);
  t.regex(a.id, UUID);
  t.deepEqual(a.events, ["order.paid"]);
  t.is(a.description, "fulfilment");
  t.is(b.events, "all");
  t.regex(a.secret, /^whsec_/);

  const listed = await program.ok(t, ["webhook", "list", "--store", shop.storeId]);
  t.deepEqual(listed.endpoints.map((e: { id: string }) => e.id).sort(), [a.id, b.id].sort());
  t.false(JSON.stringify(listed).includes(a.secret), "the list never shows a secret");

  const order = await createOrder(t, stack, shop, "bank_transfer");
  const paid = await program.ok(t, ["order", "mark-paid", "--store", shop.storeId, "--order", order.id]);
  t.is(paid.status, "paid");
  await waitFor(() => paidOnly.received.length >= 1 && everything.received.length >= 3, PATIENCE_MS);
  await settled(stack, [shop.storeId]);

  t.deepEqual(types(paidOnly.received), ["order.paid"]);
  t.deepEqual(types(everything.received), ["order.created", "order.paid", "orderUpdated"]);
  t.is(verify(a.secret, paidOnly.received[0]!).data.order.id, order.id);
  for (const entry of everything.received) t.is(verify(b.secret, entry).data.order.id, order.id);
  t.throws(() => verify(b.secret, paidOnly.received[0]!), undefined, "each endpoint has its own secret");
});

test("events made while the store had no endpoint are kept and replayed with their webhook-id", async (t) => {
  const shop = await newShop(stack, "Replay Store");
  const since = new Date(Date.now() - 1_000).toISOString();
  const order = await createOrder(t, stack, shop, "bank_transfer");
  await settled(stack, [shop.storeId]);

  const log = await ok(t, "webhook", "events", "--store", shop.storeId, "--order", order.id);
  t.deepEqual(log.events.map((e: { type: string }) => e.type), ["order.created"]);
  t.is(log.events[0].order_id, order.id);
  t.is(log.events[0].order_reference, order.payment_reference, "and names it as a person knows it");
  t.deepEqual(log.events[0].deliveries, [], "nobody was there to receive it");
  const byType = await ok(t, "webhook", "events", "--store", shop.storeId, "--type", "order.paid");
  t.deepEqual(byType.events, []);

  const hooks = await receiver();
  const endpoint = await ok(t, "webhook", "add", "--store", shop.storeId, "--url", hooks.url);
  const replay = await ok(t, "webhook", "replay", "--store", shop.storeId, "--endpoint", endpoint.id, "--since", since);
  t.is(replay.queued, 1);
  await waitFor(() => hooks.received.length === 1, PATIENCE_MS);
  t.is(hooks.received[0]!.headers["webhook-id"], log.events[0].id, "the stored event's id is the webhook-id");
  t.is(verify(endpoint.secret, hooks.received[0]!).data.order.id, order.id);

  await fails(t, /since/, "webhook", "replay", "--store", shop.storeId, "--endpoint", endpoint.id, "--since", "yesterday");
});

test("test events, disable and enable, rotate and remove one endpoint of several", async (t) => {
  const shop = await newShop(stack, "Endpoint Admin");
  const hooks = await receiver();
  const other = await receiver();
  const endpoint = await ok(t, "webhook", "add", "--store", shop.storeId, "--url", hooks.url);
  await ok(t, "webhook", "add", "--store", shop.storeId, "--url", other.url);

  const sent = await ok(t, "webhook", "test", "--store", shop.storeId, "--endpoint", endpoint.id);
  t.is(sent.event_type, "webhook.test");
  t.is(sent.kind, "test");
  await waitFor(() => hooks.received.length === 1, PATIENCE_MS);
  const body = verify(endpoint.secret, hooks.received[0]!);
  t.is(body.type, "webhook.test");
  t.deepEqual(body.data, { store_id: shop.storeId, endpoint_id: endpoint.id, livemode: true });
  t.false(Number.isNaN(Date.parse(body.timestamp)));
  t.is(other.received.length, 0, "a test event goes to the chosen endpoint only");

  const disabled = await ok(t, "webhook", "update", "--store", shop.storeId, "--endpoint", endpoint.id, "--enabled", "false");
  t.false(disabled.enabled);
  await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => other.received.length === 1, PATIENCE_MS);
  await settled(stack, [shop.storeId]);
  t.is(hooks.received.length, 1, "a disabled endpoint gets no new event");

  const enabled = await ok(t, "webhook", "update", "--store", shop.storeId, "--endpoint", endpoint.id, "--enabled", "true", "--events", "order.created");
  t.true(enabled.enabled);
  t.deepEqual(enabled.events, ["order.created"]);

  // With several endpoints, rotate must name one.
  await fails(t, /endpoint/, "webhook", "rotate", "--store", shop.storeId);
  const rotated = await ok(t, "webhook", "rotate", "--store", shop.storeId, "--endpoint", endpoint.id);
  t.not(rotated.secret, endpoint.secret);
  await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => hooks.received.length === 2, PATIENCE_MS);
  t.truthy(verify(rotated.secret, hooks.received[1]!));
  t.truthy(verify(endpoint.secret, hooks.received[1]!), "the old secret signs too during the overlap");

  const removed = await ok(t, "webhook", "remove", "--store", shop.storeId, "--endpoint", endpoint.id);
  t.true(removed.deleted);
  const left = await ok(t, "webhook", "list", "--store", shop.storeId);
  t.deepEqual(left.endpoints.map((e: { id: string }) => e.id).includes(endpoint.id), false);
  await fails(t, /not found/i, "webhook", "test", "--store", shop.storeId, "--endpoint", endpoint.id);
});

test("webhook update --enabled true --resend-since: what happened while it was off arrives, with its webhook-id", async (t) => {
  const shop = await newShop(stack, "Resend Since");
  const hooks = await receiver();
  const other = await receiver();
  const endpoint = await ok(t, "webhook", "add", "--store", shop.storeId, "--url", hooks.url);
  await ok(t, "webhook", "add", "--store", shop.storeId, "--url", other.url);
  await ok(t, "webhook", "update", "--store", shop.storeId, "--endpoint", endpoint.id, "--enabled", "false");
  const since = new Date().toISOString();
  await createOrder(t, stack, shop, "bank_transfer");
  await waitFor(() => other.received.length === 1, PATIENCE_MS);
  await settled(stack, [shop.storeId]);
  t.is(hooks.received.length, 0);
  await fails(t, /enable it/, "webhook", "update", "--store", shop.storeId, "--endpoint", endpoint.id, "--resend-since", since);
  await fails(t, /resend_failed_since/, "webhook", "update", "--store", shop.storeId, "--endpoint", endpoint.id, "--enabled", "true", "--resend-since", "yesterday");
  const enabled = await ok(t, "webhook", "update", "--store", shop.storeId, "--endpoint", endpoint.id, "--enabled", "true", "--resend-since", since);
  t.true(enabled.enabled);
  await waitFor(() => hooks.received.length === 1, PATIENCE_MS);
  t.is(hooks.received[0]!.headers["webhook-id"], other.received[0]!.headers["webhook-id"]);
  t.truthy(verify(endpoint.secret, hooks.received[0]!));
});

test("bad webhook input names the field and changes nothing", async (t) => {
  const shop = await newShop(stack, "Bad Webhook Input");
  const hooks = await receiver();
  await fails(t, /url/, "webhook", "add", "--store", shop.storeId, "--url", "ftp://example.com/hook");
  await fails(t, /events/, "webhook", "add", "--store", shop.storeId, "--url", hooks.url, "--events", "order.paid,order.shipped");
  await fails(t, /endpoint_id/, "webhook", "test", "--store", shop.storeId, "--endpoint", "not-a-uuid");
  await fails(t, /--enabled/, "webhook", "update", "--store", shop.storeId, "--endpoint", shop.storeId, "--enabled", "maybe");
  const listed = await ok(t, "webhook", "list", "--store", shop.storeId);
  t.deepEqual(listed.endpoints, []);
});

test("members: invite prints a one-time link; a removed member's session fails at once", async (t) => {
  const shop = await newShop(stack, "Members Store");
  // A developer: the store's last owner could not be removed.
  const invited = await ok(t, "user", "invite", "--store", shop.storeId, "--email", "Siti@Example.co.id", "--role", "developer");
  t.deepEqual(Object.keys(invited).sort(), ["email", "id", "invite_url", "role"]);
  t.is(invited.role, "developer");
  t.is(invited.email, "siti@example.co.id");
  const prefix = `${stack.baseUrl}/dashboard/invite/`;
  t.true(invited.invite_url.startsWith(prefix), invited.invite_url);
  const token = decodeURIComponent(invited.invite_url.slice(prefix.length));

  const before = await ok(t, "user", "list", "--store", shop.storeId);
  t.deepEqual(before.users, [], "an invitation is no member until it is accepted");

  const accepted = await stack.accounts.acceptInvitation({ token, password: "correct horse battery" });
  const session = accepted.session!.token;
  const resolved = await stack.accounts.resolveSession({ token: session });
  t.deepEqual(resolved.stores.map((s) => s.id), [shop.storeId]);
  const after = await ok(t, "user", "list", "--store", shop.storeId);
  t.is(after.users[0].status, "active");

  const removed = await ok(t, "user", "remove", "--store", shop.storeId, "--user", invited.id);
  t.true(removed.removed);
  const error = await t.throwsAsync(stack.accounts.resolveSession({ token: session }));
  t.is((error as ConnectError).code, Code.Unauthenticated);

  await fails(t, /email/, "user", "invite", "--store", shop.storeId, "--email", "not an email");
  await fails(t, /not found/i, "user", "remove", "--store", shop.storeId, "--user", invited.id);
});

test("roles: invite --role (owner by default), user role, and the last owner is kept", async (t) => {
  const shop = await newShop(stack, "Roles Store");
  const owner = await ok(t, "user", "invite", "--store", shop.storeId, "--email", "pemilik@example.com");
  t.is(owner.role, "owner");
  const support = await ok(t, "user", "invite", "--store", shop.storeId, "--email", "cs@example.com", "--role", "support");
  t.is(support.role, "support");
  // The invitation is mailed too (as an .eml file: the stack has no SMTP_URL), with the link the CLI printed.
  const mailed = async () => {
    const files = await readdir(stack.mailDir).catch(() => [] as string[]);
    return Promise.all(files.filter((name) => name.includes("invitation")).map((name) => readFile(path.join(stack.mailDir, name), "utf8")));
  };
  await waitFor(async () => (await mailed()).some((text) => text.includes("To: cs@example.com")), PATIENCE_MS, 100);
  const mail = (await mailed()).find((text) => text.includes("To: cs@example.com"))!;
  t.true(unfold(mail).includes(support.invite_url), "the mail carries the printed invite_url");
  // Members once they accept.
  for (const { invite_url } of [owner, support]) {
    await stack.accounts.acceptInvitation({ token: decodeURIComponent(invite_url.slice(invite_url.lastIndexOf("/") + 1)), password: "correct horse battery" });
  }
  await fails(t, /--role must be owner, developer, support, viewer/, "user", "invite", "--store", shop.storeId, "--email", "x@example.com", "--role", "admin");
  await fails(t, /--role is required/, "user", "role", "--store", shop.storeId, "--user", support.id);

  const changed = await ok(t, "user", "role", "--store", shop.storeId, "--user", support.id, "--role", "viewer");
  t.like(changed, { id: support.id, email: "cs@example.com", role: "viewer" });
  const listed = await ok(t, "user", "list", "--store", shop.storeId);
  t.deepEqual(listed.users.map((u: { email: string; role: string }) => [u.email, u.role]), [
    ["cs@example.com", "viewer"],
    ["pemilik@example.com", "owner"],
  ]);

  await fails(t, /at least one owner/, "user", "role", "--store", shop.storeId, "--user", owner.id, "--role", "developer");
  await fails(t, /at least one owner/, "user", "remove", "--store", shop.storeId, "--user", owner.id);

  const { entries } = await ok(t, "audit", "--store", shop.storeId);
  t.deepEqual(
    entries.filter((e: { action: string }) => e.action.startsWith("member.")).map((e: { actor: string; action: string; target: string }) => [e.actor, e.action, e.target]),
    [
      ["operator", "member.role_changed", "member:cs@example.com"],
      ["cs@example.com", "member.signed_in", "member:cs@example.com"],
      ["pemilik@example.com", "member.signed_in", "member:pemilik@example.com"],
      ["operator", "member.invited", "member:cs@example.com"],
      ["operator", "member.invited", "member:pemilik@example.com"],
    ],
    "each change once, written by the catalog; refusals leave nothing",
  );
});

test("audit lists every change made with the CLI, as the operator, newest first", async (t) => {
  const shop = await newShop(stack, "Audited Store");
  const hooks = await receiver();
  const key = await ok(t, "key", "create", "--store", shop.storeId, "--name", "erp");
  await ok(t, "key", "revoke", "--store", shop.storeId, "--key", key.id);
  const endpoint = await ok(t, "webhook", "add", "--store", shop.storeId, "--url", hooks.url);
  await ok(t, "webhook", "update", "--store", shop.storeId, "--endpoint", endpoint.id, "--description", "ERP");
  await ok(t, "webhook", "rotate", "--store", shop.storeId, "--endpoint", endpoint.id);
  const order = await createOrder(t, stack, shop, "bank_transfer");
  await ok(t, "order", "cancel", "--store", shop.storeId, "--order", order.id);
  const invited = await ok(t, "user", "invite", "--store", shop.storeId, "--email", "ops@example.com");
  await ok(t, "webhook", "remove", "--store", shop.storeId, "--endpoint", endpoint.id);
  const product = await ok(t, "product", "create", "--store", shop.storeId, "--title", "Topi", "--price", "50000");
  const bundle = await ok(t, "bundle", "create", "--store", shop.storeId, "--title", "Paket Topi", "--price", "90000", "--product", product.id, "--product", shop.productId);
  await ok(t, "store", "set-plan", "--store", shop.storeId, "--plan", "scale");

  const { entries } = await ok(t, "audit", "--store", shop.storeId);
  t.deepEqual(
    entries.map((e: { action: string; target: string }) => [e.action, e.target]),
    [
      ["store.plan_changed", `store:${shop.storeId}`],
      ["bundle.created", `bundle:${bundle.id}`],
      ["product.created", `product:${product.id}`],
      ["endpoint.deleted", `endpoint:${endpoint.id}`],
      ["member.invited", `member:${invited.email}`],
      ["order.cancelled", `order:${order.id}`],
      ["endpoint.secret_rotated", `endpoint:${endpoint.id}`],
      ["endpoint.updated", `endpoint:${endpoint.id}`],
      ["endpoint.created", `endpoint:${endpoint.id}`],
      ["key.revoked", `key:${key.id}`],
      ["key.created", `key:${key.id}`],
      // The shop as the test set it up through the same RPCs, as the operator: the
      // catalog audits the store, its own key and its two products.
      ["product.created", `product:${shop.freeProductId}`],
      ["product.created", `product:${shop.productId}`],
      ["key.created", entries.at(-2).target],
      ["store.created", `store:${shop.storeId}`],
    ],
  );
  t.not(entries.at(-2).target, `key:${key.id}`);
  t.true(entries.every((e: { actor: string; at: string }) => e.actor === "operator" && !Number.isNaN(Date.parse(e.at))));
  // A command that failed changed nothing, so it is not in the log.
  await fails(t, /not found/i, "order", "cancel", "--store", shop.storeId, "--order", randomUUID());
  const again = await ok(t, "audit", "--store", shop.storeId);
  t.is(again.entries.length, entries.length);

  // A store made with the CLI: its log starts with its creation, by the operator.
  const made = await ok(t, "store", "create", "--name", "Toko Baru CLI");
  const fresh = await ok(t, "audit", "--store", made.id);
  t.deepEqual(fresh.entries.map((e: { actor: string; action: string; target: string }) => [e.actor, e.action, e.target]), [["operator", "store.created", `store:${made.id}`]]);
});

/** A mail's text with quoted-printable soft line breaks joined, so a long link reads whole. */
function unfold(eml: string): string {
  return eml.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
}
