import { EventEmitter, once } from "node:events";
import { simpleParser, type AddressObject } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** The From and To headers as written ("Name <a@b>"). */
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** The SMTP envelope: MAIL FROM and RCPT TO addresses. */
  envelope: { from: string; to: string[] };
  /** The user that authenticated, if any. */
  user?: string;
  raw: string;
}

export interface SmtpReceiver {
  /** `smtp://user:pass@127.0.0.1:<port>` (credentials only when asked for). */
  url: string;
  port: number;
  /** Every accepted mail, in order. */
  messages: ReceivedMail[];
  /** While true every transaction is answered `451` at MAIL FROM (a server that says "later"). */
  refuse: boolean;
  /** Transactions refused so far. */
  refused: number;
  /** Resolves once `count` mails in all have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Stops listening (connections are refused) to simulate an outage… */
  stop(): Promise<void>;
  /** …and listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on a loopback port that records what it receives: enough SMTP for
 * nodemailer (EHLO, AUTH PLAIN/LOGIN, MAIL FROM, RCPT TO, DATA, QUIT), plain text
 * without STARTTLS. With `auth`, only those credentials are accepted.
 */
export async function startSmtpReceiver(options: { auth?: { user: string; pass: string } } = {}): Promise<SmtpReceiver> {
  const arrivals = new EventEmitter();
  let server: SMTPServer | undefined;
  let port = 0;

  const receiver: SmtpReceiver = {
    url: "",
    port: 0,
    messages: [],
    refuse: false,
    refused: 0,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = AbortSignal.timeout(timeoutMs);
      while (receiver.messages.length < count) {
        try {
          await once(arrivals, "mail", { signal: deadline });
        } catch {
          throw new Error(`expected ${count} mail(s) within ${timeoutMs} ms, got ${receiver.messages.length}`);
        }
      }
    },
    async stop() {
      const running = server;
      server = undefined;
      if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
    },
    async start() {
      if (server) return;
      server = createServer();
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.server.once("error", reject);
        listening.listen(port, "127.0.0.1", () => resolve());
      });
      port = (listening.server.address() as { port: number }).port;
    },
    close: () => receiver.stop(),
  };

  function createServer(): SMTPServer {
    return new SMTPServer({
      logger: false,
      disabledCommands: ["STARTTLS"],
      authOptional: !options.auth,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        const wanted = options.auth;
        if (wanted && (auth.username !== wanted.user || auth.password !== wanted.pass)) {
          callback(new Error("535 5.7.8 authentication failed"));
          return;
        }
        callback(null, { user: auth.username });
      },
      onMailFrom(_address, _session, callback) {
        if (receiver.refuse) {
          receiver.refused++;
          callback(Object.assign(new Error("4.3.2 try again later"), { responseCode: 451 }));
          return;
        }
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks);
          simpleParser(raw).then(
            (parsed) => {
              receiver.messages.push({
                from: addressText(parsed.from),
                to: addressText(parsed.to),
                subject: parsed.subject ?? "",
                text: parsed.text ?? "",
                ...(typeof parsed.html === "string" ? { html: parsed.html } : {}),
                envelope: {
                  from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
                  to: session.envelope.rcptTo.map((r) => r.address),
                },
                ...(typeof session.user === "string" ? { user: session.user } : {}),
                raw: raw.toString("utf8"),
              });
              callback();
              arrivals.emit("mail");
            },
            (error: Error) => callback(error),
          );
        });
      },
    });
  }

  await receiver.start();
  receiver.port = port;
  const credentials = options.auth ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@` : "";
  receiver.url = `smtp://${credentials}127.0.0.1:${port}`;
  return receiver;
}

function addressText(address: AddressObject | AddressObject[] | undefined): string {
  if (!address) return "";
  return (Array.isArray(address) ? address : [address]).map((a) => a.text).join(", ");
}
