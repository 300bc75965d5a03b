import http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";

// The bytes of unary gRPC over HTTP/2 (grpc/grpc PROTOCOL-HTTP2.md): a message is a
// zero "compressed" flag, a 4-byte big-endian length and the protobuf bytes; the
// status travels in trailers (or, with no message, in the one header block).

export const GRPC_CONTENT_TYPES = new Set(["application/grpc", "application/grpc+proto"]);

/** gRPC's default for a received message (grpc-go and grpc-js use the same). */
export const DEFAULT_READ_MAX_BYTES = 4 * 1024 * 1024;

export function frame(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + bytes.length);
  out[0] = 0;
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  return out;
}

/** The single uncompressed message of a unary body; undefined when it is not exactly one. */
export function unframe(body: Buffer): Uint8Array | undefined {
  if (body.length < 5 || body[0] !== 0) return undefined;
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return undefined;
  return body.subarray(5);
}

/** The length a body's first frame declares, once its 5-byte prefix has arrived. */
export function declaredLength(chunks: Buffer[], received: number): number | undefined {
  if (received < 5) return undefined;
  const head = chunks.length === 1 || chunks[0]!.length >= 5 ? chunks[0]! : Buffer.concat(chunks);
  return head.readUInt32BE(1);
}

const TIMEOUT_UNITS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 0.001, n: 0.000001 };

/** "1500m" → 1500 ms; undefined when absent or malformed (no deadline). */
export function parseGrpcTimeout(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const match = /^(\d{1,8})([HMSmun])$/.exec(value);
  return match ? Number(match[1]) * TIMEOUT_UNITS[match[2]!]! : undefined;
}

/** A deadline in ms as grpc-timeout, which takes at most 8 digits. */
export function formatGrpcTimeout(ms: number): string {
  return `${Math.min(99_999_999, Math.max(1, Math.ceil(ms)))}m`;
}

/**
 * grpc-message as the gRPC spec writes it: only bytes outside printable ASCII and "%"
 * are percent-encoded. (encodeURIComponent also escapes ":" and "/", which stock
 * grpc-js, decoding with decodeURI, shows its users as "%3A"; and it throws on a lone
 * surrogate.)
 */
export function encodeGrpcMessage(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text.toWellFormed(), "utf8")) {
    out += byte < 0x20 || byte > 0x7e || byte === 0x25 ? `%${byte.toString(16).toUpperCase().padStart(2, "0")}` : String.fromCharCode(byte);
  }
  return out;
}

/**
 * The error with a well-formed message (lone surrogates replaced), details kept.
 * Connect's trailer encoding percent-encodes with encodeURIComponent, which throws on
 * a lone surrogate: a handler's awkward message must not become a transport failure.
 */
export function wellFormedError(error: ConnectError): ConnectError {
  if (error.rawMessage.isWellFormed()) return error;
  const copy = new ConnectError(error.rawMessage.toWellFormed(), error.code, error.metadata, undefined, error.cause);
  copy.details.push(...error.details);
  return copy;
}

/** gRPC's mapping of an HTTP/2 RST_STREAM code to a status. */
export function codeForReset(rstCode: number | undefined): Code {
  const c = http2.constants;
  if (rstCode === c.NGHTTP2_CANCEL) return Code.Canceled;
  if (rstCode === c.NGHTTP2_REFUSED_STREAM || rstCode === c.NGHTTP2_NO_ERROR || rstCode === undefined) return Code.Unavailable;
  if (rstCode === c.NGHTTP2_ENHANCE_YOUR_CALM) return Code.ResourceExhausted;
  if (rstCode === c.NGHTTP2_INADEQUATE_SECURITY) return Code.PermissionDenied;
  return Code.Internal;
}

/** Node's header object as Fetch `Headers`, pseudo-headers left out. */
export function toHeaders(source: http2.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(source)) {
    if (key.startsWith(":") || value === undefined) continue;
    headers.set(key, Array.isArray(value) ? value.join(", ") : String(value));
  }
  return headers;
}

export function headersToObject(headers: Headers, into: Record<string, string> = {}): Record<string, string> {
  headers.forEach((value, key) => (into[key] = value));
  return into;
}
