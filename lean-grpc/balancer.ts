import { create, isMessage, type DescMessage, type DescMethodUnary, type MessageInitShape } from "@bufbuild/protobuf";
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
import { createResolver, parseTargets, type BalancerLog, type ServiceAddress } from "./resolver.js";
import { AddressRotation } from "./rotation.js";

/**
 * One service over every address it has (README.md, "Several addresses"): the resolver
 * says which addresses there are, the rotation which one takes the next call, and a
 * transport to one address (`dial`: the lean wire of client.ts, or Connect's own)
 * carries the call. Interceptors run here, once per call, around any retry: one client
 * metric and one span per call, wherever it went.
 */

/** One try of a unary call at one address; the interceptors have run. */
export interface UnaryAttempt {
  method: DescMethodUnary;
  message: UnaryRequest["message"];
  /** Undefined when nobody set a header: most calls carry none but the token. */
  header: Headers | undefined;
  signal: AbortSignal | undefined;
  /** What is left of the call's deadline (undefined: none). */
  timeoutMs: number | undefined;
  contextValues: ContextValues | undefined;
}

export interface UnaryAnswer {
  header: Headers;
  trailer: Headers;
  message: UnaryResponse["message"];
}

/** Calls to one address of the service. */
export interface AddressTransport {
  unary(attempt: UnaryAttempt): Promise<UnaryAnswer>;
  stream: Transport["stream"];
  /** Ends its connections (the balancer calls it once no call is under way there). */
  close(): void;
}

/** What an address transport tells the balancer about its connections. */
export interface AddressEvents {
  /** A connection was made: the address takes calls again. */
  connected(): void;
  /** A connection could not be made, or the server sent GOAWAY: out of rotation for a while. */
  failed(reason: string): void;
}

export type Dial = (address: ServiceAddress, events: AddressEvents) => AddressTransport;

/** Failures the server cannot have seen (nothing was sent): safe to try on another address. */
const unsent = new WeakSet<object>();
export function markUnsent<E extends ConnectError>(error: E): E {
  unsent.add(error);
  return error;
}

export interface BalancerOptions {
  /** One base URL (`http://order:50052`), or several separated by commas. */
  baseUrl: string;
  dial: Dial;
  /** Connect client interceptors, outermost first, as createGrpcTransport takes them. */
  interceptors?: Interceptor[];
  /** Deadline for a call that sets none (0 or unset: none). */
  defaultTimeoutMs?: number;
  /** A host name's addresses (default: the system resolver's). */
  lookup?: (host: string) => Promise<string[]>;
  resolveEveryMs?: number;
  /** What the rotation's backoff counts time with (tests). */
  now?: () => number;
  /** Told when the addresses change, a lookup fails, or an address leaves or rejoins the rotation. */
  log?: BalancerLog;
}

interface Endpoint {
  address: ServiceAddress;
  transport: AddressTransport;
  /** Calls under way here. */
  active: number;
  /** Left the resolver's answer: closed once its calls under way have finished. */
  gone: boolean;
}

type UnaryNext = (request: UnaryRequest) => Promise<UnaryResponse>;

/** What is left of a call's deadline `timeoutMs` that began at `started`; none left is DEADLINE_EXCEEDED. */
function timeLeft(timeoutMs: number | undefined, started: number): number | undefined {
  if (timeoutMs === undefined) return undefined;
  const left = timeoutMs - (performance.now() - started);
  if (left <= 0) throw new ConnectError("the operation timed out", Code.DeadlineExceeded);
  return left;
}

