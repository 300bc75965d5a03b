// store-admin without any service: the help and a mistyped option as a user sees them, and
// `webhook listen` (docs/webhooks.md#receiving) checking deliveries signed by the webhook
// service's own signing code, as the real CLI child process (a mistyped option: run in this
// process, test/helpers/cli.ts).
import test, { type ExecutionContext } from "ava";
import { randomUUID } from "node:crypto";
import { generateSecret, signatureHeader } from "../../services/webhook/signing.js";
import { createCliRunner } from "../helpers/cli.js";
import { freePort, spawnProcess, type Spawned } from "../helpers/process.js";

const program = createCliRunner(() => ({}), { spawn: true });
const runner = createCliRunner(() => ({}));
const listeners: Spawned[] = [];
test.after.always(async () => {
  await program.stopAll();
  for (const child of listeners) await child.stop("SIGKILL");
});

test("--help, -h and help print the usage on stdout with exit 0; no command prints it on stderr with exit 1", async (t) => {
  // The program itself for --help and for no command at all; the other spellings in this process.
  const [help, none] = await Promise.all([program.run(["--help"]), program.run([])]);
  const answers = { "--help": help, "-h": await runner.run(["-h"]), help: await runner.run(["help"]) };
  for (const [asked, result] of Object.entries(answers)) {
    t.is(result.code, 0, asked);
    t.regex(result.stdout, /^usage: store-admin <command> \[options\]\n/);
    t.is(result.stderr, "");
  }
  const order = await runner.run(["order", "--help"]);
  t.is(order.code, 0);
  t.regex(order.stdout, /order refund --store ID --order ID\|SO-… \[--amount N\] --reason R \[--reference R\] \[--restock\]\n +without --amount: all that is left/);
  t.is(none.code, 1);
  t.is(none.stdout, "");
  t.regex(none.stderr, /^usage: store-admin/);
});

test("a mistyped option or a missing value is named in one line, exit 1", async (t) => {
  const typo = await runner.run(["order", "mark-paid", "--store", "s", "--oder", "o"]);
  t.is(typo.code, 1);
  t.is(typo.stdout, "");
  t.is(typo.stderr, 'store-admin: unknown option --oder for "order mark-paid" (see store-admin order --help)\n');
  const missing = await runner.run(["order", "mark-paid", "--store", "s", "--order"]);
  t.is(missing.code, 1);
  t.is(missing.stderr, 'store-admin: option --order needs a value for "order mark-paid" (see store-admin order --help)\n');
});

async function listen(t: ExecutionContext, args: string[], env: Record<string, string> = {}): Promise<{ child: Spawned; url: string }> {
  const port = await freePort();
  const child = spawnProcess(process.execPath, ["cli/store-admin.js", "webhook", "listen", "--port", String(port), ...args], env);
  listeners.push(child);
  const [, url] = await child.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\//);
  t.is(url, `http://127.0.0.1:${port}`);
  return { child, url: url! };
}

/** A delivery as the webhook service sends it: the same headers, signed by its signing code. */
function delivery(secret: string, body: string, id = `evt_${randomUUID()}`) {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    id,
    headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signatureHeader([secret], id, timestamp, body) },
  };
}

test("webhook listen: a delivery signed with the secret is verified (200), a tampered one or another secret's is not (400)", async (t) => {
  const secret = generateSecret();
  const { child, url } = await listen(t, ["--secret", secret]);
  const body = JSON.stringify({ type: "order.paid", timestamp: new Date().toISOString(), data: { order: { id: randomUUID(), status: "paid" } } });

  const good = delivery(secret, body);
  const answer = await fetch(`${url}/hooks`, { method: "POST", headers: good.headers, body });
  t.is(answer.status, 200);
  await child.waitFor(new RegExp(`verified order\\.paid ${good.id}\\n`));

  const tampered = delivery(secret, body);
  const refused = await fetch(`${url}/hooks`, { method: "POST", headers: tampered.headers, body: body.replace('"paid"', '"cancelled"') });
  t.is(refused.status, 400);
  t.regex(await refused.text(), /^NOT verified: /);

  const other = delivery(generateSecret(), body);
  t.is((await fetch(`${url}/hooks`, { method: "POST", headers: other.headers, body })).status, 400);
  const unsigned = await fetch(url, { method: "POST", body });
  t.is(unsigned.status, 400);

  await child.waitFor(/(NOT verified: .+\n[^]*){3}/);
  const lines = child.output().split("\n").filter((line) => /verified/.test(line));
  t.deepEqual(lines.map((line) => line.replace(/:.*/, ":")), [`verified order.paid ${good.id}`, "NOT verified:", "NOT verified:", "NOT verified:"]);
  t.is(await child.stop("SIGINT"), 0, "Ctrl-C ends it cleanly");
});

test("webhook listen: the secret may come from WEBHOOK_SECRET; without one it says so and exits 1", async (t) => {
  const secret = generateSecret();
  const { child, url } = await listen(t, [], { WEBHOOK_SECRET: secret });
  const body = JSON.stringify({ type: "webhook.test", timestamp: new Date().toISOString(), data: {} });
  const test1 = delivery(secret, body);
  t.is((await fetch(url, { method: "POST", headers: test1.headers, body })).status, 200);
  await child.waitFor(new RegExp(`verified webhook\\.test ${test1.id}`));

  const without = await runner.run(["webhook", "listen", "--port", String(await freePort())], { WEBHOOK_SECRET: "" });
  t.is(without.code, 1);
  t.regex(without.stderr, /^store-admin: give the endpoint's secret: --secret whsec_… or WEBHOOK_SECRET/);
});
