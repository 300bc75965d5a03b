import http2 from "node:http2";
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type DescService,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type ConnectRouter,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import {
  declaredLength,
  DEFAULT_READ_MAX_BYTES,
  encodeGrpcMessage,
  frame,
  GRPC_CONTENT_TYPES,
  headersToObject,
  parseGrpcTimeout,
  toHeaders,
  unframe,
  wellFormedError,
} from "./wire.js";

type UnaryImpl = (request: unknown, context: HandlerContext) => unknown;
type UnaryNext = (request: UnaryRequest) => Promise<UnaryResponse>;

export interface UnaryRoute {
  method: DescMethodUnary;
  impl: UnaryImpl;
}

export interface LeanServerOptions {
  /** Connect interceptors, outermost first, exactly as given to connectNodeAdapter. */
  interceptors?: Interceptor[];
  /** Largest request message accepted; a larger one is RESOURCE_EXHAUSTED (default 4 MiB). */
  readMaxBytes?: number;
}

/** The unary methods that `routes` registers, by HTTP path, with their implementations. */
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
 * A handler for raw HTTP/2 streams that answers unary gRPC calls with binary protobuf
 * and no compression (every call the internal clients and grpc-js make) and returns
 * false for anything else, so the caller hands that stream to Connect. See README.md.
 */
export function createLeanUnaryHandler(routes: (router: ConnectRouter) => void, options: LeanServerOptions = {}) {
  const table = collectUnaryRoutes(routes);
  const readMaxBytes = options.readMaxBytes ?? DEFAULT_READ_MAX_BYTES;
  const interceptors = options.interceptors ?? [];

  // The innermost step of every call: the handler itself, with a context built from
  // whatever request the interceptors passed on.
  const callHandler = (route: UnaryRoute, call: CallState): UnaryNext => async (request) => {
    const context = call.context(request);
    const result = await route.impl(request.message, context);
    const message = create(route.method.output, result as MessageInitShape<DescMessage>);
    return call.response(route.method, message);
  };

  return (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): boolean => {
    const route = table.get(headers[":path"] ?? "");
    const contentType = headers["content-type"];
    const encoding = headers["grpc-encoding"];
    if (!route || headers[":method"] !== "POST" || !contentType || !GRPC_CONTENT_TYPES.has(contentType) || (encoding && encoding !== "identity")) {
      return false;
    }
    const call = new CallState(route.method, stream, headers, contentType);
    const chunks: Buffer[] = [];
    let received = 0;
    const tooLarge = () => call.fail(new ConnectError(`message larger than ${readMaxBytes} bytes`, Code.ResourceExhausted));
    stream.on("data", (chunk: Buffer) => {
      if (call.answered) return;
      chunks.push(chunk);
      received += chunk.length;
      const length = declaredLength(chunks, received);
      if (received > readMaxBytes + 5 || (length !== undefined && length > readMaxBytes)) {
        chunks.length = 0;
        tooLarge();
      }
    });
    stream.on("error", () => {});
    stream.once("end", () => {
      if (call.answered) return;
      const bytes = unframe(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      if (!bytes) return call.fail(new ConnectError("request must be one uncompressed message", Code.InvalidArgument));
      let message: MessageShape<DescMessage>;
      try {
        message = fromBinary(route.method.input, bytes);
      } catch {
        return call.fail(new ConnectError("request is not a valid message", Code.InvalidArgument));
      }
      const request: UnaryRequest = call.request(message);
      let next = callHandler(route, call);
      for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i]!(next as never) as UnaryNext;
      next(request).then(
        (response) => call.succeed(response),
        (error) => call.fail(ConnectError.from(error)),
      );
    });
    return true;
  };
}

/**
 * Puts the lean path in front of the `stream` listeners an HTTP/2 server already has
 * (Connect's, from connectNodeAdapter): unary binary gRPC is answered here, every
 * other stream goes on to them unchanged. `bypass()` true sends everything on (while
 * shutting down, say, so Connect's own handling of a closing server applies).
 */
export function installLeanUnaryPath(
  server: http2.Http2Server,
  routes: (router: ConnectRouter) => void,
  options: LeanServerOptions & { bypass?: () => boolean } = {},
): void {
  const lean = createLeanUnaryHandler(routes, options);
  const others = server.listeners("stream") as ((...args: unknown[]) => void)[];
  server.removeAllListeners("stream");
  server.on("stream", function (this: unknown, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, ...rest: unknown[]) {
    if (options.bypass?.() || !lean(stream, headers)) {
      for (const listener of others) listener.call(this, stream, headers, ...rest);
    }
  });
}

/** One call's state: its deadline, its cancellation, and the single answer it may send. */
class CallState {
  answered = false;
  private controller: AbortController | undefined;
  private abortedWith: ConnectError | undefined;
  private requestHeader: Headers | undefined;
  private responseHeader: Headers | undefined;
  private responseTrailer: Headers | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly deadline: number | undefined;

