// `store-admin webhook listen` (docs/webhooks.md#receiving): a receiver on this machine that
// checks each delivery's Standard Webhooks signature with the receivers' own library
// (`standardwebhooks`, not our signing code) and says so in one line per request, so a
// newcomer sees "verified" without writing a receiver.
import http from "node:http";
import { Webhook } from "standardwebhooks";

/** A receiver's body is an event: more than this is no delivery of ours. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface WebhookListener {
  url: string;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1:`port` (0: any free port); `print` gets one line per request:
 * "verified <type> <webhook-id>", answered 200, or "NOT verified: <reason>", answered 400.
 * Throws at once for a secret the library cannot read.
 */
export async function listenForWebhooks(options: { port: number; secret: string; print: (line: string) => void }): Promise<WebhookListener> {
  const verifier = new Webhook(options.secret);
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on("end", () => {
      const answer = (status: number, line: string) => {
        options.print(line);
        response.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(line + "\n");
      };
      if (size > MAX_BODY_BYTES) return answer(400, `NOT verified: the body is over ${MAX_BODY_BYTES} bytes`);
      let event: unknown;
      try {
        // The raw body as sent: the signature covers its exact bytes, not a re-serialised parse.
        event = verifier.verify(Buffer.concat(chunks).toString("utf8"), headersOf(request));
      } catch (error) {
        return answer(400, `NOT verified: ${(error as Error).message}`);
      }
      const type = typeof event === "object" && event !== null && "type" in event ? String(event.type) : "(no type)";
      answer(200, `verified ${type} ${request.headers["webhook-id"] as string}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The request's headers as the library reads them: one string per name. */
function headersOf(request: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}
