import { BlockList, isIP } from "node:net";
import dns from "node:dns";

// Destinations a webhook must never reach unless configuration allows private ones:
// loopback, private, link-local (cloud metadata lives there), CGNAT, unspecified,
// multicast and reserved ranges, in IPv4 and IPv6 (including v4-mapped addresses).
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

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, "ipv4");
    return blocked.check(address, "ipv6");
  }
  return true; // not an address at all: refuse
}

export class RefusedDestination extends Error {}

/**
 * A `lookup` for http(s).request that refuses private destinations. The check runs
 * on the addresses the socket will actually use, so DNS cannot answer differently
 * between the check and the connection.
 */
export function guardedLookup(allowPrivate: boolean): typeof dns.lookup {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((entry) => !allowPrivate && isPrivateAddress(entry.address));
      if (bad) return callback(new RefusedDestination(`${hostname} resolves to a private address (${bad.address})`));
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  }) as typeof dns.lookup;
}