export function createBalancedTransport(options: BalancerOptions): Transport & { close(): void } {
  const interceptors = options.interceptors ?? [];
  const log = options.log;
  const rotation = new AddressRotation({ now: options.now });
  const endpoints = new Map<string, Endpoint>();
  const targets = parseTargets(options.baseUrl);
  const named = targets.some((target) => !target.literal);
  const authority = targets[0]!.authority;
  let closed = false;

  const finished = (endpoint: Endpoint) => {
    if (--endpoint.active === 0 && endpoint.gone) endpoint.transport.close();
  };

  function eventsFor(key: string): AddressEvents {
    return {
      connected() {
        if (rotation.succeeded(key) && rotation.size > 1) {
          log?.info({ target: endpoints.get(key)?.address.authority, address: key }, "service address back in rotation");
        }
      },
      failed(reason) {
        const endpoint = endpoints.get(key);
        if (!endpoint) return;
        const { failures, backoffMs } = rotation.failed(key);
        // One line when it leaves, not one per failed probe; a lone address has no rotation to leave.
        if (failures === 1 && rotation.size > 1) {
          log?.warn({ target: endpoint.address.authority, address: key, reason, retryInMs: backoffMs }, "service address out of rotation");
        }
      },
    };
  }

  /** The rotation takes the addresses the base URL stands for now; a gone address drains. */
  function apply(addresses: ServiceAddress[]) {
    const byKey = new Map(addresses.map((address) => [address.key, address]));
    const { added, removed } = rotation.update(byKey.keys());
    for (const key of added) {
      const address = byKey.get(key)!;
      endpoints.set(key, { address, transport: options.dial(address, eventsFor(key)), active: 0, gone: false });
    }
    for (const key of removed) {
      const endpoint = endpoints.get(key)!;
      endpoints.delete(key);
      // Calls under way there finish; new ones go elsewhere.
      endpoint.gone = true;
      if (endpoint.active === 0) endpoint.transport.close();
    }
    if (named && (added.length > 0 || removed.length > 0)) {
      log?.info({ target: options.baseUrl, addresses: rotation.addresses, added, removed }, "service addresses changed");
    }
  }

  const resolver = createResolver({ ...options, onAddresses: apply });

  /** The next endpoint in rotation, other than `avoid` (undefined when there is none). */
  function pick(serviceName: string, avoid?: Endpoint): Endpoint | undefined {
    if (closed) throw new ConnectError("channel closed", Code.Unavailable);
    const key = rotation.pick(avoid?.address.key);
    if (key !== undefined) return endpoints.get(key);
    if (avoid) return undefined;
    throw new ConnectError(`${serviceName} is unreachable`, Code.Unavailable);
  }

  /** The innermost step: one address, and once more another if the first never saw the call. */
  const send =
    (timeoutMs: number | undefined, original: LazyRequest): UnaryNext =>
    async (request) => {
      const method = request.method;
      const serviceName = method.parent.typeName;
      // The request the caller made, untouched by interceptors, carries no Headers or
      // AbortSignal object unless somebody asked for one: most calls need neither.
      const unchanged = request === original.request;
      const attempt: UnaryAttempt = {
        method,
        message: request.message,
        header: unchanged ? original.headerIfAny() : request.header,
        signal: unchanged ? original.signalIfAny() : request.signal,
        contextValues: unchanged ? original.valuesIfAny() : request.contextValues,
        timeoutMs,
      };
      const started = timeoutMs !== undefined ? performance.now() : 0;
      if (!resolver.known(rotation.size)) {
        await resolver.lookUpForCall(timeoutMs);
        attempt.timeoutMs = timeLeft(timeoutMs, started);
      }
      const first = pick(serviceName)!;
      let answer: UnaryAnswer | undefined;
      let failure: unknown;
      // The first try inline: one async step less per call.
      first.active++;
      try {
        answer = await first.transport.unary(attempt);
      } catch (error) {
        // Only a call the server never saw is tried again, once, elsewhere: one that may
        // have reached it could be a write that happened (the caller decides, with its
        // idempotency key).
        if (!(error instanceof ConnectError && unsent.has(error))) throw error;
        failure = error;
      } finally {
        finished(first);
      }
      if (!answer) {
        const other = pick(serviceName, first);
        if (!other) throw failure;
        other.active++;
        try {
          answer = await other.transport.unary({ ...attempt, timeoutMs: timeLeft(timeoutMs, started) });
        } finally {
          finished(other);
        }
      }
      return { stream: false, service: method.parent, method, header: answer.header, trailer: answer.trailer, message: answer.message };
    };

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
      try {
        return (await next(lazy.request)) as unknown as UnaryResponse<I, O>;
      } catch (error) {
        throw ConnectError.from(error);
      }
    },
    async stream(...args) {
      if (!resolver.known(rotation.size)) await resolver.lookUpForCall(args[2]);
      return pick(args[0].parent.typeName)!.transport.stream(...args);
    },
    close() {
      closed = true;
      resolver.close();
      for (const endpoint of endpoints.values()) endpoint.transport.close();
    },
  };
}

interface LazyRequest {
  request: UnaryRequest;
  headerIfAny(): Headers | undefined;
  signalIfAny(): AbortSignal | undefined;
  valuesIfAny(): ContextValues | undefined;
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
    valuesIfAny: () => values,
  };
}
