// Outgoing mail (docs/team.md#mail): invitations, password resets, "endpoint disabled".
//
// `send` hands a mail over and returns at once; it never throws and never waits for a
// mail server, so a server that is away delays mail and never fails the action that
// sent it. Delivery runs in the background with retries at growing delays.
//
// With SMTP_URL the mail goes over SMTP (nodemailer). Without it each mail becomes an
// RFC 822 `.eml` file under DATA_DIR/mail/ and its path is logged, so `npm start` on a
// bare machine still lets someone open an invitation link.
//
// Logs name the kind of mail and its recipient, never the subject or body: bodies carry
// one-time sign-in and reset links.
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";
import type { Logger } from "./logger.js";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** What the mail is, for logs: "invitation", "password-reset", "endpoint-disabled". */
  kind: string;
  /**
   * The Message-ID header, `<…@…>` (unset: nodemailer makes a random one). A caller that
   * may send the same mail twice gives the same id each time, so mail clients show one.
   */
  messageId?: string;
}

export interface Mailer {
  /** Queues the mail and returns; delivery and its retries happen in the background. */
  send(mail: OutgoingMail): void;
  /**
   * One attempt, awaited: resolves once the server accepted the mail (or its file is
   * written), throws when it did not. No retries and no logging: the caller keeps its
   * own record of what is due and says what happened (the buyer mail worker).
   */
  deliver(mail: OutgoingMail): Promise<Record<string, unknown>>;
  /** Resolves once every queued mail is delivered or given up. */
  flush(): Promise<void>;
  /** Stops waiting retries (each such mail is logged as not delivered), lets attempts under way finish, and closes the transport. */
  close(): Promise<void>;
}

export interface MailerOptions {
  /** SMTP_URL: `smtp://user:pass@host:587` or `smtps://…`; unset → `.eml` files. */
  smtpUrl?: string | undefined;
  /** MAIL_FROM */
  from: string;
  /** DATA_DIR: files go to `<dataDir>/mail/`. */
  dataDir: string;
  logger: Logger;
  /** Waits before the 2nd, 3rd, … attempt; after the last one the mail is given up. */
  retryDelaysMs?: readonly number[];
}

/** 5 s, 30 s, 2 min, 10 min, 20 min, 30 min: the last attempt about an hour after the first. */
export const MAIL_RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_200_000, 1_800_000];

/** How one mail leaves the process; what it returns is added to the success log line. */
interface Delivery {
  deliver(mail: OutgoingMail): Promise<Record<string, unknown>>;
  delivered: string;
  close(): void;
}

export function createMailer(options: MailerOptions): Mailer {
  const { from, logger } = options;
  const delays = options.retryDelaysMs ?? MAIL_RETRY_DELAYS_MS;
  const delivery = options.smtpUrl ? smtpDelivery(options.smtpUrl, from, logger) : fileDelivery(options.dataDir, from, logger);
  const queued = new Set<Promise<void>>();
  const sleepers = new Set<() => void>();
  let closed = false;

  /** Resolves true after `ms`, or false at once when the mailer closes. */
  function sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const cancel = () => finish(false);
      const timer = setTimeout(() => finish(true), ms);
      function finish(waited: boolean) {
        clearTimeout(timer);
        sleepers.delete(cancel);
        resolve(waited);
      }
      sleepers.add(cancel);
    });
  }

  async function run(mail: OutgoingMail): Promise<void> {
    const about = { kind: mail.kind, to: mail.to };
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await delivery.deliver(mail);
        logger.info({ ...about, attempts: attempt, ...result }, delivery.delivered);
        return;
      } catch (thrown) {
        const error = describeMailFailure(thrown);
        const delay = delays[attempt - 1];
        const reason = isPermanent(thrown) ? "refused for good" : delay === undefined ? "out of retries" : closed ? "mailer closed" : undefined;
        if (reason || delay === undefined) {
          logger.error({ ...about, attempts: attempt, reason, error }, "mail not delivered");
          return;
        }
        logger.warn({ ...about, attempt, retryInMs: delay, error }, "mail delivery failed; will retry");
        if (!(await sleep(delay))) {
          logger.error({ ...about, attempts: attempt, reason: "mailer closed", error }, "mail not delivered");
          return;
        }
      }
    }
  }

  return {
    send(mail) {
      if (closed) {
        logger.error({ kind: mail.kind, to: mail.to, reason: "mailer closed" }, "mail not delivered");
        return;
      }
      const job: Promise<void> = Promise.resolve()
        .then(() => run(mail))
        .catch((thrown) => logger.error({ kind: mail.kind, to: mail.to, error: describeMailFailure(thrown) }, "mail not delivered"))
        .finally(() => queued.delete(job));
      queued.add(job);
    },
    deliver(mail) {
      if (closed) return Promise.reject(new Error("mailer closed"));
      return delivery.deliver(mail);
    },
    async flush() {
      while (queued.size > 0) await Promise.all(queued);
    },
    async close() {
      closed = true;
      for (const cancel of [...sleepers]) cancel();
      while (queued.size > 0) await Promise.all(queued);
      delivery.close();
    },
  };
}

