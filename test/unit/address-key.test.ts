import { addressKey, UNKNOWN_ADDRESS_KEY } from '../../src/support/address-key';

/**
 * The per-address limits' buckets (issue 47, finding 2; docs/security.md "Client address and
 * proxies"): an IPv4 address is its own /32, an IPv6 address counts in its /64, an IPv4-mapped IPv6
 * address is the IPv4 address it maps.
 */
test('an IPv4 address is its own bucket', () => {
  expect(addressKey('203.0.113.7')).toBe('203.0.113.7/32');
  expect(addressKey('203.0.113.8')).toBe('203.0.113.8/32');
  expect(addressKey('127.0.0.1')).toBe('127.0.0.1/32');
});

test('every address of one IPv6 /64 shares its bucket, however it is written; the next /64 is another', () => {
  const one = ['2001:db8:1:2::a', '2001:db8:1:2::b', '2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2:1234:5678:9abc:def0', '2001:db8:1:2::', '2001:db8:1:2:0:0:1.2.3.4'];
  expect(new Set(one.map(addressKey))).toEqual(new Set(['2001:db8:1:2::/64']));
  expect(addressKey('2001:db8:1:3::a')).toBe('2001:db8:1:3::/64');
  expect(addressKey('2001:db8:1:2::a')).not.toBe(addressKey('2001:db8:1:3::a'));
  expect(addressKey('::1')).toBe('::/64');
  expect(addressKey('fe80::1%eth0')).toBe(addressKey('fe80::2'));
});

test("an IPv4-mapped IPv6 address (a dual-stack socket's IPv4 peer) is the IPv4 address", () => {
  expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7/32');
  expect(addressKey('::FFFF:cb00:7107')).toBe('203.0.113.7/32');
  expect(addressKey('::ffff:127.0.0.1')).toBe(addressKey('127.0.0.1'));
  // Two mapped addresses are two buckets, as the IPv4 addresses are (not one ::/64 for every IPv4 client).
  expect(addressKey('::ffff:203.0.113.7')).not.toBe(addressKey('::ffff:203.0.113.8'));
  // IPv4-compatible (`::a.b.c.d`, deprecated) is not mapped: an IPv6 address like any other.
  expect(addressKey('::1.2.3.4')).toBe('::/64');
});

test.each(['', 'garbage', '203.0.113.7:443', '[2001:db8::1]', '203.0.113', '010.0.0.1', '2001:db8::1::2', 'unknown'])('%p is no address: the one `unknown` bucket', (text) => {
  expect(addressKey(text)).toBe(UNKNOWN_ADDRESS_KEY);
});

test('surrounding blanks are ignored', () => {
  expect(addressKey(' 203.0.113.7 ')).toBe('203.0.113.7/32');
});
