// Which destinations the SSRF guard refuses: everything but global unicast addresses,
// in IPv4 and IPv6. Forms that carry an IPv4 address (mapped, translated, NAT64,
// 6to4, Teredo) are judged by that address; local-use NAT64, IPv4-compatible and
// site-local addresses are refused outright. No I/O: a literal address is refused
// before any connection.
import test from "ava";
import { refusedRange } from "../../services/webhook/ssrf.js";
import { sendWebhook } from "../../services/webhook/sender.js";

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
  ["100.127.255.254", "CGNAT, top"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "this network 0/8"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast, SSDP"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["198.18.0.1", "benchmarking 198.18/15"],
  ["192.0.0.8", "IETF protocol assignments"],
  ["192.0.2.10", "documentation TEST-NET-1"],
  ["198.51.100.7", "documentation TEST-NET-2"],
  ["203.0.113.9", "documentation TEST-NET-3"],
  ["192.88.99.1", "6to4 relay anycast"],
  ["::1", "IPv6 loopback"],
  ["::", "IPv6 unspecified"],
  ["fc00::1", "unique local fc00::/7"],
  ["fd12:3456:789a::1", "unique local fd00::/8"],
  ["fe80::1", "IPv6 link-local"],
  ["fe80::1%eth0", "IPv6 link-local with a zone"],
  ["febf:ffff::1", "IPv6 link-local, top of fe80::/10"],
  ["fec0::1", "site-local fec0::/10 (deprecated, still routed inside some networks)"],
  ["feff:ffff::1", "site-local, top"],
  ["ff02::1", "IPv6 multicast"],
  ["ff0e::1", "IPv6 multicast, global scope"],
  ["100::1", "discard-only 100::/64"],
  ["2001:db8::1", "IPv6 documentation"],
  ["3fff::1", "IPv6 documentation 3fff::/20"],
  ["2001:2::1", "IPv6 benchmarking"],
  ["2001:10::1", "ORCHID"],
  ["5f00::1", "segment routing SIDs"],
  ["4000::1", "outside 2000::/3, unallocated"],
  ["::ffff:127.0.0.1", "IPv4-mapped loopback, dotted"],
  ["::FFFF:10.1.2.3", "IPv4-mapped private, upper case"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex (as URL hostnames write it)"],
  ["::ffff:a9fe:a9fe", "IPv4-mapped 169.254.169.254, hex"],
  ["::7f00:1", "IPv4-compatible loopback (deprecated ::/96), hex"],
  ["::127.0.0.1", "IPv4-compatible loopback, dotted"],
  ["::a9fe:a9fe", "IPv4-compatible 169.254.169.254"],
  ["::8.8.8.8", "IPv4-compatible, even of a public address: not global unicast"],
  ["::ffff:0:7f00:1", "IPv4-translated loopback (::ffff:0:0/96), hex"],
  ["::ffff:0:10.0.0.1", "IPv4-translated private, dotted"],
  ["0:0:0:0:ffff:0:a9fe:a9fe", "IPv4-translated 169.254.169.254, written out"],
  ["64:ff9b::7f00:1", "NAT64 (well-known prefix) of loopback"],
  ["64:ff9b::169.254.169.254", "NAT64 (well-known prefix) of cloud metadata, dotted"],
  ["64:ff9b::a00:1", "NAT64 (well-known prefix) of 10.0.0.1"],
  ["64:ff9b:1::a9fe:a9fe", "local-use NAT64 64:ff9b:1::/48, metadata in the last 32 bits"],
  ["64:ff9b:1:a9fe:a9:fe00::", "local-use NAT64, metadata where a /40 prefix puts it"],
  ["64:ff9b:1::808:808", "local-use NAT64 of a public address: the prefix length is not knowable"],
  ["2002:7f00:1::", "6to4 of loopback"],
  ["2002:a9fe:a9fe::1", "6to4 of 169.254.169.254"],
  ["2002:c0a8:101::1", "6to4 of 192.168.1.1"],
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo whose client is 127.0.0.1 (stored inverted)"],
  ["2001:0:4136:e378:8000:63bf:5601:5601", "Teredo whose client is 169.254.169.254 (stored inverted)"],
  ["2001:0:a00:1:8000:63bf:f7f7:f7f7", "Teredo whose server is 10.0.0.1"],
  ["2001::1", "Teredo with a server of 0.0.0.0"],
  ["localhost", "not an address at all"],
  ["", "empty"],
  ["999.1.1.1", "not an address"],
];

const allowed: [string, string][] = [
  ["8.8.8.8", "public IPv4"],
  ["1.1.1.1", "public IPv4"],
  ["172.32.0.1", "just above 172.16/12"],
  ["172.15.255.255", "just below 172.16/12"],
  ["100.128.0.1", "just above CGNAT"],
  ["100.63.255.255", "just below CGNAT"],
  ["169.255.0.1", "just above link-local"],
  ["11.0.0.1", "just above 10/8"],
  ["223.255.255.254", "just below multicast"],
  ["2001:4860:4860::8888", "public IPv6"],
  ["2606:4700:4700::1111", "public IPv6"],
  ["2a00:1450:4001:80b::200e", "public IPv6"],
  ["::ffff:8.8.8.8", "IPv4-mapped public, dotted"],
  ["::ffff:808:808", "IPv4-mapped public, hex"],
  ["::ffff:0:808:808", "IPv4-translated public"],
  ["64:ff9b::808:808", "NAT64 (well-known prefix) of a public IPv4, as DNS64 answers"],
  ["64:ff9b::1.1.1.1", "NAT64 (well-known prefix) of a public IPv4, dotted"],
  ["2002:808:808::1", "6to4 of a public IPv4"],
  ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "Teredo: server 65.54.227.120, client 8.8.8.8"],
];

for (const [address, what] of refused) {
  test(`refused: ${address || "(empty)"} — ${what}`, (t) => {
    t.not(refusedRange(address), undefined);
  });
}

for (const [address, what] of allowed) {
  test(`allowed: ${address} — ${what}`, (t) => {
    t.is(refusedRange(address), undefined);
  });
}

test("a refusal names the range, and for a carried IPv4 address the range inside", (t) => {
  t.is(refusedRange("fec0::1"), "deprecatedSiteLocal");
  t.is(refusedRange("169.254.169.254"), "linkLocal");
  t.is(refusedRange("2002:a9fe:a9fe::1"), "6to4 of linkLocal");
  t.regex(refusedRange("64:ff9b:1::808:808") ?? "", /^rfc6052 /);
});

test("sendWebhook refuses a literal non-global destination before connecting, unless private destinations are allowed", async (t) => {
  const options = { allowHttp: true, allowPrivate: false, timeoutMs: 2_000 };
  for (const host of ["[fec0::1]", "[64:ff9b:1::a9fe:a9fe]", "[2001:0:4136:e378:8000:63bf:5601:5601]", "[2002:a9fe:a9fe::1]", "[::ffff:a9fe:a9fe]", "169.254.169.254"]) {
    const sent = await sendWebhook(`https://${host}/hooks/T0K3N`, {}, "{}", options);
    t.is(sent.result, "refused", host);
    t.regex(sent.error ?? "", /private or reserved address/, host);
  }
  // Allowed, the same destination is tried (and fails to connect in the test's time).
  const tried = await sendWebhook("http://[fec0::1]:9/hooks", {}, "{}", { ...options, allowPrivate: true, timeoutMs: 200 });
  t.not(tried.result, "refused");
});