function smtpDelivery(smtpUrl: string, from: string, logger: Logger): Delivery {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    // A server that is away should cost one short wait per attempt, not nodemailer's
    // default minutes; the retries give it time to come back.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    dnsTimeout: 10_000,
  });
  const server = new URL(smtpUrl);
  // Never the URL itself: it may carry the password.
  logger.info({ transport: "smtp", host: server.hostname, port: server.port || null }, "mail goes over SMTP");
  return {
    async deliver(mail) {
      const info = await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, messageId: mail.messageId });
      return { messageId: info.messageId };
    },
    delivered: "mail sent",
    close: () => transport.close(),
  };
}

function fileDelivery(dataDir: string, from: string, logger: Logger): Delivery {
  const dir = path.resolve(dataDir, "mail");
  // The stream transport builds the whole message (headers, MIME parts, Message-ID,
  // Date) exactly as the SMTP transport would send it, so a mail client opens the file.
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  logger.info({ transport: "files", dir }, "mail is written to files (SMTP_URL unset)");
  return {
    async deliver(mail) {
      const info = await composer.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, messageId: mail.messageId });
      // The links inside are one-time credentials: only this user may read the files.
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = path.join(dir, mailFileName(mail.kind));
      await writeFile(file, info.message as Buffer, { mode: 0o600, flag: "wx" });
      return { path: file };
    },
    delivered: "mail written",
    close: () => composer.close(),
  };
}

/** "2026-11-20T09-41-07-123Z-invitation-3fa9c1.eml": sorts by time, safe on every file system. */
function mailFileName(kind: string): string {
  const time = new Date().toISOString().replace(/[:.]/g, "-");
  const label = kind.toLowerCase().replace(/[^a-z0-9-]+/g, "-").slice(0, 40) || "mail";
  return `${time}-${label}-${randomBytes(3).toString("hex")}.eml`;
}

/**
 * An address as a log line may show it when it is a customer's: "b***@example.co.id".
 * The domain stays (a mail server's trouble is often one domain's); the person does not.
 */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf("@");
  if (at < 0) return "***";
  return `${address.slice(0, Math.min(1, at))}***${address.slice(at)}`;
}

/** A 5xx answer (unknown recipient, refused sender, bad credentials) will not change on retry. */
export function isPermanent(error: unknown): boolean {
  const { responseCode, code } = error as { responseCode?: number; code?: string };
  if (typeof responseCode === "number") return responseCode >= 500 && responseCode < 600;
  return code === "EENVELOPE";
}

/**
 * What a log line may say about a failure: codes and the server's reply, never the mail.
 * Under `error`, not pino's `err`, whose serializer is made for Error objects.
 */
export function describeMailFailure(error: unknown): Record<string, unknown> {
  const { code, responseCode, message } = error as { code?: unknown; responseCode?: unknown; message?: unknown };
  return { code, responseCode, message: typeof message === "string" ? message : String(error) };
}
