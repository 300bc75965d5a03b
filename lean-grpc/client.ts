import dns from "node:dns/promises";
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
import { AddressRotation } from "./rotation.js";
import { codeForReset, DEFAULT_READ_MAX_BYTES, formatGrpcTimeout, frame, toHeaders, unframe } from "./wire.js";

type UnaryNext = (request: UnaryRequest) => Promise<UnaryResponse>;

export interface LeanTransportOptions {
  /**
   * The service: one base URL (`http://order:50052`), or several separated by commas.
   * Calls are spread over every address they stand for: a host name's every A and AAAA
   * record (resolved again every `resolveEveryMs`), an IP literal as it is.
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
  /** How often host names are resolved again (default RESOLVE_EVERY_MS). */
  resolveEveryMs?: number;
  /** What the rotation's backoff counts time with (tests). */
  now?: () => number;
  /** Told when the addresses change, a resolution fails, or an address leaves or rejoins the rotation. */
  log?: LeanLog;
}

/** The structured logger the transport reports to (a pino logger fits). */
export interface LeanLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Host names are looked up again this often. Compose and Kubernetes headless services
 * add and drop an instance's A record when it starts and stops; 5 s bounds how long a
 * new instance waits for its share and how long a gone one's sessions linger, while
 * one lookup per channel every 5 s costs nothing. (A stopped instance leaves the
 * rotation sooner than that: its GOAWAY or refused connection takes it out at once.)
 */
const RESOLVE_EVERY_MS = 5_000;

const systemLookup = async (host: string) => (await dns.lookup(host, { all: true })).map((entry) => entry.address);

/** One entry of `baseUrl`. */
interface Target {
  /** `http://order:50052`: the `:authority` its requests carry, whatever address they go to. */
  authority: string;
  host: string;
  port: number;
  /** An IP address already: nothing to resolve. */
  literal: boolean;
}

/** One address of the service, with its own HTTP/2 sessions. */
interface Endpoint {
  /** `10.0.0.5:50052` or `[fd00::5]:50052`: its name in the rotation and in logs. */
  key: string;
  authority: string;
  host: string;
  port: number;
  slots: (http2.ClientHttp2Session | undefined)[];
  next: number;
  fallback?: Transport & { close?(): void };
}

/** "http://a:1, http://b:2" → its targets; throws on anything but h2c URLs. */
function parseTargets(baseUrl: string): Target[] {
  const entries = baseUrl.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  if (entries.length === 0) throw new Error("no base URL given");
  return entries.map((entry) => {
    const target = new URL(entry);
    if (target.protocol !== "http:") {
      // Internal traffic is cleartext HTTP/2 here; TLS would need its own session setup.
      throw new Error(`the lean gRPC transport speaks h2c only, not ${target.protocol}`);
    }
    const host = target.hostname.replace(/^\[|\]$/g, "");
    return { authority: `${target.protocol}//${target.host}`, host, port: Number(target.port || 80), literal: net.isIP(host) !== 0 };
  });
}

