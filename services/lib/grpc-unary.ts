import http2 from "node:http2";
import net from "node:net";
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type DescService,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type ConnectRouter,
  type HandlerContext,
  type Transport,
  type UnaryResponse,
} from "@connectrpc/connect";
import { findTrailerError, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import type { Logger } from "./logger.js";
import { rpcCalls, rpcDuration } from "./metrics.js";
import { toRpcError } from "./rpc-errors.js";
import { assertRequestText } from "./rpc-text.js";

// A lean path for the calls this system makes most: unary gRPC with binary protobuf.
// It speaks the same wire protocol as Connect's gRPC handler and transport (and as
// grpc-js), and reuses Connect's own status and trailer encoding; it only leaves out
// the per-call machinery (async iterables, signals, compat request objects) that
// made each internal hop cost a millisecond of CPU. Everything else — gRPC-Web, the
// Connect protocol, JSON, compression, streaming — still goes through Connect.

type UnaryImpl = (request: unknown, context: HandlerContext) => unknown;

interface UnaryRoute {
  method: DescMethodUnary;
  impl: UnaryImpl;
}

const GRPC_CONTENT_TYPES = new Set(["application/grpc", "application/grpc+proto"]);
const { NGHTTP2_CANCEL } = http2.constants;

/** Frames one message: a zero "compressed" flag, a 4-byte length, the bytes. */
function frame(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + bytes.length);
  out[0] = 0;
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  return out;
}

/** The single message of a unary body; undefined when the body is not exactly one. */
function unframe(body: Buffer): Uint8Array | undefined {
  if (body.length < 5 || body[0] !== 0) return undefined;
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return undefined;
  return body.subarray(5);
}

function headersToObject(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => (out[key] = value));
  return out;
}

/** "1500m" → 1500; the gRPC timeout units. */
function parseGrpcTimeout(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const match = /^(\d{1,8})([HMSmun])$/.exec(value);
  if (!match) return undefined;
  const unit = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 0.001, n: 0.000001 }[match[2] as "H"];
  return Number(match[1]) * unit;
}

/**
 * grpc-message as the gRPC spec writes it: only bytes outside printable ASCII and "%"
 * are percent-encoded. (encodeURIComponent also escapes ":" and "/", which stock
 * grpc-js, decoding with decodeURI, shows to its users as "%3A".)
 */
function encodeGrpcMessage(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text.toWellFormed(), "utf8")) {
    out += byte < 0x20 || byte > 0x7e || byte === 0x25 ? `%${byte.toString(16).toUpperCase().padStart(2, "0")}` : String.fromCharCode(byte);
  }
  return out;
}

/** Collects the unary methods that `routes` registers, with their implementations. */
export function collectUnaryRoutes(routes: (router: ConnectRouter) => void): Map<string, UnaryRoute> {
  const found = new Map<string, UnaryRoute>();
  const collector = {
    handlers: [],
    service(service: DescService, impl: Record<string, UnaryImpl>) {
      for (const method of service.methods) {
        const fn = impl[method.localName];
        if (method.methodKind === "unary" && typeof fn === "function") {
          found.set(`/${service.typeName}/${method.name}`, { method: method as DescMethodUnary, impl: fn.bind(impl) });
        }
      }
      return collector;
    },
    rpc() {
      return collector;
    },
  };
  routes(collector as unknown as ConnectRouter);
  return found;
}

/**
 * Answers a unary gRPC call on a raw HTTP/2 stream when it can (POST, binary
 * protobuf, no compression, a known unary method); returns false to let Connect have
 * the stream otherwise.
 */
export function createUnaryStreamHandler(routes: Map<string, UnaryRoute>, logger: Logger) {
  return (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): boolean => {
    const route = routes.get(headers[":path"] ?? "");
    const contentType = headers["content-type"];
    const encoding = headers["grpc-encoding"];
    if (!route || headers[":method"] !== "POST" || !contentType || !GRPC_CONTENT_TYPES.has(contentType) || (encoding && encoding !== "identity")) {
      return false;
    }
    const started = performance.now();
    const labels = { side: "server", service: route.method.parent.typeName, method: route.method.name, code: "ok" };
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => {});
    stream.once("end", () => {
      void (async () => {
        const timeoutMs = parseGrpcTimeout(headers["grpc-timeout"] as string | undefined);
        let error: ConnectError | undefined;
        let output: Uint8Array | undefined;
        const responseTrailer = new Headers();
        try {
          const bytes = unframe(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
          if (!bytes) throw new ConnectError("request must be one uncompressed message", Code.InvalidArgument);
          let request: ReturnType<typeof fromBinary>;
          try {
            request = fromBinary(route.method.input, bytes);
          } catch {
            throw new ConnectError("request is not a valid message", Code.InvalidArgument);
          }
          assertRequestText(route.method.input, request);
          const context = lazyContext(route.method, headers, timeoutMs, stream, responseTrailer);
          const result = await route.impl(request, context);
          output = toBinary(route.method.output, create(route.method.output, result as MessageInitShape<DescMessage>));
        } catch (caught) {
          error = toRpcError(caught, logger, { service: labels.service, method: labels.method });
          labels.code = Code[error.code] ?? "unknown";
        }
        rpcCalls.inc(labels);
        rpcDuration.observe(labels, (performance.now() - started) / 1000);
        if (stream.destroyed || stream.closed) return;
        try {
          const trailer = headersToObject(setTrailerStatus(responseTrailer, error));
          if (error) trailer["grpc-message"] = encodeGrpcMessage(error.rawMessage);
          if (error || !output) {
            // "Trailers-only": the status travels in the one header block.
            stream.respond({ ":status": 200, "content-type": contentType, ...trailer }, { endStream: true });
            return;
          }
          stream.respond({ ":status": 200, "content-type": contentType, "grpc-accept-encoding": "identity" }, { waitForTrailers: true });
          stream.once("wantTrailers", () => stream.sendTrailers(trailer));
          stream.end(frame(output));
        } catch {
          // A header the handler set that HTTP/2 will not carry: fail this call only.
          if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
        }
      })();
    });
    return true;
  };
}

