import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** The one bucket of everything that is not an IP address (a socket already gone has none). */
export const UNKNOWN_ADDRESS_KEY = 'unknown';

/**
 * The bucket a per-address limit counts a client address in (docs/security.md "Client address and
 * proxies"): an IPv4 address is its own bucket (`203.0.113.7/32`); an IPv6 address counts in its
 * /64 (`2001:db8:1:2::/64`), the smallest block a host or a home network is given, so one host
 * cannot walk through the 2^64 addresses of its own network to get a fresh limit for each. An
 * IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, as a dual-stack socket reports an IPv4 peer) is
 * that IPv4 address. A zone (`fe80::1%eth0`) is ignored. Anything else is `unknown`, one bucket for
 * all of it. Pure: the same text always gives the same key.
 */
export function addressKey(address: string): string {
  const text = address.trim();
  if (net.isIPv4(text)) return `${ipaddr.IPv4.parse(text).toString()}/32`;
  if (!net.isIPv6(text)) return UNKNOWN_ADDRESS_KEY;
  // Through the URL parser's canonical form first: ipaddr.js reads `::a.b.c.d` (IPv4-compatible, not
  // mapped) as `::ffff:a.b.c.d`; the URL parser writes the embedded IPv4 address as its two hex groups.
  const v6 = ipaddr.IPv6.parse(new URL(`http://[${text.replace(/%.*$/, '')}]/`).hostname.slice(1, -1));
  if (v6.isIPv4MappedAddress()) return `${v6.toIPv4Address().toString()}/32`;
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
