import http2 from "node:http2";
import net from "node:net";
import {
  create,
  fromBinary,
  isMessage,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type ContextValues,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { findTrailerError } from "@connectrpc/connect/protocol-grpc";
import { codeForReset, DEFAULT_READ_MAX_BYTES, formatGrpcTimeout, frame, toHeaders, unframe } from "./wire.js";

type UnaryNext = (request: UnaryRequest) => Promise<UnaryResponse>;

export interface LeanTransportOptions {
  baseUrl: string;
  /** HTTP/2 sessions to open; calls are spread over them round-robin. */
  sessions?: number;
  /** Deadline for a call that sets none (0 or unset: none). */
  defaultTimeoutMs?: number;
  /** Connect client interceptors, outermost first, as createGrpcTransport takes them. */
  interceptors?: Interceptor[];
  /** Largest response message accepted; a larger one is RESOURCE_EXHAUSTED (default 4 MiB). */
  readMaxBytes?: number;
  /** Where streaming calls go (the lean path is unary only). */
  fallback: Transport;
}

/**
 * A Connect `Transport` whose unary calls are gRPC over a few HTTP/2 sessions of its
 * own, with Connect's interceptors, deadlines, cancellation and a read limit; streaming
 * calls go to `fallback`. See README.md.
 */
export function createLeanGrpcTransport(options: LeanTransportOptions): Transport & { close(): void } {
  const target = new URL(options.baseUrl);
  if (target.protocol !== "http:") {
    // Internal traffic is cleartext HTTP/2 here; TLS would need its own session setup.
    throw new Error(`the lean gRPC transport speaks h2c only, not ${target.protocol}`);
  }
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const port = Number(target.port || 80);
  const authority = `${target.protocol}//${target.host}`;
  const readMaxBytes = options.readMaxBytes ?? DEFAULT_READ_MAX_BYTES;
  const interceptors = options.interceptors ?? [];
  const slots: (http2.ClientHttp2Session | undefined)[] = new Array(options.sessions ?? 2).fill(undefined);
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

  /** The innermost step: one HTTP/2 stream carrying one request and one answer. */
  const send =
    (timeoutMs: number | undefined, original: LazyRequest): UnaryNext =>
    async (request) => {
      const method = request.method;
      const body = frame(toBinary(method.input, request.message));
      const requestHeaders: http2.OutgoingHttpHeaders = {
        ":method": "POST",
        ":path": `/${method.parent.typeName}/${method.name}`,
        "content-type": "application/grpc+proto",
        te: "trailers",
      };
      // The request the caller made, untouched by interceptors, carries no Headers or
      // AbortSignal object unless somebody asked for one: most calls need neither.
      const unchanged = request === original.request;
      const header = unchanged ? original.headerIfAny() : request.header;
      header?.forEach((value, key) => (requestHeaders[key] = value));
      const signal = unchanged ? original.signalIfAny() : request.signal;
      if (timeoutMs !== undefined) requestHeaders["grpc-timeout"] = formatGrpcTimeout(timeoutMs);
      const s = session();
      hold(s);
      try {
        const answer = await exchange(s, requestHeaders, body, signal, timeoutMs, method.parent.typeName);
        return {
          stream: false,
          service: method.parent,
          method,
          header: answer.header,
          trailer: answer.trailer,
          message: fromBinary(method.output, answer.message),
        } as UnaryResponse;
      } finally {
        release(s);
      }
    };

  function exchange(
    s: http2.ClientHttp2Session,
    requestHeaders: http2.OutgoingHttpHeaders,
    body: Buffer,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    serviceName: string,
  ): Promise<{ message: Uint8Array; header: Headers; trailer: Headers }> {
    return new Promise((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = s.request(requestHeaders);
      } catch {
        reject(new ConnectError(`${serviceName} is unreachable`, Code.Unavailable));
        return;
      }
      let responseHeaders: http2.IncomingHttpHeaders | undefined;
      const chunks: Buffer[] = [];
      let received = 0;
      let settled = false;
      const fail = (error: ConnectError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
        reject(error);
      };
      const timer =
        timeoutMs !== undefined
          ? setTimeout(() => {
              // No answer at all: the connection itself may be dead. Start the next
              // call on a fresh one rather than queueing behind it.
              if (!responseHeaders) s.close();
              fail(new ConnectError("the operation timed out", Code.DeadlineExceeded));
            }, timeoutMs)
          : undefined;
      const onAbort = () => fail(ConnectError.from(signal?.reason ?? new ConnectError("the operation was aborted", Code.Canceled), Code.Canceled));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      stream.on("response", (h) => (responseHeaders = h));
      stream.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > readMaxBytes + 5) return fail(new ConnectError(`message larger than ${readMaxBytes} bytes`, Code.ResourceExhausted));
        chunks.push(chunk);
      });
      stream.on("error", () => fail(new ConnectError(`${serviceName} is unreachable`, Code.Unavailable)));
      const finish = (trailers: http2.IncomingHttpHeaders) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const header = toHeaders(responseHeaders ?? {});
        const trailer = toHeaders(trailers);
        const status = Number(responseHeaders?.[":status"]);
        if (status !== 200) {
          reject(new ConnectError(`HTTP ${status} from ${serviceName}`, status === 503 || status === 502 ? Code.Unavailable : Code.Unknown));
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
        fail(new ConnectError(`${serviceName} closed the stream (${stream.rstCode})`, codeForReset(stream.rstCode)));
      });
      stream.end(body);
    });
  }

  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: ConstructorParameters<typeof Headers>[0] | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      // As Connect's transports: undefined takes the default, 0 or less means none.
      const deadline = timeoutMs === undefined ? options.defaultTimeoutMs || undefined : timeoutMs <= 0 ? undefined : timeoutMs;
      const lazy = lazyRequest(method as unknown as DescMethodUnary, `${authority}/${method.parent.typeName}/${method.name}`, header, signal, contextValues, input);
      let next = send(deadline, lazy);
      for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i]!(next as never) as UnaryNext;
      const request = lazy.request;
      try {
        return (await next(request)) as unknown as UnaryResponse<I, O>;
      } catch (error) {
        throw ConnectError.from(error);
      }
    },
    stream: (...args) => options.fallback.stream(...args),
    close() {
      closed = true;
      for (const s of slots) s?.destroy();
    },
  };
}

interface LazyRequest {
  request: UnaryRequest;
  headerIfAny(): Headers | undefined;
  signalIfAny(): AbortSignal | undefined;
}

/** A UnaryRequest whose Headers, AbortSignal and context values are made when first read. */
function lazyRequest(
  method: DescMethodUnary,
  url: string,
  init: ConstructorParameters<typeof Headers>[0] | undefined,
  signal: AbortSignal | undefined,
  contextValues: ContextValues | undefined,
  input: unknown,
): LazyRequest {
  let header: Headers | undefined;
  let values = contextValues;
  let ownSignal = signal;
  const request = {
    stream: false,
    service: method.parent,
    method,
    requestMethod: "POST",
    url,
    message: (isMessage(input, method.input) ? input : create(method.input, input as MessageInitShape<DescMessage>)) as MessageShape<DescMessage>,
    get header() {
      return (header ??= new Headers(init));
    },
    get signal() {
      return (ownSignal ??= new AbortController().signal);
    },
    get contextValues() {
      return (values ??= createContextValues());
    },
  } as UnaryRequest;
  return {
    request,
    headerIfAny: () => header ?? (init === undefined ? undefined : (header = new Headers(init))),
    signalIfAny: () => ownSignal,
  };
}
