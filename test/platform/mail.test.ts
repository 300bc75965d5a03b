// docs/team.md#mail: mail goes over SMTP to SMTP_URL, or without it into DATA_DIR/mail as
// .eml files; a mail server that is away delays mail and never fails the action.
import test from "ava";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { simpleParser } from "mailparser";
import { createMailer, maskAddress, type OutgoingMail } from "../../platform/mail.js";
import { capturingLogger } from "../helpers/logs.js";
import { startSmtpReceiver } from "../helpers/smtp-receiver.js";

const FROM = "Store Order API <no-reply@shop.test>";
// What a body carries and a log must never show: a one-time link.
const SECRET_LINK = "http://localhost:8080/dashboard/invitations/accept?token=tok_one_time_4f1c9a";

function invitation(to = "ana@example.com"): OutgoingMail {
  return {
    kind: "invitation",
    to,
    subject: "You are invited to Toko Ana",
    text: `Open ${SECRET_LINK} within 72 hours.`,
    html: `<p>Open <a href="${SECRET_LINK}">the invitation</a> within 72 hours.</p>`,
  };
}

function assertNoBodyInLogs(t: { false(value: boolean, message?: string): void }, lines: object[]) {
  const text = JSON.stringify(lines);
  t.false(text.includes("tok_one_time_4f1c9a"), "no log line carries the link");
  t.false(text.includes("within 72 hours"), "no log line carries the body");
}

