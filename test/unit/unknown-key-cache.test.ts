/** The negative cache of API key lookups (src/persistence/merchants/unknown-key-cache.ts) and the key shape check. */
import { isWellFormedKey } from '../../src/persistence/merchants/merchant-store';
import { UnknownKeyCache } from '../../src/persistence/merchants/unknown-key-cache';
import { roundRobinByMerchant } from '../../src/webhooks/fair-order';

test('remembers unknown hashes for the TTL only', () => {
  let now = 1_000;
  const cache = new UnknownKeyCache(60_000, 10, () => now);
  cache.add('h1');
  expect(cache.has('h1')).toBe(true);
  now += 59_999;
  expect(cache.has('h1')).toBe(true);
  now += 1;
  expect(cache.has('h1')).toBe(false);
  expect(cache.size).toBe(0);
});

test('is bounded: the least recently seen hash goes first', () => {
  const cache = new UnknownKeyCache(60_000, 3);
  cache.add('a');
  cache.add('b');
  cache.add('c');
  expect(cache.has('a')).toBe(true); // a is now the most recent
  cache.add('d');
  expect(cache.size).toBe(3);
  expect(cache.has('b')).toBe(false);
  expect(cache.has('a')).toBe(true);
  expect(cache.has('c')).toBe(true);
  expect(cache.has('d')).toBe(true);
  cache.delete('d');
  expect(cache.has('d')).toBe(false);
});

test('the key shape: prefix and 32 base62 characters', () => {
  const body = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6';
  expect(isWellFormedKey(`svc_test_${body}`)).toBe(true);
  expect(isWellFormedKey(`svc_live_${body}`)).toBe(true);
  for (const bad of [`svc_test_${body}x`, `svc_test_${body.slice(1)}`, `sk_test_${body}`, `svc_test_${body.slice(1)}-`, `svc_prod_${body}`, '', `svc_test_${body}\n`]) {
    expect(isWellFormedKey(bad)).toBe(false);
  }
});

test('round robin over merchants keeps each merchant\'s order', () => {
  const items = [
    ...['a1', 'a2', 'a3', 'a4'].map((id) => ({ id, merchant_id: 'A', environment: 'sandbox' })),
    { id: 'b1', merchant_id: 'B', environment: 'sandbox' },
    { id: 'a-live', merchant_id: 'A', environment: 'live' },
    { id: 'b2', merchant_id: 'B', environment: 'sandbox' },
  ];
  expect(roundRobinByMerchant(items).map((i) => i.id)).toEqual(['a1', 'b1', 'a-live', 'a2', 'b2', 'a3', 'a4']);
});
