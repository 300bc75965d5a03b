// The client address (docs/security.md#client-address): the socket's peer, or, when that peer is one of
// the reverse proxies in TRUST_PROXY, the right-most X-Forwarded-For entry that is not
// one of them. Every per-address limit (failed authentication, dashboard sign-in,
// password resets) and the request log read it as ctx.ip. proxy-addr (Express's own
// implementation) walks the header from the right, so a client can prepend whatever it
// likes and still be seen as itself; from an untrusted peer the header is ignored.
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import proxyaddr from "proxy-addr";
import type { Middleware } from "koa";

/** The address a request comes from, given the trusted proxies' CIDRs (empty: trust none). */
export function clientAddressOf(trustedProxies: readonly string[]): (request: IncomingMessage) => string {
  if (trustedProxies.length === 0) return (request) => request.socket.remoteAddress ?? "";
  const trust = proxyaddr.compile([...trustedProxies]);
  return (request) => {
    const peer = request.socket.remoteAddress;
    // A socket already closed has no peer; proxy-addr would throw on it.
    if (!peer) return "";
    const address = proxyaddr(request, trust);
    // Only a trusted proxy's own entries are believed, and it writes addresses: junk
    // there means a misconfigured proxy, and the proxy is all we can name.
    return isIP(address) ? address : peer;
  };
}

/** Sets ctx.ip to the client address before anything reads it. */
export function clientAddress(trustedProxies: readonly string[]): Middleware {
  const resolve = clientAddressOf(trustedProxies);
  return async (ctx, next) => {
    ctx.request.ip = resolve(ctx.req);
    await next();
  };
}
