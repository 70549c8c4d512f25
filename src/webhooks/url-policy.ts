import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Environment } from '../domain/environment';
import { createDnsResolver, type Resolver } from './dns-resolver';

export type { Resolver } from './dns-resolver';

/** Which webhook URLs an environment accepts and which addresses its sends may reach. */
export interface UrlPolicy {
  environment: Environment;
  /** Exact host names (lowercase, as in URL.hostname without brackets) exempt from the public-address rule; sandbox only. */
  allowPrivateHosts: readonly string[];
  /** Lets exempt hosts use http:// ; sandbox only. */
  allowHttp: boolean;
}

/**
 * The default resolver of webhook hosts: DNS through c-ares with the default timeout (dns-resolver.ts),
 * holding no thread-pool thread; `localhost` names are loopback without a query.
 */
export const systemResolver: Resolver = createDnsResolver();

/** A webhook URL or address refused by the SSRF rules; the message is meant for the merchant and names no secret. */
export class UnsafeUrlError extends Error {
  override name = 'UnsafeUrlError';
}

const MAX_URL_LENGTH = 2048;

/** Live sends go only to these ports and to 1024 and above (no SMTP, SSH, database or other well-known service ports). */
const LIVE_LOW_PORTS: readonly number[] = [443, 8443];
export const LIVE_PORT_RULE = 'port 443, 8443 or 1024 and above';

/** Whether the policy lets a send reach `port`: any port in the sandbox; in live 443, 8443 and 1024 and up. */
export function allowedPort(policy: UrlPolicy, port: number): boolean {
  if (policy.environment !== 'live') return true;
  return LIVE_LOW_PORTS.includes(port) || (port >= 1024 && port <= 65535);
}

/** The port a URL reaches (its scheme's default when it names none). */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'http:' ? 80 : 443;
}

/** Global unicast IPv6 (RFC 4291): everything else (IPv4-compatible ::/96, site-local fec0::/10, 5f00::/16 ...) is refused. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
/** IPv6 documentation prefix of RFC 9637, which ipaddr.js 2.3.0 still calls unicast. */
const DOCUMENTATION_V6 = ipaddr.IPv6.parseCIDR('3fff::/20');

/**
 * True only for globally routable unicast addresses (IPv4 or IPv6, brackets allowed). ipaddr.js names the
 * special ranges (private, loopback, link-local, CGNAT, multicast, reserved/documentation, 0.0.0.0/8, unique-local,
 * 6to4, Teredo, NAT64 ...); IPv4-mapped IPv6 is judged by its IPv4. Anything that is not a plain address is false.
 */
export function isPublicAddress(ip: string): boolean {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (net.isIP(text) === 0 || text.includes('%')) return false;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(text);
  } catch {
    return false;
  }
  if (address instanceof ipaddr.IPv6) {
    if (address.isIPv4MappedAddress()) return address.toIPv4Address().range() === 'unicast';
    if (!address.match(GLOBAL_UNICAST_V6) || address.match(DOCUMENTATION_V6)) return false;
  }
  return address.range() === 'unicast';
}

function bare(hostname: string): string {
  const host = hostname.toLowerCase();
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The exemptions of the policy that actually apply: none in live. */
export function exemptHost(policy: UrlPolicy, hostname: string): boolean {
  if (policy.environment !== 'sandbox') return false;
  const host = bare(hostname);
  return host !== '' && policy.allowPrivateHosts.some((allowed) => bare(allowed) === host);
}

/** True when the URL host (as URL.hostname gives it) is an IP literal rather than a name. */
function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || net.isIPv4(hostname);
}

function parse(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH) throw new UnsafeUrlError(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('the URL is not a valid absolute URL');
  }
  if (url.href.length > MAX_URL_LENGTH) throw new UnsafeUrlError(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  return url;
}

async function resolveAll(hostname: string, resolve: Resolver): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await resolve(hostname);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw new UnsafeUrlError(`the host ${hostname} does not resolve to any address`);
  return addresses;
}

/**
 * Registration-time check of a webhook URL; returns the normalised URL (url.href). WHATWG parsing normalises
 * decimal, octal and hex IPv4 forms first. Refused with UnsafeUrlError: unparsable URLs, schemes other than https
 * (http only for an exempt sandbox host when the policy allows it), credentials in the URL, an empty host, URLs over
 * 2048 characters, IP literals that are not public, names that do not resolve or resolve to ANY non-public address, and
 * in live a port other than 443, 8443 or 1024 and up.
 */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy, resolve: Resolver = systemResolver): Promise<string> {
  const url = parse(raw);
  const exempt = exemptHost(policy, url.hostname);
  if (url.protocol === 'http:') {
    if (!(exempt && policy.allowHttp)) throw new UnsafeUrlError('the URL must use https');
  } else if (url.protocol !== 'https:') {
    throw new UnsafeUrlError('the URL must use https');
  }
  if (url.username !== '' || url.password !== '') throw new UnsafeUrlError('the URL must not contain a user name or password');
  if (url.hostname === '') throw new UnsafeUrlError('the URL has no host');
  if (!allowedPort(policy, portOf(url))) throw new UnsafeUrlError(`live webhook URLs must use ${LIVE_PORT_RULE}`);
  if (exempt) return url.href;
  if (isIpLiteral(url.hostname)) {
    if (!isPublicAddress(url.hostname)) throw new UnsafeUrlError(`the address ${url.hostname} is not a public internet address`);
    return url.href;
  }
  const addresses = await resolveAll(url.hostname, resolve);
  if (!addresses.every(isPublicAddress)) {
    throw new UnsafeUrlError(`the host ${url.hostname} resolves to an address that is not a public internet address`);
  }
  return url.href;
}
