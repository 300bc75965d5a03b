// The client address behind reverse proxies (docs/security.md#client-address, TRUST_PROXY): the peer, or,
// when the peer is a trusted proxy, the right-most X-Forwarded-For entry that is not
// one. Pure: requests are plain objects with a peer and headers.
import test from "ava";
import type { IncomingMessage } from "node:http";
import { clientAddressOf } from "../../gateway/client-address.js";

const request = (peer: string | undefined, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } }) as unknown as IncomingMessage;

const behind = clientAddressOf(["10.0.0.0/8", "fd00::/8"]);

test("with no trusted proxy the header is ignored: the peer is the client", (t) => {
  const none = clientAddressOf([]);
  t.is(none(request("203.0.113.5", "198.51.100.1")), "203.0.113.5");
  t.is(none(request("10.0.0.2", "198.51.100.1")), "10.0.0.2");
});

test("a trusted peer's X-Forwarded-For names the client", (t) => {
  t.is(behind(request("10.0.0.2", "203.0.113.5")), "203.0.113.5");
  t.is(behind(request("fd00::2", "2001:db8::7")), "2001:db8::7");
  t.is(behind(request("::ffff:10.0.0.2", "203.0.113.5")), "203.0.113.5", "an IPv4 peer on a dual-stack socket");
});

test("the right-most untrusted entry wins: whatever a client prepends is not believed", (t) => {
  t.is(behind(request("10.0.0.2", "198.51.100.1, 203.0.113.5")), "203.0.113.5");
  t.is(behind(request("10.0.0.2", "198.51.100.1, 203.0.113.5, 10.0.0.3")), "203.0.113.5", "a chain of trusted proxies is walked through");
  t.is(behind(request("10.0.0.2", "198.51.100.1,203.0.113.5,   10.0.0.3")), "203.0.113.5");
});

test("an untrusted peer's header is ignored, however it is spelled", (t) => {
  t.is(behind(request("203.0.113.9", "10.0.0.5")), "203.0.113.9");
  t.is(behind(request("203.0.113.9", "198.51.100.1, 10.0.0.5")), "203.0.113.9");
});

test("a trusted peer with no header, only trusted entries or junk", (t) => {
  t.is(behind(request("10.0.0.2")), "10.0.0.2");
  t.is(behind(request("10.0.0.2", "10.0.0.9")), "10.0.0.9", "every hop trusted: the farthest one");
  t.is(behind(request("10.0.0.2", "not-an-address")), "10.0.0.2", "junk is never a client address");
  t.is(behind(request(undefined, "203.0.113.5")), "", "a socket already closed has no address");
});
