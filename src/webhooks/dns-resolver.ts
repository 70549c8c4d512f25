import { promises as dns } from 'node:dns';

/** Resolves a host name to every address it has (IPv4 and IPv6). */
export type Resolver = (hostname: string) => Promise<string[]>;

/** WEBHOOK_DNS_TIMEOUT_MS when unset. */
export const DEFAULT_DNS_TIMEOUT_MS = 5_000;

/** Answers meaning "this name has no address of that family" rather than "the lookup failed". */
const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND', 'NOTFOUND', 'NODATA']);

/** A DNS lookup that gave no answer within its time. */
export class DnsTimeoutError extends Error {
  override name = 'DnsTimeoutError';
  readonly code = 'ETIMEOUT';
}

/** RFC 6761: `localhost` and names under it are loopback, answered without asking DNS. */
export function isLocalhostName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost');
}

const LOOPBACK = ['127.0.0.1', '::1'];

/** Rejects with DnsTimeoutError when `work` has not settled within `timeoutMs`. */
export async function withinDeadline<T>(hostname: string, timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DnsTimeoutError(`DNS lookup of ${hostname} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface DnsResolverOptions {
  /** Longest wait of one lookup, both families together. */
  timeoutMs?: number;
  /** Name servers (`ip` or `ip:port`); the system's (/etc/resolv.conf) unless given. */
  servers?: string[];
}

/**
 * The webhook resolver: DNS queries through c-ares (node:dns `Resolver`), which runs on the event
 * loop's own sockets, so a slow or dead name server holds no libuv thread-pool thread (dns.lookup,
 * getaddrinfo, would hold one per lookup for as long as the lookup lasts, and the thread pool is shared with
 * crypto, zlib and file I/O). A and AAAA are asked at once; every address of either family is returned
 * (a family with no records adds none; a failure of both, or one failing and the other empty, throws).
 * c-ares reads no /etc/hosts: `localhost` names are answered as loopback here (RFC 6761), and the
 * sandbox's exempt hosts use `lookupResolver` (safe-agent.ts).
 */
export function createDnsResolver(options: DnsResolverOptions = {}): Resolver {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
  // c-ares retries with a growing timeout; two tries of a third each fit the budget, and the deadline
  // below bounds the wait whatever c-ares does.
  const resolver = new dns.Resolver({ timeout: Math.max(1, Math.ceil(timeoutMs / 3)), tries: 2 });
  if (options.servers) resolver.setServers(options.servers);
  const family = async (query: Promise<string[]>): Promise<string[]> => {
    try {
      return await query;
    } catch (error) {
      if (NO_ADDRESS.has((error as NodeJS.ErrnoException).code ?? '')) return [];
      throw error;
    }
  };
  return async (hostname) => {
    if (isLocalhostName(hostname)) return [...LOOPBACK];
    const [v4, v6] = await withinDeadline(
      hostname,
      timeoutMs,
      Promise.allSettled([family(resolver.resolve4(hostname)), family(resolver.resolve6(hostname))]),
    );
    const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (addresses.length === 0) {
      const failed = [v4, v6].find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
    return addresses;
  };
}

/**
 * getaddrinfo (dns.lookup: /etc/hosts, mDNS, the system's configuration), on the thread pool. Only for
 * the sandbox's exempt local-development hosts (WEBHOOK_ALLOW_PRIVATE_HOSTS), such as a Compose
 * service name or an /etc/hosts entry; bounded by the same deadline.
 */
export function createLookupResolver(timeoutMs = DEFAULT_DNS_TIMEOUT_MS): Resolver {
  return async (hostname) =>
    (await withinDeadline(hostname, timeoutMs, dns.lookup(hostname, { all: true, verbatim: true }))).map((entry) => entry.address);
}