async function tempDir(t: { teardown(fn: () => Promise<void>): void }) {
  const dir = await mkdtemp(path.join(tmpdir(), "mail-test-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A mailer sending to `smtpUrl`, its log lines captured in `lines`. */
async function smtpMailer(t: { teardown(fn: () => Promise<void>): void }, smtpUrl: string, lines: object[], retryDelaysMs?: number[]) {
  return createMailer({ smtpUrl, from: FROM, dataDir: await tempDir(t), logger: capturingLogger(lines, { labels: true }), retryDelaysMs });
}

test("with SMTP_URL a mail reaches the SMTP server with its From, To, Subject and body", async (t) => {
  const receiver = await startSmtpReceiver({ auth: { user: "mailer", pass: "s3cret" } });
  t.teardown(() => receiver.close());
  const lines: Record<string, any>[] = [];
  const mailer = await smtpMailer(t, receiver.url, lines);

  mailer.send(invitation());
  await mailer.flush();
  await mailer.close();

  t.is(receiver.messages.length, 1);
  const [mail] = receiver.messages;
  t.is(mail!.from, '"Store Order API" <no-reply@shop.test>');
  t.is(mail!.to, "ana@example.com");
  t.deepEqual(mail!.envelope, { from: "no-reply@shop.test", to: ["ana@example.com"] });
  t.is(mail!.user, "mailer", "the URL's credentials were used");
  t.is(mail!.subject, "You are invited to Toko Ana");
  t.is(mail!.text.trim(), `Open ${SECRET_LINK} within 72 hours.`);
  t.true(mail!.html!.includes(`href="${SECRET_LINK}"`));
  t.regex(mail!.raw, /^Message-ID: <.+@shop\.test>\r?$/m);

  const sent = lines.find((l) => l.msg === "mail sent");
  t.like(sent, { level: "info", kind: "invitation", to: "ana@example.com", attempts: 1 });
  t.false(JSON.stringify(lines).includes("s3cret"), "the SMTP password is never logged");
  assertNoBodyInLogs(t, lines);
});

test("without SMTP_URL each mail is an .eml file under DATA_DIR/mail that parses back, and its path is logged", async (t) => {
  const dataDir = await tempDir(t);
  const lines: Record<string, any>[] = [];
  const mailer = createMailer({ from: FROM, dataDir, logger: capturingLogger(lines, { labels: true }) });

  mailer.send(invitation());
  mailer.send({ ...invitation("budi@example.com"), kind: "password-reset", subject: "Reset your password", html: undefined });
  await mailer.flush();
  await mailer.close();

  const dir = path.join(dataDir, "mail");
  const files = (await readdir(dir)).sort();
  t.is(files.length, 2);
  for (const file of files) t.regex(file, /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[a-z0-9-]+-[0-9a-f]{6}\.eml$/);
  t.is((await stat(dir)).mode & 0o777, 0o700, "only the service's user can read the links");

  const written = lines.filter((l) => l.msg === "mail written");
  t.is(written.length, 2);
  const invitationLine = written.find((l) => l.kind === "invitation")!;
  t.like(invitationLine, { level: "info", to: "ana@example.com" });
  t.true(path.isAbsolute(invitationLine.path));
  t.is(path.dirname(invitationLine.path), path.resolve(dir));
  t.is((await stat(invitationLine.path)).mode & 0o777, 0o600);

  const parsed = await simpleParser(await readFile(invitationLine.path));
  t.deepEqual(parsed.from?.value, [{ name: "Store Order API", address: "no-reply@shop.test" }]);
  t.is((Array.isArray(parsed.to) ? parsed.to[0] : parsed.to)?.text, "ana@example.com");
  t.is(parsed.subject, "You are invited to Toko Ana");
  t.is(parsed.text?.trim(), `Open ${SECRET_LINK} within 72 hours.`);
  t.true(String(parsed.html).includes(`href="${SECRET_LINK}"`));
  t.truthy(parsed.messageId);
  t.truthy(parsed.date);

  const reset = await simpleParser(await readFile(written.find((l) => l.kind === "password-reset")!.path));
  t.is(reset.subject, "Reset your password");
  t.is(reset.html, false, "a text-only mail stays text-only");
  assertNoBodyInLogs(t, lines);
});

test("a server that refuses for a while: send returns at once, warns on each failure, and the mail arrives once it accepts", async (t) => {
  const receiver = await startSmtpReceiver();
  t.teardown(() => receiver.close());
  receiver.refuse = true;
  const lines: Record<string, any>[] = [];
  const mailer = await smtpMailer(t, receiver.url, lines, Array.from({ length: 10 }, () => 50));
  t.teardown(() => mailer.close());

  const started = performance.now();
  mailer.send(invitation());
  t.true(performance.now() - started < 20, "send does not wait for the server");

  while (receiver.refused < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  receiver.refuse = false;
  await receiver.waitFor(1);
  await mailer.flush();

  t.is(receiver.messages.length, 1, "delivered exactly once");
  t.is(receiver.messages[0]!.subject, "You are invited to Toko Ana");
  const warnings = lines.filter((l) => l.level === "warn");
  t.true(warnings.length >= 2);
  for (const warning of warnings) {
    t.like(warning, { msg: "mail delivery failed; will retry", kind: "invitation", to: "ana@example.com", retryInMs: 50, error: { responseCode: 451 } });
  }
  t.like(lines.find((l) => l.msg === "mail sent"), { level: "info", attempts: warnings.length + 1 });
  t.false(lines.some((l) => l.level === "error"));
  assertNoBodyInLogs(t, lines);
});

test("a server that is down: the mail waits and is delivered when the server is back", async (t) => {
  const receiver = await startSmtpReceiver();
  t.teardown(() => receiver.close());
  await receiver.stop();
  const lines: Record<string, any>[] = [];
  const mailer = await smtpMailer(t, receiver.url, lines, Array.from({ length: 10 }, () => 100));
  t.teardown(() => mailer.close());

  mailer.send(invitation());
  while (!lines.some((l) => l.level === "warn")) await new Promise((resolve) => setTimeout(resolve, 10));
  await receiver.start();
  await receiver.waitFor(1);
  await mailer.flush();

  t.is(receiver.messages.length, 1);
  const warning = lines.find((l) => l.level === "warn")!;
  t.like(warning, { kind: "invitation", to: "ana@example.com", attempt: 1, error: { code: "ESOCKET" } });
  t.like(lines.find((l) => l.msg === "mail sent"), { level: "info", to: "ana@example.com" });
  assertNoBodyInLogs(t, lines);
});

test("after the last retry the mail is given up with one error line; a 5xx refusal is given up at once", async (t) => {
  const receiver = await startSmtpReceiver();
  t.teardown(() => receiver.close());
  receiver.refuse = true;
  const lines: Record<string, any>[] = [];
  const mailer = await smtpMailer(t, receiver.url, lines, [20, 20]);

  mailer.send(invitation());
  await mailer.flush();
  t.is(receiver.refused, 3, "the first attempt and two retries");
  t.is(lines.filter((l) => l.level === "warn").length, 2);
  const errors = lines.filter((l) => l.level === "error");
  t.is(errors.length, 1);
  t.like(errors[0], { msg: "mail not delivered", kind: "invitation", to: "ana@example.com", attempts: 3, reason: "out of retries" });

  // A recipient the server will never take: no retries.
  receiver.refuse = false;
  lines.length = 0;
  mailer.send(invitation("nobody@"));
  await mailer.flush();
  await mailer.close();
  t.is(lines.filter((l) => l.level === "warn").length, 0);
  t.like(lines.find((l) => l.level === "error"), { msg: "mail not delivered", to: "nobody@", attempts: 1, reason: "refused for good", error: { responseCode: 501 } });
  assertNoBodyInLogs(t, lines);
});

test("close stops waiting retries, logging each mail it gives up, and later sends are refused without throwing", async (t) => {
  const receiver = await startSmtpReceiver();
  t.teardown(() => receiver.close());
  receiver.refuse = true;
  const lines: Record<string, any>[] = [];
  const mailer = await smtpMailer(t, receiver.url, lines, [60_000]);

  mailer.send(invitation());
  while (!lines.some((l) => l.level === "warn")) await new Promise((resolve) => setTimeout(resolve, 10));
  const started = performance.now();
  await mailer.close();
  t.true(performance.now() - started < 1_000, "close does not wait out a retry delay");
  t.like(lines.find((l) => l.level === "error"), { msg: "mail not delivered", reason: "mailer closed", to: "ana@example.com" });

  t.notThrows(() => mailer.send(invitation("budi@example.com")));
  t.like(lines.at(-1), { level: "error", msg: "mail not delivered", reason: "mailer closed", to: "budi@example.com" });
  assertNoBodyInLogs(t, lines);
});

test("deliver makes one attempt and waits for it: it throws while the server says later and sends nothing twice; the given Message-ID goes out, over SMTP and in the .eml file", async (t) => {
  const receiver = await startSmtpReceiver();
  t.teardown(() => receiver.close());
  const lines: Record<string, any>[] = [];
  const mailer = await smtpMailer(t, receiver.url, lines, [10, 10, 10]);
  const mail = { ...invitation(), kind: "buyer-received", messageId: "<buyer.received.0b6f6b0e@shop.test>" };

  receiver.refuse = true;
  const error = await t.throwsAsync(mailer.deliver(mail));
  t.is((error as { responseCode?: number }).responseCode, 451);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.is(receiver.refused, 1, "one attempt, no retry behind the caller's back");

  receiver.refuse = false;
  const result = await mailer.deliver(mail);
  t.is(result.messageId, "<buyer.received.0b6f6b0e@shop.test>");
  t.is(receiver.messages.length, 1);
  t.regex(receiver.messages[0]!.raw, /^Message-ID: <buyer\.received\.0b6f6b0e@shop\.test>\r?$/m);
  t.deepEqual(lines.filter((line) => line.msg !== "mail goes over SMTP"), [], "the caller logs what happened, with what it may say about the recipient");
  await mailer.close();

  const dataDir = await tempDir(t);
  const files = createMailer({ from: FROM, dataDir, logger: capturingLogger([]) });
  const written = await files.deliver(mail);
  t.regex(await readFile(String(written.path), "utf8"), /^Message-ID: <buyer\.received\.0b6f6b0e@shop\.test>\r?$/m);
  await files.close();
});

test("a customer's address is logged masked: the first letter and the domain", (t) => {
  t.is(maskAddress("budi.santoso@example.co.id"), "b***@example.co.id");
  t.is(maskAddress("not an address"), "***");
});