const endpointKey = (host: string, port: number) => (net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`);

/** What is left of a call's deadline `timeoutMs` that began at `started`; none left is DEADLINE_EXCEEDED. */
function timeLeft(timeoutMs: number | undefined, started: number): number | undefined {
  if (timeoutMs === undefined) return undefined;
  const left = timeoutMs - (performance.now() - started);
  if (left <= 0) throw new ConnectError("the operation timed out", Code.DeadlineExceeded);
  return left;
}

/** Failures the server cannot have seen (nothing was sent): safe to try on another address. */
const unsent = new WeakSet<ConnectError>();

/**
 * A Connect `Transport` whose unary calls are gRPC over a few HTTP/2 sessions of its
 * own to each of the service's addresses, round robin, with Connect's interceptors,
 * deadlines, cancellation and a read limit; streaming calls go to `fallback`. See
 * README.md ("Several addresses").
 */
export function createLeanGrpcTransport(options: LeanTransportOptions): Transport & { close(): void } {
  const targets = parseTargets(options.baseUrl);
  const authority = targets[0]!.authority;
  const readMaxBytes = options.readMaxBytes ?? DEFAULT_READ_MAX_BYTES;
  const interceptors = options.interceptors ?? [];
  const sessionsPerAddress = options.sessions ?? 2;
  const lookup = options.lookup ?? systemLookup;
  const log = options.log;
  const rotation = new AddressRotation({ now: options.now });
  const endpoints = new Map<string, Endpoint>();
  const active = new Map<http2.ClientHttp2Session, number>();
  const named = targets.filter((target) => !target.literal);
  /** Each host name's addresses at its last successful lookup. */
  const known = new Map<Target, string[]>();
  let resolving: Promise<void> | undefined;
  let resolvedAt = Number.NEGATIVE_INFINITY;
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  /** The rotation takes the addresses the targets stand for now; a gone address drains. */
  function apply() {
    const wanted = new Map<string, Omit<Endpoint, "slots" | "next">>();
    for (const target of targets) {
      for (const host of target.literal ? [target.host] : (known.get(target) ?? [])) {
        const key = endpointKey(host, target.port);
        if (!wanted.has(key)) wanted.set(key, { key, authority: target.authority, host, port: target.port });
      }
    }
    const { added, removed } = rotation.update(wanted.keys());
    for (const key of added) endpoints.set(key, { ...wanted.get(key)!, slots: Array.from({ length: sessionsPerAddress }, () => undefined), next: 0 });
    for (const key of removed) {
      const endpoint = endpoints.get(key)!;
      endpoints.delete(key);
      // GOAWAY from our side: calls under way on these sessions finish, new ones go elsewhere.
      for (const s of endpoint.slots) s?.close();
      endpoint.fallback?.close?.();
    }
    if (named.length > 0 && (added.length > 0 || removed.length > 0)) {
      log?.info({ target: options.baseUrl, addresses: rotation.addresses, added, removed }, "service addresses changed");
    }
  }

  /** Looks every host name up again; a failed lookup keeps that name's last addresses. */
  function resolve(): Promise<void> {
    resolving ??= (async () => {
      await Promise.all(
        named.map(async (target) => {
          try {
            const addresses = await lookup(target.host);
            if (addresses.length === 0) throw new Error("no addresses");
            known.set(target, addresses);
          } catch (error) {
            log?.warn(
              { target: target.authority, err: (error as Error).message, keeping: known.get(target) ?? [] },
              "could not resolve a service's host name; calls go on to the addresses it had (keeping)",
            );
          }
        }),
      );
      if (!closed) apply();
    })().finally(() => {
      resolving = undefined;
      resolvedAt = now();
    });
    if (!timer && !closed) {
      timer = setInterval(() => void resolve(), options.resolveEveryMs ?? RESOLVE_EVERY_MS);
      timer.unref();
    }
    return resolving;
  }

  if (named.length === 0) apply();

  /** Before a call: a channel of host names that knows no address yet looks them up first. */
  const addressesKnown = () => rotation.size > 0 || named.length === 0;

  /**
   * A call that finds no address waits for a lookup, within its deadline: the one under
   * way, or a new one unless the last found nothing under a second ago (then it fails
   * at once: a name that does not resolve must not cost a lookup and a warning per call).
   */
  async function lookUpForCall(timeoutMs: number | undefined): Promise<void> {
    const pending = resolving ?? (now() - resolvedAt >= 1_000 ? resolve() : undefined);
    if (!pending) return;
    if (timeoutMs === undefined) return pending;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectError("the operation timed out", Code.DeadlineExceeded)), timeoutMs);
    });
    try {
      await Promise.race([pending, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The next endpoint in rotation, other than `avoid` (undefined when there is none). */
  function pickEndpoint(serviceName: string, avoid?: Endpoint): Endpoint | undefined {
    if (closed) throw new ConnectError("channel closed", Code.Unavailable);
    const key = rotation.pick(avoid?.key);
    if (key !== undefined) return endpoints.get(key);
    if (avoid) return undefined;
    throw new ConnectError(`${serviceName} is unreachable`, Code.Unavailable);
  }

  function outOfRotation(endpoint: Endpoint, reason: string) {
    if (endpoints.get(endpoint.key) !== endpoint) return;
    const { failures, backoffMs } = rotation.failed(endpoint.key);
    // One line when it leaves, not one per failed probe; a lone address has no rotation to leave.
    if (failures === 1 && rotation.size > 1) {
      log?.warn({ target: endpoint.authority, address: endpoint.key, reason, retryInMs: backoffMs }, "service address out of rotation");
    }
  }

  function session(endpoint: Endpoint): http2.ClientHttp2Session {
    const slot = endpoint.next++ % endpoint.slots.length;
    const existing = endpoint.slots[slot];
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const made = http2.connect(endpoint.authority, {
      // Keep-alive probes find a peer that vanished without a FIN (a dropped NAT or
      // load-balancer flow) instead of leaving calls to hang until their deadline.
      createConnection: () => net.connect({ host: endpoint.host, port: endpoint.port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 30_000 }),
      settings: { initialWindowSize: 8 * 1024 * 1024 },
    });
    let connected = false;
    made.once("connect", () => {
      connected = true;
      if (rotation.succeeded(endpoint.key) && rotation.size > 1) {
        log?.info({ target: endpoint.authority, address: endpoint.key }, "service address back in rotation");
      }
    });
    made.on("error", (error: NodeJS.ErrnoException) => {
      if (!connected) outOfRotation(endpoint, error.code ?? error.message);
    });
    made.once("remoteSettings", () => made.setLocalWindowSize(32 * 1024 * 1024));
    const forget = () => {
      if (endpoint.slots[slot] === made) endpoint.slots[slot] = undefined;
    };
    made.once("close", forget);
    made.once("goaway", () => {
      forget();
      // The instance is shutting down (or shedding us): send nothing new there.
      outOfRotation(endpoint, "GOAWAY");
    });
    made.unref();
    endpoint.slots[slot] = made;
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

  /** One try of a call on `endpoint` (the retry; send() makes the first try itself). */
  async function attempt(
    endpoint: Endpoint,
    requestHeaders: http2.OutgoingHttpHeaders,
    body: Buffer,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    serviceName: string,
  ) {
    if (timeoutMs !== undefined) requestHeaders["grpc-timeout"] = formatGrpcTimeout(timeoutMs);
    const s = session(endpoint);
    hold(s);
    try {
      return await exchange(s, requestHeaders, body, signal, timeoutMs, serviceName);
    } finally {
      release(s);
    }
  }

  /** The innermost step: one HTTP/2 stream carrying one request and one answer. */
  const send =
    (timeoutMs: number | undefined, original: LazyRequest): UnaryNext =>
    async (request) => {
      const method = request.method;
      const serviceName = method.parent.typeName;
      const body = frame(toBinary(method.input, request.message));
      const requestHeaders: http2.OutgoingHttpHeaders = {
        ":method": "POST",
        ":path": `/${serviceName}/${method.name}`,
        "content-type": "application/grpc+proto",
        te: "trailers",
      };
      // The request the caller made, untouched by interceptors, carries no Headers or
      // AbortSignal object unless somebody asked for one: most calls need neither.
      const unchanged = request === original.request;
      const header = unchanged ? original.headerIfAny() : request.header;
      header?.forEach((value, key) => (requestHeaders[key] = value));
      const signal = unchanged ? original.signalIfAny() : request.signal;
      const started = timeoutMs !== undefined ? performance.now() : 0;
      let firstTimeoutMs = timeoutMs;
      if (!addressesKnown()) {
        await lookUpForCall(timeoutMs);
        firstTimeoutMs = timeLeft(timeoutMs, started);
      }
      const first = pickEndpoint(serviceName)!;
      // The first attempt inline, not through attempt(): one async step less per call.
      if (firstTimeoutMs !== undefined) requestHeaders["grpc-timeout"] = formatGrpcTimeout(firstTimeoutMs);
      const s = session(first);
      hold(s);
      let answer: Awaited<ReturnType<typeof exchange>> | undefined;
      let failure: ConnectError | undefined;
      try {
        answer = await exchange(s, requestHeaders, body, signal, firstTimeoutMs, serviceName);
      } catch (error) {
        // Only a call the server never saw is tried again, once, elsewhere: one that may
        // have reached it could be a write that happened (the caller decides, with its
        // idempotency key).
        if (!(error instanceof ConnectError && unsent.has(error))) throw error;
        failure = error;
      } finally {
        release(s);
      }
      if (!answer) {
        const other = pickEndpoint(serviceName, first);
        if (!other) throw failure ?? new ConnectError(`no address of ${serviceName} answered`, Code.Unavailable);
        answer = await attempt(other, requestHeaders, body, signal, timeLeft(timeoutMs, started), serviceName);
      }
      return {
        stream: false,
        service: method.parent,
        method,
        header: answer.header,
        trailer: answer.trailer,
        message: fromBinary(method.output, answer.message),
      };
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
        const error = new ConnectError(`${serviceName} is unreachable`, Code.Unavailable);
        unsent.add(error);
        reject(error);
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
        if (neverSent()) unsent.add(error);
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
        if (neverSent()) unsent.add(error);
        fail(error);
      });
      stream.end(body);
    });
  }

  /** The streaming transport to one endpoint, made on first use. */
  function fallbackFor(endpoint: Endpoint): Transport {
    return (endpoint.fallback ??= options.fallback(`http://${endpoint.key}`));
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
      const lazy = lazyRequest(method, `${authority}/${method.parent.typeName}/${method.name}`, header, signal, contextValues, input);
      let next = send(deadline, lazy);
      for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i]!(next as never) as UnaryNext;
      const request = lazy.request;
      try {
        return (await next(request)) as unknown as UnaryResponse<I, O>;
      } catch (error) {
        throw ConnectError.from(error);
      }
    },
    async stream(...args) {
      if (!addressesKnown()) await lookUpForCall(args[2]);
      const endpoint = pickEndpoint(args[0].parent.typeName)!;
      return fallbackFor(endpoint).stream(...args);
    },
    close() {
      closed = true;
      clearInterval(timer);
      for (const endpoint of endpoints.values()) {
        for (const s of endpoint.slots) s?.destroy();
        endpoint.fallback?.close?.();
      }
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
    message: isMessage(input, method.input) ? input : create(method.input, input as MessageInitShape<DescMessage>),
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
