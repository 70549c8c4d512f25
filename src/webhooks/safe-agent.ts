import net from 'node:net';
import { Agent, buildConnector } from 'undici';
import { exemptHost, isPublicAddress, systemResolver, UnsafeUrlError, type Resolver, type UrlPolicy } from './url-policy';

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** A send refused at connect time because the host resolved to (or is) an address that is not public. */
export class UnsafeAddressError extends UnsafeUrlError {
  override name = 'UnsafeAddressError';
}

async function resolveWithin(hostname: string, resolve: Resolver, timeoutMs: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS lookup of ${hostname} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const addresses = await Promise.race([resolve(hostname), timeout]);
    if (addresses.length === 0) throw new Error(`the host ${hostname} does not resolve to any address`);
    return addresses;
  } finally {
    clearTimeout(timer);
  }
}

/** The addresses a connection to `hostname` may use, every one of them checked unless the host is exempt. */
async function checkedAddresses(hostname: string, policy: UrlPolicy, resolve: Resolver, timeoutMs: number): Promise<string[]> {
  // undici hands IPv6 literals over in brackets ([2001:db8::1]).
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const literal = net.isIP(host) !== 0;
  const addresses = literal ? [host] : await resolveWithin(host, resolve, timeoutMs);
  if (exemptHost(policy, host)) return addresses;
  const refused = addresses.find((address) => !isPublicAddress(address));
  if (refused !== undefined) {
    const what = literal ? `the address ${refused}` : `the host ${host} resolves to ${refused}, which`;
    throw new UnsafeAddressError(`${what} is not a public internet address; webhook sends to it are refused`);
  }
  return addresses;
}

/**
 * An undici Agent for webhook sends whose connections are checked at connect time: a host name is
 * resolved with `resolve`, and if ANY resolved address is not public (and the host is not exempt under the policy)
 * the connection fails with an UnsafeUrlError-derived error (message says the address is not public);
 * otherwise it connects to a checked address (so DNS rebinding between check and connect cannot reach a private address).
 * IP-literal hosts are checked too (net.connect does not call lookup for literals). The socket is opened to the
 * checked IP itself, with the original host name kept as TLS servername (SNI and certificate check); the addresses are
 * tried in resolver order until one connects. Redirects are never followed (no redirect interceptor).
 */
export function createSafeAgent(policy: UrlPolicy, options: { resolve?: Resolver; connectTimeoutMs?: number } = {}): Agent {
  const resolve = options.resolve ?? systemResolver;
  const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const base = buildConnector({ timeout: timeoutMs });
  const connect: buildConnector.connector = (opts, callback) => {
    const servername = opts.servername || (net.isIP(opts.hostname.replace(/^\[(.*)\]$/, '$1')) === 0 ? opts.hostname : undefined);
    const attempt = (addresses: string[], index: number): void => {
      base({ ...opts, hostname: addresses[index], servername }, (error, socket) => {
        if (error && index + 1 < addresses.length) attempt(addresses, index + 1);
        else if (error) callback(error, null);
        else callback(null, socket!);
      });
    };
    checkedAddresses(opts.hostname, policy, resolve, timeoutMs).then(
      (addresses) => attempt(addresses, 0),
      (error: Error) => callback(error, null),
    );
  };
  return new Agent({ connect });
}
