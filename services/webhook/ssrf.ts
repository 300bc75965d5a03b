import { BlockList, isIP } from "node:net";
import dns from "node:dns";
import ipaddr from "ipaddr.js";

// Destinations a webhook must never reach unless configuration allows private ones:
// loopback, private, link-local (cloud metadata lives there), CGNAT, unspecified,
// multicast and reserved ranges, in IPv4 and IPv6, including every IPv6 form that
// carries an IPv4 address (see embeddedIPv4).
const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const) {
  blocked.addSubnet(net, prefix, "ipv6");
}

/**
 * The IPv4 address an IPv6 one stands for, in the forms that reach it: v4-mapped
 * (::ffff:a.b.c.d, in hex or dotted), v4-translated (::ffff:0:a.b.c.d), the deprecated
 * v4-compatible (::a.b.c.d, so ::7f00:1 is 127.0.0.1) and 6to4 (2002:AABB:CCDD::).
 * Checking the address inside closes every spelling of a blocked IPv4 at once.
 */
function embeddedIPv4(address: string): string | undefined {
  let bytes: number[];
  try {
    bytes = ipaddr.IPv6.parse(address).toByteArray();
  } catch {
    return undefined;
  }
  const zero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const v4 = (at: number) => bytes.slice(at, at + 4).join(".");
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12);
  if (zero(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(10, 12)) return v4(12);
  if (zero(0, 12)) return v4(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2);
  return undefined;
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const inner = embeddedIPv4(address);
    if (inner !== undefined && blocked.check(inner, "ipv4")) return true;
    return blocked.check(address, "ipv6");
  }
  return true; // not an address at all: refuse
}

export class RefusedDestination extends Error {}

/** dns.lookup's callback: one address and its family, or with `all` every address. */
type LookupCallback = (error: NodeJS.ErrnoException | null, address?: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses private destinations. The check runs
 * on the addresses the socket will actually use, so DNS cannot answer differently
 * between the check and the connection.
 */
export function guardedLookup(allowPrivate: boolean): typeof dns.lookup {
  return ((hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, list) => {
      if (error) return callback(error);
      const bad = list.find((entry) => !allowPrivate && isPrivateAddress(entry.address));
      if (bad) return callback(new RefusedDestination(`${hostname} resolves to a private address (${bad.address})`));
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  }) as typeof dns.lookup;
}
