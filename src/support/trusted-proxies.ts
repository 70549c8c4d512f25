import net from 'node:net';
import proxyAddr from 'proxy-addr';
import { StartupError } from './startup-error';

/**
 * TRUSTED_PROXIES (docs/security.md "Client address and proxies"): which proxies in front of the API
 * listeners and the web port may say who the client is, by `X-Forwarded-For`.
 * - `none` (unset, empty or `0`): no proxy; the client is the socket's peer, whatever the headers say.
 * - `hops`: the last N hops of `X-Forwarded-For` (those the N proxies in front appended) are believed;
 *   only right when the listener can be reached through those proxies alone.
 * - `addresses`: addresses and CIDR blocks of the proxies (and the names `loopback`, `linklocal`,
 *   `uniquelocal`); walking back from the socket's peer, each hop that is one of them is passed, and
 *   the first that is not is the client.
 */
export type TrustedProxies = { readonly kind: 'none' } | { readonly kind: 'hops'; readonly hops: number } | { readonly kind: 'addresses'; readonly addresses: readonly string[] };

export const NO_TRUSTED_PROXIES: TrustedProxies = { kind: 'none' };

/** More hops than any real chain of proxies: a larger count is a mistake. */
export const MAX_TRUSTED_HOPS = 16;

/** proxy-addr's names of ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const HELP =
  'TRUSTED_PROXIES must be a hop count (a whole number such as 1: trust the last hop of X-Forwarded-For) or a comma-separated list of proxy addresses or CIDR blocks (such as 10.0.0.0/8,2001:db8::/48, or loopback, linklocal, uniquelocal)';

/** Why one entry of the list is no proxy address or block, or undefined when it is one. */
function entryProblem(entry: string): string | undefined {
  if (NAMED_RANGES.has(entry)) return undefined;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = net.isIP(address);
  if (family === 0) return `"${entry}" is not an IP address`;
  if (slash < 0) return undefined;
  const prefix = entry.slice(slash + 1);
  const max = family === 4 ? 32 : 128;
  // /0 would believe every hop: anyone's X-Forwarded-For would name the client.
  if (!/^[0-9]{1,3}$/.test(prefix) || Number(prefix) < 1 || Number(prefix) > max) return `"${entry}" has no prefix length from 1 to ${max}`;
  return undefined;
}

/** The setting read; anything else than a hop count or a list of addresses stops the start with one line. */
export function parseTrustedProxies(raw: string | undefined): TrustedProxies {
  const text = raw?.trim() ?? '';
  if (!text || text === '0') return NO_TRUSTED_PROXIES;
  if (/^[0-9]+$/.test(text)) {
    const hops = Number(text);
    if (hops > MAX_TRUSTED_HOPS) throw new StartupError(`${HELP}; a hop count is at most ${MAX_TRUSTED_HOPS}, got "${text}"`);
    return { kind: 'hops', hops };
  }
  const addresses = text.split(',').map((entry) => entry.trim());
  for (const entry of addresses) {
    if (!entry) throw new StartupError(`${HELP}; got an empty entry in "${text}"`);
    const problem = entryProblem(entry);
    if (problem) throw new StartupError(`${HELP}; ${problem}`);
  }
  try {
    proxyAddr.compile(addresses);
  } catch (error) {
    throw new StartupError(`${HELP}; ${(error as Error).message}`);
  }
  return { kind: 'addresses', addresses };
}

/** proxy-addr's trust function for the setting: whether hop `i` (0 is the socket's peer) at `address` is a trusted proxy. */
export function trustFunction(proxies: TrustedProxies): (address: string, i: number) => boolean {
  if (proxies.kind === 'none') return () => false;
  if (proxies.kind === 'hops') {
    const { hops } = proxies;
    return (_address, i) => i < hops;
  }
  return proxyAddr.compile([...proxies.addresses]);
}
