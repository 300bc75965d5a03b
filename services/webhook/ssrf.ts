import { isIP } from "node:net";
import dns from "node:dns";
import ipaddr from "ipaddr.js";

/**
 * Why a webhook may not be sent to `address`, or `undefined` when it is a global
 * unicast address. The answer is named after ipaddr.js's range for it (`loopback`,
 * `private`, `linkLocal`, `deprecatedSiteLocal`, `reserved`…): anything that ipaddr.js
 * does not call plain `unicast` is refused, and for IPv6 so is anything outside the
 * global unicast block 2000::/3 (the IPv4-compatible ::/96 and everything IANA has
 * not allocated). Forms that carry an IPv4 address, and reach it, are decoded and
 * the IPv4 address judged instead (see carriedIPv4); local-use NAT64 is refused.
 */
export function refusedRange(address: string): string | undefined {
  const family = isIP(address);
  if (!family) return "not an IP address";
  const parsed = ipaddr.parse(family === 6 ? hexTail(address) : address);
  if (parsed.kind() === "ipv4") return ipv4Verdict(parsed as ipaddr.IPv4);
  return ipv6Verdict(parsed as ipaddr.IPv6);
}

/**
 * The IPv6 address with a dotted IPv4 tail spelled as two hex groups. ipaddr.js reads
 * "::a.b.c.d" as IPv4-mapped (::ffff:a.b.c.d), which would let the IPv4-compatible
 * "::8.8.8.8" (as the resolver prints it) pass for a mapped public address.
 */
function hexTail(address: string): string {
  return address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/, (_, a: string, b: string, c: string, d: string, zone = "") => {
    const group = (high: string, low: string) => ((Number(high) << 8) | Number(low)).toString(16);
    return `${group(a, b)}:${group(c, d)}${zone}`;
  });
}

function ipv4Verdict(address: ipaddr.IPv4): string | undefined {
  const range = address.range();
  return range === "unicast" ? undefined : range;
}

// The deprecated IPv4-compatible ::/96 and the rest of ::/8 fall outside this block.
const globalUnicast = ipaddr.parseCIDR("2000::/3") as [ipaddr.IPv6, number];
// The well-known NAT64 prefix, where the IPv4 address is always the last 32 bits.
const wellKnownNat64 = ipaddr.parseCIDR("64:ff9b::/96") as [ipaddr.IPv6, number];

function ipv6Verdict(address: ipaddr.IPv6): string | undefined {
  const range = address.range();
  const carried = carriedIPv4(address, range);
  if (carried === "unsound") return `${range} (where its IPv4 address sits is not knowable)`;
  if (carried) {
    const inner = carried.map(ipv4Verdict).find((verdict) => verdict !== undefined);
    return inner === undefined ? undefined : `${range} of ${inner}`;
  }
  if (range !== "unicast") return range;
  return address.match(globalUnicast) ? undefined : "outside 2000::/3";
}

/**
 * The IPv4 addresses a packet to this IPv6 address ends up at, for the forms that
 * carry one: IPv4-mapped (::ffff:a.b.c.d, which a dual-stack socket connects over
 * IPv4), IPv4-translated (::ffff:0:a.b.c.d), NAT64 under the well-known prefix
 * (64:ff9b::a.b.c.d), 6to4 (2002:AABB:CCDD::, through the 6to4 router at that
 * address) and Teredo (2001:0:SSSS:SSSS:…:CCCC:CCCC: the Teredo server and the
 * client's public address, stored inverted; both must be global). Local-use NAT64
 * (64:ff9b:1::/48) is "unsound": each network picks its own prefix length inside
 * that /48, so the IPv4 address may sit in any of several places.
 */
function carriedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] | "unsound" | undefined {
  const bytes = address.toByteArray();
  const v4 = (at: number, invert = false) => new ipaddr.IPv4(bytes.slice(at, at + 4).map((byte) => (invert ? byte ^ 0xff : byte)));
  switch (range) {
    case "ipv4Mapped":
    case "rfc6145":
      return [v4(12)];
    case "rfc6052":
      return address.match(wellKnownNat64) ? [v4(12)] : "unsound";
    case "6to4":
      return [v4(2)];
    case "teredo":
      return [v4(4), v4(12, true)];
    default:
      return undefined;
  }
}

export class RefusedDestination extends Error {}

/** dns.lookup's callback: one address and its family, or with `all` every address. */
type LookupCallback = (error: NodeJS.ErrnoException | null, address?: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses destinations that are not global
 * unicast. The check runs on the addresses the socket will actually use, so DNS
 * cannot answer differently between the check and the connection.
 */
export function guardedLookup(allowPrivate: boolean): typeof dns.lookup {
  return ((hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, list) => {
      if (error) return callback(error);
      for (const entry of allowPrivate ? [] : list) {
        const range = refusedRange(entry.address);
        if (range !== undefined) return callback(new RefusedDestination(`${hostname} resolves to ${entry.address}, a private or reserved address (${range})`));
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  }) as typeof dns.lookup;
}
