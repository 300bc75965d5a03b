import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { guardedLookup, refusedRange, RefusedDestination } from "./ssrf.js";

export interface SendResult {
  /** succeeded | http_error | timeout | network_error | refused */
  result: "succeeded" | "http_error" | "timeout" | "network_error" | "refused";
  statusCode?: number;
  retryAfter?: string;
  latencyMs: number;
  error?: string;
  responseExcerpt?: string;
}

export interface SendOptions {
  allowHttp: boolean;
  allowPrivate: boolean;
  timeoutMs: number;
}

const EXCERPT_BYTES = 1_024;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The start of a receiver's answer as text that can always be stored and shown
 * (docs/webhooks.md#recording-attempts): UTF-8 as it is, and every byte that is not (invalid UTF-8, binary) or that a
 * text column or a page cannot hold (NUL and the other control characters but tab and
 * line breaks) escaped as `\xNN`. An answer with a NUL used to roll back the attempt's
 * record (PostgreSQL's text refuses 0x00), and the delivery was sent again forever.
 */
export function excerptText(bytes: Buffer): string {
  const data = bytes.subarray(0, EXCERPT_BYTES);
  let text = "";
  let i = 0;
  while (i < data.length) {
    const byte = data[i]!;
    const length = byte < 0x80 ? 1 : byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 0;
    const control = length === 1 && ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) || byte === 0x7f);
    if (length > 0 && !control && i + length <= data.length) {
      try {
        text += strictUtf8.decode(data.subarray(i, i + length));
        i += length;
        continue;
      } catch {
        // not a whole, valid sequence: escaped below, one byte at a time
      }
    }
    text += `\\x${byte.toString(16).padStart(2, "0")}`;
    i++;
  }
  return text;
}

/**
 * One POST of exactly `body`. No redirects are followed (a 3xx is a failure), the
 * whole exchange is bounded by `timeoutMs`, and destinations are checked at send time.
 */
export function sendWebhook(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = Date.now();
  const done = (result: Omit<SendResult, "latencyMs">): SendResult => ({ ...result, latencyMs: Date.now() - started });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done({ result: "refused", error: "not a valid URL" }));
  }
  if (target.protocol !== "https:" && !(target.protocol === "http:" && options.allowHttp)) {
    return Promise.resolve(done({ result: "refused", error: `${target.protocol} destinations are not allowed` }));
  }
  const literal = target.hostname.replace(/^\[|\]$/g, "");
  const range = isIP(literal) && !options.allowPrivate ? refusedRange(literal) : undefined;
  if (range !== undefined) {
    return Promise.resolve(done({ result: "refused", error: `${literal} is a private or reserved address (${range})` }));
  }
  const payload = Buffer.from(body, "utf8");
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, "latencyMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(result));
    };
    const request = client.request(
      target,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(payload.length) },
        lookup: guardedLookup(options.allowPrivate),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          finish({
            result: status >= 200 && status < 300 ? "succeeded" : "http_error",
            statusCode: status,
            // One value: Node keeps the first Retry-After of duplicates.
            retryAfter: response.headers["retry-after"],
            responseExcerpt: excerptText(Buffer.concat(chunks)),
          });
        });
        response.on("error", (error) => finish({ result: "network_error", statusCode: response.statusCode, error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error("timed out"));
      finish({ result: "timeout", error: `no complete answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    request.on("error", (error) => {
      if (error instanceof RefusedDestination) finish({ result: "refused", error: error.message });
      else finish({ result: "network_error", error: error.message });
    });
    request.end(payload);
  });
}