/** The HandlerContext our handlers may use, with the costly parts made on demand. */
function lazyContext(
  method: DescMethodUnary,
  headers: http2.IncomingHttpHeaders,
  timeoutMs: number | undefined,
  stream: http2.ServerHttp2Stream,
  responseTrailer: Headers,
): HandlerContext {
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  let signal: AbortSignal | undefined;
  let requestHeader: Headers | undefined;
  let responseHeader: Headers | undefined;
  let values: ReturnType<typeof createContextValues> | undefined;
  return {
    method,
    service: method.parent,
    requestMethod: "POST",
    protocolName: "grpc",
    url: String(headers[":path"]),
    peer: { addr: stream.session?.socket?.remoteAddress ?? "" },
    timeoutMs: () => (deadline === undefined ? undefined : deadline - Date.now()),
    get signal() {
      if (!signal) {
        const controller = new AbortController();
        stream.once("close", () => controller.abort());
        signal = controller.signal;
      }
      return signal;
    },
    get requestHeader() {
      if (!requestHeader) {
        requestHeader = new Headers();
        for (const [key, value] of Object.entries(headers)) {
          if (!key.startsWith(":") && value !== undefined) requestHeader.set(key, Array.isArray(value) ? value.join(", ") : value);
        }
      }
      return requestHeader;
    },
    get responseHeader() {
      return (responseHeader ??= new Headers());
    },
    responseTrailer,
    get values() {
      return (values ??= createContextValues());
    },
  } as HandlerContext;
}

/**
 * A Connect `Transport` whose unary calls take the lean path over a few HTTP/2
 * sessions of its own; streaming calls go to `fallback`. Sockets send at once (no
 * Nagle) and flow-control windows are wide, since these are trusted internal calls.
 */
