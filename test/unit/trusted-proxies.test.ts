import type { IncomingMessage } from 'node:http';
import { loadConfig } from '../../src/config';
import { clientAddressResolver } from '../../src/support/client-address';
import { StartupError } from '../../src/support/startup-error';
import { parseTrustedProxies } from '../../src/support/trusted-proxies';

/** TRUSTED_PROXIES (README, Configuration; docs/security.md "Client address and proxies"). */

/** A request as Node hands it over: its socket's peer and its headers. */
const request = (peer: string | undefined, forwardedFor?: string) => ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

test('unset, empty or 0: no proxy is trusted; X-Forwarded-For is never read', () => {
  for (const raw of [undefined, '', '  ', '0']) expect(parseTrustedProxies(raw)).toEqual({ kind: 'none' });
  expect(loadConfig({}).trustedProxies).toEqual({ kind: 'none' });
  const resolve = clientAddressResolver(loadConfig({}).trustedProxies);
  expect(resolve(request('198.51.100.9', '203.0.113.7'))).toBe('198.51.100.9');
  expect(resolve(request('198.51.100.9', '203.0.113.7, 127.0.0.1'))).toBe('198.51.100.9');
  expect(resolve(request(undefined, '203.0.113.7'))).toBe('');
});

test('a hop count: the last N hops of X-Forwarded-For are believed, no more', () => {
  const one = clientAddressResolver(parseTrustedProxies('1'));
  expect(one(request('10.0.0.2', '203.0.113.7'))).toBe('203.0.113.7');
  // What the client wrote itself, before the proxy appended its address, is not believed.
  expect(one(request('10.0.0.2', '192.0.2.66, 203.0.113.7'))).toBe('203.0.113.7');
  expect(one(request('10.0.0.2'))).toBe('10.0.0.2');
  const two = clientAddressResolver(parseTrustedProxies(' 2 '));
  expect(two(request('10.0.0.2', '192.0.2.66, 203.0.113.7, 10.0.0.9'))).toBe('203.0.113.7');
});

test('a list of addresses and blocks: from the socket back, past each trusted hop, to the first that is not one', () => {
  const proxies = parseTrustedProxies('10.0.0.0/8, 2001:db8:ffff::/48,127.0.0.1');
  expect(proxies).toEqual({ kind: 'addresses', addresses: ['10.0.0.0/8', '2001:db8:ffff::/48', '127.0.0.1'] });
  const resolve = clientAddressResolver(proxies);
  expect(resolve(request('10.1.2.3', '2001:db8:1:2::a'))).toBe('2001:db8:1:2::a');
  expect(resolve(request('127.0.0.1', '192.0.2.66, 203.0.113.7, 10.9.9.9'))).toBe('203.0.113.7');
  expect(resolve(request('2001:db8:ffff::1', '203.0.113.7'))).toBe('203.0.113.7');
  // A dual-stack socket's IPv4-mapped peer is the IPv4 proxy.
  expect(resolve(request('::ffff:10.1.2.3', '203.0.113.7'))).toBe('203.0.113.7');
  // A peer that is no trusted proxy: its header is not read.
  expect(resolve(request('198.51.100.9', '203.0.113.7'))).toBe('198.51.100.9');
  // A trusted proxy that passed on junk: the hop that handed it over is the client, junk makes no bucket.
  expect(resolve(request('10.1.2.3', 'not-an-address'))).toBe('10.1.2.3');
  expect(clientAddressResolver(parseTrustedProxies('loopback'))(request('127.0.0.1', '203.0.113.7'))).toBe('203.0.113.7');
});

test.each([
  ['1.2.3', /"1\.2\.3" is not an IP address$/],
  ['10.0.0.0/33', /"10\.0\.0\.0\/33" has no prefix length from 1 to 32$/],
  ['10.0.0.0/0', /"10\.0\.0\.0\/0" has no prefix length from 1 to 32$/],
  ['2001:db8::/129', /has no prefix length from 1 to 128$/],
  ['10.0.0.0/8,,127.0.0.1', /got an empty entry in/],
  ['proxy.internal', /"proxy\.internal" is not an IP address$/],
  ['17', /a hop count is at most 16, got "17"$/],
  ['-1', /"-1" is not an IP address$/],
  ['10.0.0.0/8x', /has no prefix length/],
])('TRUSTED_PROXIES=%p stops the start with one line saying what it must be', (raw, why) => {
  expect(() => loadConfig({ TRUSTED_PROXIES: raw })).toThrow(StartupError);
  let message = '';
  try {
    loadConfig({ TRUSTED_PROXIES: raw });
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toMatch(/^TRUSTED_PROXIES must be a hop count \(a whole number such as 1: trust the last hop of X-Forwarded-For\) or a comma-separated list of proxy addresses or CIDR blocks/);
  expect(message).toMatch(why);
  expect(message).not.toContain('\n');
});

test('CALLBACK_RATE_LIMIT: 600 a minute unless set; a whole number of at least 1', () => {
  expect(loadConfig({}).callbackRateLimit).toBe(600);
  expect(loadConfig({ CALLBACK_RATE_LIMIT: ' 3000 ' }).callbackRateLimit).toBe(3000);
  for (const raw of ['0', '-1', '2.5', 'off', '1e3']) {
    expect(() => loadConfig({ CALLBACK_RATE_LIMIT: raw })).toThrow(new RegExp(`^CALLBACK_RATE_LIMIT must be a whole number of partner callbacks per minute per client address, at least 1, got "${raw.replace('.', '\\.')}"$`));
  }
});
