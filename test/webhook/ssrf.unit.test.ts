// Which destinations the SSRF guard refuses (CONTRACT §6): loopback, private,
// link-local, CGNAT, unspecified, multicast and reserved addresses, in IPv4 and IPv6,
// including every IPv6 form that carries an IPv4 address (mapped, translated,
// compatible, 6to4) in either notation. Pure function, no I/O.
import test from "ava";
import { isPrivateAddress } from "../../services/webhook/ssrf.js";

const refused: [string, string][] = [
  ["127.0.0.1", "IPv4 loopback"],
  ["127.255.255.254", "IPv4 loopback, whole /8"],
  ["10.0.0.1", "private 10/8"],
  ["10.255.255.255", "private 10/8, top"],
  ["172.16.0.1", "private 172.16/12"],
  ["172.31.255.255", "private 172.16/12, top"],
  ["192.168.1.1", "private 192.168/16"],
  ["169.254.169.254", "link-local (cloud metadata)"],
  ["100.64.0.1", "CGNAT 100.64/10"],
  ["0.0.0.0", "unspecified"],
  ["224.0.0.1", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["198.18.0.1", "benchmarking 198.18/15"],
  ["192.0.0.8", "IETF protocol assignments"],
  ["::1", "IPv6 loopback"],
  ["::", "IPv6 unspecified"],
  ["fc00::1", "unique local fc00::/7"],
  ["fd12:3456:789a::1", "unique local fd00::/8"],
  ["fe80::1", "IPv6 link-local"],
  ["febf:ffff::1", "IPv6 link-local, top of fe80::/10"],
  ["ff02::1", "IPv6 multicast"],
  ["::ffff:127.0.0.1", "IPv4-mapped loopback, dotted"],
  ["::FFFF:10.1.2.3", "IPv4-mapped private, upper case"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex (as URL hostnames write it)"],
  ["::ffff:a9fe:a9fe", "IPv4-mapped 169.254.169.254, hex"],
  ["64:ff9b::7f00:1", "NAT64 of loopback"],
  ["::7f00:1", "IPv4-compatible loopback (deprecated ::/96), hex"],
  ["::127.0.0.1", "IPv4-compatible loopback, dotted"],
  ["::a9fe:a9fe", "IPv4-compatible 169.254.169.254"],
  ["::ffff:0:7f00:1", "IPv4-translated loopback (::ffff:0:0/96), hex"],
  ["::ffff:0:10.0.0.1", "IPv4-translated private, dotted"],
  ["0:0:0:0:ffff:0:a9fe:a9fe", "IPv4-translated 169.254.169.254, written out"],
  ["2002:7f00:1::", "6to4 of loopback"],
  ["2002:a9fe:a9fe::1", "6to4 of 169.254.169.254"],
  ["localhost", "not an address at all"],
  ["", "empty"],
];

const allowed: [string, string][] = [
  ["8.8.8.8", "public IPv4"],
  ["1.1.1.1", "public IPv4"],
  ["172.32.0.1", "just above 172.16/12"],
  ["172.15.255.255", "just below 172.16/12"],
  ["100.128.0.1", "just above CGNAT"],
  ["169.255.0.1", "just above link-local"],
  ["11.0.0.1", "just above 10/8"],
  ["2001:4860:4860::8888", "public IPv6"],
  ["2606:4700:4700::1111", "public IPv6"],
  ["fec0::1", "just above fe80::/10"],
  ["::ffff:8.8.8.8", "IPv4-mapped public, dotted"],
  ["::ffff:808:808", "IPv4-mapped public, hex"],
  ["::ffff:0:808:808", "IPv4-translated public"],
  ["2002:808:808::1", "6to4 of a public IPv4"],
];

for (const [address, what] of refused) {
  test(`refused: ${address || "(empty)"} — ${what}`, (t) => {
    t.true(isPrivateAddress(address));
  });
}

for (const [address, what] of allowed) {
  test(`allowed: ${address} — ${what}`, (t) => {
    t.false(isPrivateAddress(address));
  });
}