export function createUnaryGrpcTransport(options: {
  baseUrl: string;
  sessions: number;
  defaultTimeoutMs?: number;
  fallback: Transport;
}): Transport & { close(): void } {
  const target = new URL(options.baseUrl);
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const port = Number(target.port || 80);
  const authority = `${target.protocol}//${target.host}`;
  const slots: (http2.ClientHttp2Session | undefined)[] = new Array(options.sessions).fill(undefined);
  const active = new Map<http2.ClientHttp2Session, number>();
  let next = 0;
  let closed = false;

  function session(): http2.ClientHttp2Session {
    if (closed) throw new ConnectError("channel closed", Code.Unavailable);
    const slot = next++ % slots.length;
    const existing = slots[slot];
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const made = http2.connect(authority, {
      // Keep-alive probes find a peer that vanished without a FIN (a dropped NAT or
      // load-balancer flow) instead of leaving calls to hang until their deadline.
      createConnection: () => net.connect({ host, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 30_000 }),
      settings: { initialWindowSize: 8 * 1024 * 1024 },
    });
    made.on("error", () => {});
    made.once("remoteSettings", () => made.setLocalWindowSize(32 * 1024 * 1024));
    const forget = () => {
      if (slots[slot] === made) slots[slot] = undefined;
    };
    made.once("close", forget);
    made.once("goaway", forget);
    made.unref();
    slots[slot] = made;
    return made;
  }

  // A session keeps the process alive only while it has calls in flight.
  const hold = (s: http2.ClientHttp2Session) => {
    const n = (active.get(s) ?? 0) + 1;
    active.set(s, n);
    if (n === 1) s.ref();
  };
  const release = (s: http2.ClientHttp2Session) => {
    const n = (active.get(s) ?? 1) - 1;
    if (n <= 0) {
      active.delete(s);
      if (!s.destroyed) s.unref();
    } else active.set(s, n);
  };

  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: ConstructorParameters<typeof Headers>[0] | undefined,
      input: MessageInitShape<I>,
    ): Promise<UnaryResponse<I, O>> {
      const started = performance.now();
      const labels = { side: "client", service: method.parent.typeName, method: method.name, code: "ok" };
      const deadline = timeoutMs ?? options.defaultTimeoutMs;
      try {
        const body = frame(toBinary(method.input, create(method.input, input)));
        const requestHeaders: http2.OutgoingHttpHeaders = {
          ":method": "POST",
          ":path": `/${method.parent.typeName}/${method.name}`,
          "content-type": "application/grpc+proto",
          te: "trailers",
        };
        // grpc-timeout takes at most 8 digits.
        if (deadline !== undefined && deadline > 0) requestHeaders["grpc-timeout"] = `${Math.min(99_999_999, Math.max(1, Math.ceil(deadline)))}m`;
        if (header) new Headers(header).forEach((value, key) => (requestHeaders[key] = value));
        const s = session();
        hold(s);
        try {
          const result = await new Promise<{ message: Uint8Array; header: Headers; trailer: Headers }>((resolve, reject) => {
            let stream: http2.ClientHttp2Stream;
            try {
              stream = s.request(requestHeaders);
            } catch (error) {
              reject(new ConnectError(`${method.parent.typeName} is unreachable`, Code.Unavailable));
              return;
            }
            let responseHeaders: http2.IncomingHttpHeaders | undefined;
            const chunks: Buffer[] = [];
            let settled = false;
            const fail = (error: ConnectError) => {
              if (settled) return;
              settled = true;
              clearTimeout(timer);
              signal?.removeEventListener("abort", onAbort);
              if (!stream.destroyed) stream.close(NGHTTP2_CANCEL);
              reject(error);
            };
            const timer =
              deadline !== undefined && deadline > 0
                ? setTimeout(() => {
                    // No answer at all: the connection itself may be dead. Start the
                    // next call on a fresh one rather than queueing behind it.
                    if (!responseHeaders) s.close();
                    fail(new ConnectError("the operation timed out", Code.DeadlineExceeded));
                  }, deadline)
                : undefined;
            const onAbort = () => fail(new ConnectError("the operation was aborted", Code.Canceled));
            if (signal?.aborted) return onAbort();
            signal?.addEventListener("abort", onAbort, { once: true });
            stream.on("response", (h) => (responseHeaders = h));
            stream.on("data", (chunk: Buffer) => chunks.push(chunk));
            stream.on("error", () => fail(new ConnectError(`${method.parent.typeName} is unreachable`, Code.Unavailable)));
            const finish = (trailers: http2.IncomingHttpHeaders) => {
              if (settled) return;
              settled = true;
              clearTimeout(timer);
              signal?.removeEventListener("abort", onAbort);
              const header = toHeaders(responseHeaders ?? {});
              const trailer = toHeaders(trailers);
              const status = Number(responseHeaders?.[":status"]);
              if (status !== 200) {
                reject(new ConnectError(`HTTP ${status} from ${method.parent.typeName}`, status === 503 || status === 502 ? Code.Unavailable : Code.Unknown));
                return;
              }
              // A trailers-only answer carries its status in the header block.
              const statusBlock = trailer.has("grpc-status") ? trailer : header;
              if (!statusBlock.has("grpc-status")) return reject(new ConnectError("response carries no grpc-status", Code.Internal));
              const error = findTrailerError(statusBlock);
              if (error) return reject(error);
              const message = unframe(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
              if (!message) return reject(new ConnectError("malformed response body", Code.Internal));
              resolve({ message, header, trailer });
            };
            stream.on("trailers", (trailers) => finish(trailers));
            stream.on("close", () => {
              if (settled) return;
              if (responseHeaders && "grpc-status" in responseHeaders) return finish({});
              fail(new ConnectError(`${method.parent.typeName} closed the stream (${stream.rstCode})`, codeForReset(stream.rstCode)));
            });
            stream.end(body);
          });
          return {
            stream: false,
            service: method.parent,
            method,
            header: result.header,
            message: fromBinary(method.output, result.message),
            trailer: result.trailer,
          } as UnaryResponse<I, O>;
        } finally {
          release(s);
        }
      } catch (caught) {
        const error = ConnectError.from(caught);
        labels.code = Code[error.code] ?? "unknown";
        throw error;
      } finally {
        rpcCalls.inc(labels);
        rpcDuration.observe(labels, (performance.now() - started) / 1000);
      }
    },
    stream: (...args) => options.fallback.stream(...args),
    close() {
      closed = true;
      for (const s of slots) s?.destroy();
    },
  };
}

/** gRPC's mapping of HTTP/2 RST_STREAM codes to status codes. */
function codeForReset(rstCode: number | undefined): Code {
  const c = http2.constants;
  if (rstCode === c.NGHTTP2_CANCEL) return Code.Canceled;
  if (rstCode === c.NGHTTP2_REFUSED_STREAM || rstCode === c.NGHTTP2_NO_ERROR || rstCode === undefined) return Code.Unavailable;
  if (rstCode === c.NGHTTP2_ENHANCE_YOUR_CALM) return Code.ResourceExhausted;
  if (rstCode === c.NGHTTP2_INADEQUATE_SECURITY) return Code.PermissionDenied;
  return Code.Internal;
}

function toHeaders(source: http2.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(source)) {
    if (key.startsWith(":") || value === undefined) continue;
    headers.set(key, Array.isArray(value) ? value.join(", ") : String(value));
  }
  return headers;
}
