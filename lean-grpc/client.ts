import http2 from "node:http2";
import net from "node:net";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor, type Transport } from "@connectrpc/connect";
import { findTrailerError } from "@connectrpc/connect/protocol-grpc";
import { createBalancedTransport, markUnsent, type AddressEvents, type AddressTransport, type UnaryAnswer, type UnaryAttempt } from "./balancer.js";
import type { BalancerLog, ServiceAddress } from "./resolver.js";
import { codeForReset, DEFAULT_READ_MAX_BYTES, formatGrpcTimeout, frame, toHeaders, unframe } from "./wire.js";

export type LeanLog = BalancerLog;

export interface LeanTransportOptions {
  /**
   * The service: one base URL (`http://order:50052`), or several separated by commas.
   * Calls are spread over every address they stand for (balancer.ts).
   */
  baseUrl: string;
  /** HTTP/2 sessions to open to each address; calls to it are spread over them round-robin. */
  sessions?: number;
  /** Deadline for a call that sets none (0 or unset: none). */
  defaultTimeoutMs?: number;
  /** Connect client interceptors, outermost first, as createGrpcTransport takes them. */
  interceptors?: Interceptor[];
  /** Largest response message accepted; a larger one is RESOURCE_EXHAUSTED (default 4 MiB). */
  readMaxBytes?: number;
  /**
   * Where streaming calls go (the lean path is unary only): a transport to one address
   * (`http://10.0.0.5:50052`), made when a streaming call first goes there.
   */
  fallback: (baseUrl: string) => Transport & { close?(): void };
  /** A host name's addresses (default: the system resolver's, every A and AAAA record). */
  lookup?: (host: string) => Promise<string[]>;
  /** How often host names are resolved again (default resolver.ts's RESOLVE_EVERY_MS). */
  resolveEveryMs?: number;
  /** What the rotation's backoff counts time with (tests). */
  now?: () => number;
  /** Told when the addresses change, a resolution fails, or an address leaves or rejoins the rotation. */
  log?: LeanLog;
}

/**
 * A Connect `Transport` whose unary calls are gRPC over a few HTTP/2 sessions of its
 * own to each of the service's addresses, balanced by balancer.ts, with Connect's
 * interceptors, deadlines, cancellation and a read limit; streaming calls go to
 * `fallback`. See README.md.
 */
export function createLeanGrpcTransport(options: LeanTransportOptions): Transport & { close(): void } {
  return createBalancedTransport({ ...options, dial: (address, events) => createLeanAddressTransport(address, events, options) });
}

/** The lean wire to one address: unary gRPC on a small pool of HTTP/2 sessions of its own. */
export function createLeanAddressTransport(
  address: ServiceAddress,
  events: AddressEvents,
  options: Pick<LeanTransportOptions, "sessions" | "readMaxBytes" | "fallback">,
): AddressTransport {
  const readMaxBytes = options.readMaxBytes ?? DEFAULT_READ_MAX_BYTES;
  const slots: (http2.ClientHttp2Session | undefined)[] = Array.from({ length: options.sessions ?? 2 }, () => undefined);
  let next = 0;
  let fallback: (Transport & { close?(): void }) | undefined;
  const active = new Map<http2.ClientHttp2Session, number>();

  function session(): http2.ClientHttp2Session {
    const slot = next++ % slots.length;
    const existing = slots[slot];
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const made = http2.connect(address.authority, {
      // Keep-alive probes find a peer that vanished without a FIN (a dropped NAT or
      // load-balancer flow) instead of leaving calls to hang until their deadline.
      createConnection: () => net.connect({ host: address.host, port: address.port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 30_000 }),
      settings: { initialWindowSize: 8 * 1024 * 1024 },
    });
    let connected = false;
    made.once("connect", () => {
      connected = true;
      events.connected();
    });
    made.on("error", (error: NodeJS.ErrnoException) => {
      if (!connected) events.failed(error.code ?? error.message);
    });
    made.once("remoteSettings", () => made.setLocalWindowSize(32 * 1024 * 1024));
    const forget = () => {
      if (slots[slot] === made) slots[slot] = undefined;
    };
    made.once("close", forget);
    made.once("goaway", () => {
      forget();
      // The instance is shutting down (or shedding us): send nothing new there.
      events.failed("GOAWAY");
    });
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
        reject(markUnsent(new ConnectError(`${serviceName} is unreachable`, Code.Unavailable)));
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
      // Never sent: the session never connected (the stream still waits for an id), or
      // the server refused the stream unprocessed (REFUSED_STREAM, as past a GOAWAY).
      const neverSent = () => stream.pending || stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM;
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
      stream.on("error", () => {
        const error = new ConnectError(`${serviceName} is unreachable`, Code.Unavailable);
        if (neverSent()) markUnsent(error);
        fail(error);
      });
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
      stream.on("trailers", (trailers: http2.IncomingHttpHeaders) => finish(trailers));
      stream.on("close", () => {
        if (settled) return;
        if (responseHeaders && "grpc-status" in responseHeaders) return finish({});
        // Node closes a stream with CANCEL when its connection goes (the server died or
        // tore the session down): an outage, not a cancellation anybody asked for.
        const dropped = s.destroyed && stream.rstCode === http2.constants.NGHTTP2_CANCEL;
        const error = new ConnectError(`${serviceName} closed the stream (${stream.rstCode})`, dropped ? Code.Unavailable : codeForReset(stream.rstCode));
        if (neverSent()) markUnsent(error);
        fail(error);
      });
      stream.end(body);
    });
  }

  return {
    async unary(attempt: UnaryAttempt): Promise<UnaryAnswer> {
      const method = attempt.method;
      const serviceName = method.parent.typeName;
      const requestHeaders: http2.OutgoingHttpHeaders = {
        ":method": "POST",
        ":path": `/${serviceName}/${method.name}`,
        "content-type": "application/grpc+proto",
        te: "trailers",
      };
      attempt.header?.forEach((value, key) => (requestHeaders[key] = value));
      if (attempt.timeoutMs !== undefined) requestHeaders["grpc-timeout"] = formatGrpcTimeout(attempt.timeoutMs);
      const body = frame(toBinary(method.input, attempt.message));
      const s = session();
      hold(s);
      try {
        const answer = await exchange(s, requestHeaders, body, attempt.signal, attempt.timeoutMs, serviceName);
        return { header: answer.header, trailer: answer.trailer, message: fromBinary(method.output, answer.message) };
      } finally {
        release(s);
      }
    },
    stream(...args) {
      fallback ??= options.fallback(`http://${address.key}`);
      return fallback.stream(...args);
    },
    close() {
      for (const s of slots) s?.destroy();
      fallback?.close?.();
    },
  };
}
