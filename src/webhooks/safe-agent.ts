import net from 'node:net';
import { Agent, buildConnector } from 'undici';
import { createDnsResolver, createLookupResolver, DEFAULT_DNS_TIMEOUT_MS, withinDeadline, type Resolver } from './dns-resolver';
import { allowedPort, exemptHost, isPublicAddress, LIVE_PORT_RULE, UnsafeUrlError, type UrlPolicy } from './url-policy';

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** What was refused and why, for the server's log only: it may name internal addresses. */
export interface RefusalDetail {
  host: string;
  /** The address that is not public (a resolved one, or the literal). */
  address?: string;
  port?: number;
}

/**
 * A send refused at connect time: the host is (or resolves to) an address that is not public, or a
 * live port outside the allowed ones. The message is shown to the merchant and names no resolved
 * address; `detail` is for the server's log.
 */
export class UnsafeAddressError extends UnsafeUrlError {
  override name = 'UnsafeAddressError';
  constructor(
    message: string,
    readonly detail: RefusalDetail,
  ) {
    super(message);
  }
}

/** The message a merchant sees for a host that resolves (in part) to a non-public address. */
export const NOT_PUBLIC_MESSAGE = 'the host does not resolve to a public internet address; webhook sends to it are refused';

async function resolveWithin(hostname: string, resolve: Resolver, timeoutMs: number): Promise<string[]> {
  const addresses = await withinDeadline(hostname, timeoutMs, resolve(hostname));
  if (addresses.length === 0) throw new Error(`the host ${hostname} does not resolve to any address`);
  return addresses;
}

interface Resolvers {
  /** Every host not exempt under the policy (c-ares unless a test gives one). */
  resolve: Resolver;
  /** The sandbox's exempt hosts (getaddrinfo, so /etc/hosts, unless a test gives one). */
  resolveExempt: Resolver;
  timeoutMs: number;
}

/** The addresses a connection to `hostname` may use, every one of them checked unless the host is exempt. */
async function checkedAddresses(hostname: string, policy: UrlPolicy, resolvers: Resolvers): Promise<string[]> {
  // undici hands IPv6 literals over in brackets ([2001:db8::1]).
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const literal = net.isIP(host) !== 0;
  const exempt = exemptHost(policy, host);
  if (literal) {
    if (exempt || isPublicAddress(host)) return [host];
    throw new UnsafeAddressError(`the address ${host} is not a public internet address; webhook sends to it are refused`, { host, address: host });
  }
  const addresses = await resolveWithin(host, exempt ? resolvers.resolveExempt : resolvers.resolve, resolvers.timeoutMs);
  if (exempt) return addresses;
  const refused = addresses.find((address) => !isPublicAddress(address));
  if (refused !== undefined) throw new UnsafeAddressError(NOT_PUBLIC_MESSAGE, { host, address: refused });
  return addresses;
}

/** The port undici connects to: the URL's, else the scheme's default. */
function connectPort(opts: { port?: string | number; protocol?: string }): number {
  if (opts.port !== undefined && opts.port !== '') return Number(opts.port);
  return opts.protocol === 'http:' ? 80 : 443;
}

export interface SafeAgentOptions {
  /** DNS for every host (tests); by default c-ares for hosts the policy does not exempt and getaddrinfo for exempt ones. */
  resolve?: Resolver;
  connectTimeoutMs?: number;
  /** Longest wait of one host name lookup (WEBHOOK_DNS_TIMEOUT_MS). */
  dnsTimeoutMs?: number;
}

/**
 * An undici Agent for webhook sends whose connections are checked at connect time: a host name is
 * resolved (with a deadline, holding no thread-pool thread: dns-resolver.ts), and if ANY resolved address is not public
 * (and the host is not exempt under the policy) the connection fails with an UnsafeAddressError (a generic message,
 * the detail in `detail`); otherwise it connects to a checked address (so DNS rebinding between check and connect
 * cannot reach a private address). IP-literal hosts are checked too (net.connect does not call lookup for literals).
 * In live only ports 443, 8443 and 1024 and up are reached. The socket is opened to the checked IP itself, with the
 * original host name kept as TLS servername (SNI and certificate check); the addresses are tried in resolver order
 * until one connects. Redirects are never followed (no redirect interceptor).
 */
export function createSafeAgent(policy: UrlPolicy, options: SafeAgentOptions = {}): Agent {
  const dnsTimeoutMs = options.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
  const resolvers: Resolvers = {
    resolve: options.resolve ?? createDnsResolver({ timeoutMs: dnsTimeoutMs }),
    resolveExempt: options.resolve ?? createLookupResolver(dnsTimeoutMs),
    timeoutMs: Math.min(dnsTimeoutMs, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
  };
  const base = buildConnector({ timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS });
  const connect: buildConnector.connector = (opts, callback) => {
    const port = connectPort(opts);
    if (!allowedPort(policy, port)) {
      callback(new UnsafeAddressError(`live webhook sends go only to ${LIVE_PORT_RULE}`, { host: opts.hostname, port }), null);
      return;
    }
    const servername = opts.servername || (net.isIP(opts.hostname.replace(/^\[(.*)\]$/, '$1')) === 0 ? opts.hostname : undefined);
    const attempt = (addresses: string[], index: number): void => {
      base({ ...opts, hostname: addresses[index], servername }, (error, socket) => {
        if (error && index + 1 < addresses.length) attempt(addresses, index + 1);
        else if (error) callback(error, null);
        else callback(null, socket!);
      });
    };
    checkedAddresses(opts.hostname, policy, resolvers).then(
      (addresses) => attempt(addresses, 0),
      (error: Error) => callback(error, null),
    );
  };
  return new Agent({ connect });
}
