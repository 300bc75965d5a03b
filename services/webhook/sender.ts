import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { guardedLookup, isPrivateAddress, RefusedDestination } from "./ssrf.js";

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

/**
 * The start of a receiver's answer as text that can always be stored and shown: bytes
 * that are not UTF-8 become U+FFFD, and so does NUL, which PostgreSQL's text refuses
 * (an answer with one used to roll back the attempt's record and resend it forever).
 */
export function excerptText(bytes: Buffer): string {
  return bytes.subarray(0, EXCERPT_BYTES).toString("utf8").replaceAll("\u0000", "\ufffd");
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
  if (isIP(literal) && !options.allowPrivate && isPrivateAddress(literal)) {
    return Promise.resolve(done({ result: "refused", error: `${literal} is a private address` }));
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
          const retryAfter = response.headers["retry-after"];
          finish({
            result: status >= 200 && status < 300 ? "succeeded" : "http_error",
            statusCode: status,
            retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
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