  constructor(
    private readonly method: DescMethodUnary,
    private readonly stream: http2.ServerHttp2Stream,
    private readonly headers: http2.IncomingHttpHeaders,
    private readonly contentType: string,
  ) {
    const timeoutMs = parseGrpcTimeout(headers["grpc-timeout"] as string | undefined);
    if (timeoutMs !== undefined) {
      this.deadline = Date.now() + timeoutMs;
      // Past the deadline the client has given up: stop the handler and say so.
      this.timer = setTimeout(() => {
        const error = new ConnectError("the operation timed out", Code.DeadlineExceeded);
        this.abort(error);
        this.fail(error);
      }, timeoutMs);
    }
  }

  /** Set once a handler holds the signal: the client resetting the stream aborts it. */
  private watchCancellation() {
    this.stream.once("close", () => {
      if (!this.answered) {
        this.answered = true;
        clearTimeout(this.timer);
        this.abort(new ConnectError("the client cancelled the call", Code.Canceled));
      }
    });
  }

  private abort(reason: ConnectError) {
    this.abortedWith ??= reason;
    this.controller?.abort(reason);
  }

  private signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith);
      else if (this.stream.closed || this.stream.destroyed) this.abort(new ConnectError("the client cancelled the call", Code.Canceled));
      else this.watchCancellation();
    }
    return this.controller.signal;
  }

  private header(): Headers {
    return (this.requestHeader ??= toHeaders(this.headers));
  }

  request(message: MessageShape<DescMessage>): UnaryRequest {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below have the object they build as `this`
    const call = this;
    let values: ContextValues | undefined;
    return {
      stream: false,
      service: this.method.parent,
      method: this.method,
      requestMethod: "POST",
      url: String(this.headers[":path"]),
      message,
      get signal() {
        return call.signal();
      },
      get header() {
        return call.header();
      },
      get contextValues() {
        return (values ??= createContextValues());
      },
    };
  }

  /** The HandlerContext for the request the interceptors passed on; costly parts on demand. */
  context(request: UnaryRequest): HandlerContext {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below have the object they build as `this`
    const call = this;
    return {
      method: this.method,
      service: this.method.parent,
      requestMethod: "POST",
      protocolName: "grpc",
      url: request.url,
      peer: { addr: this.stream.session?.socket?.remoteAddress ?? "" },
      timeoutMs: () => (call.deadline === undefined ? undefined : call.deadline - Date.now()),
      get signal() {
        return request.signal;
      },
      get requestHeader() {
        return request.header;
      },
      get responseHeader() {
        return (call.responseHeader ??= new Headers());
      },
      get responseTrailer() {
        return (call.responseTrailer ??= new Headers());
      },
      get values() {
        return request.contextValues;
      },
    } as HandlerContext;
  }

  response(method: DescMethodUnary, message: MessageShape<DescMessage>): UnaryResponse {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below have the object they build as `this`
    const call = this;
    return {
      stream: false,
      service: method.parent,
      method,
      message,
      get header() {
        return (call.responseHeader ??= new Headers());
      },
      get trailer() {
        return (call.responseTrailer ??= new Headers());
      },
    };
  }

  succeed(response: UnaryResponse) {
    if (this.answered) return;
    let output: Uint8Array;
    try {
      output = toBinary(this.method.output, response.message);
    } catch (error) {
      return this.fail(ConnectError.from(error, Code.Internal));
    }
    this.answered = true;
    clearTimeout(this.timer);
    if (this.stream.destroyed || this.stream.closed) return;
    try {
      const head = headersToObject(this.responseHeader ?? new Headers(), { ":status": "200", "content-type": this.contentType, "grpc-accept-encoding": "identity" });
      const trailer = headersToObject(setTrailerStatus(this.responseTrailer ?? new Headers(), undefined));
      this.stream.respond(head, { waitForTrailers: true });
      this.stream.once("wantTrailers", () => this.stream.sendTrailers(trailer));
      this.stream.end(frame(output));
    } catch {
      // A header the handler set that HTTP/2 will not carry: fail this call only.
      if (!this.stream.destroyed) this.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    }
  }

  fail(error: ConnectError) {
    if (this.answered) return;
    error = wellFormedError(error);
    this.answered = true;
    clearTimeout(this.timer);
    if (this.stream.destroyed || this.stream.closed) return;
    try {
      // "Trailers-only": the status and anything the handler set travel in one block.
      const block = headersToObject(this.responseHeader ?? new Headers(), { ":status": "200", "content-type": this.contentType });
      headersToObject(setTrailerStatus(this.responseTrailer ?? new Headers(), error), block);
      block["grpc-message"] = encodeGrpcMessage(error.rawMessage);
      this.stream.respond(block, { endStream: true });
      // Stop a client still sending (an oversized body): the answer is already on its way.
      if (!this.stream.readableEnded) this.stream.close(http2.constants.NGHTTP2_NO_ERROR);
    } catch {
      if (!this.stream.destroyed) this.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    }
  }
}
