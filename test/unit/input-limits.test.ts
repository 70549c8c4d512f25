/**
 * The input limits of issue 9 as pure functions: the depth scan that runs before JSON.parse, the
 * metadata limits, id shapes and strict list cursors. The API behaviour is covered by
 * test/integration/crafted-input.test.ts and test/integration/metadata-limits.test.ts.
 */
import { isIdOf } from '../../src/domain/ids';
import { findDepthExcess, MAX_JSON_DEPTH } from '../../src/http/json-depth';
import { findMetadataProblem } from '../../src/http/metadata-limits';
import { listCursor } from '../../src/http/routes/list-page';
import { encodeListCursor } from '../../src/persistence/sql-values';
import { fanOutDeliveryId } from '../../src/webhooks/delivery-id';
import { newId } from '../../src/support/new-id';

describe('findDepthExcess', () => {
  test('32 levels pass, 33 do not', () => {
    expect(MAX_JSON_DEPTH).toBe(32);
    expect(findDepthExcess('['.repeat(32) + ']'.repeat(32))).toBeUndefined();
    expect(findDepthExcess('['.repeat(33) + ']'.repeat(33))).toEqual({});
  });

  test('names the top-level member the excess is under', () => {
    expect(findDepthExcess(`{"amount":1,"metadata":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`)).toEqual({ member: 'metadata' });
    expect(findDepthExcess(`{"a":[[1]],"b":"x","c":${'['.repeat(40)}${']'.repeat(40)}}`)).toEqual({ member: 'c' });
  });

  test('brackets and escaped quotes inside strings do not count', () => {
    const text = JSON.stringify({ s: '['.repeat(100) + '"{{{' + '\\'.repeat(3), t: '\\"[[[[' });
    expect(findDepthExcess(text)).toBeUndefined();
  });

  test('a crafted key is not echoed', () => {
    expect(findDepthExcess(`{"${'k'.repeat(100)}":${'['.repeat(40)}${']'.repeat(40)}}`)).toEqual({});
    expect(findDepthExcess(`{"a\\u0000":${'['.repeat(40)}${']'.repeat(40)}}`)).toEqual({});
  });

  test('10,000 levels are found in one pass without recursion', () => {
    expect(findDepthExcess('['.repeat(10_000))).toEqual({});
  });
});

describe('findMetadataProblem', () => {
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

  test('at the limits: 50 keys, 40-character keys, 500-character values, 5 levels', () => {
    expect(findMetadataProblem(keys(50))).toBeUndefined();
    expect(findMetadataProblem({ ['k'.repeat(40)]: 'v'.repeat(500) })).toBeUndefined();
    expect(findMetadataProblem({ a: { b: { c: { d: { e: 'deepest' } } } } })).toBeUndefined();
    expect(findMetadataProblem({ a: [[[['x']]]] })).toBeUndefined();
    // Code points, not UTF-16 units: 500 emoji are 1000 units.
    expect(findMetadataProblem({ note: '😀'.repeat(500), ['é'.repeat(40)]: 1 })).toBeUndefined();
  });

  test('51 keys, counting nested keys and array items', () => {
    expect(findMetadataProblem(keys(51))).toEqual({ param: 'metadata', message: expect.stringMatching(/more than 50 keys/) });
    expect(findMetadataProblem({ ...keys(40), nested: keys(10) })?.param).toBe('metadata');
    expect(findMetadataProblem({ list: Array.from({ length: 50 }, () => 1) })?.param).toBe('metadata');
  });

  test('a 41-character key names the object holding it', () => {
    expect(findMetadataProblem({ ['k'.repeat(41)]: 'v' })).toEqual({ param: 'metadata', message: expect.stringMatching(/key longer than 40/) });
    expect(findMetadataProblem({ order: { ['k'.repeat(41)]: 'v' } })?.param).toBe('metadata.order');
  });

  test('a 501-character value names the value', () => {
    expect(findMetadataProblem({ note: 'v'.repeat(501) })).toEqual({ param: 'metadata.note', message: expect.stringMatching(/longer than 500/) });
    expect(findMetadataProblem({ order: { lines: ['ok', 'v'.repeat(501)] } })?.param).toBe('metadata.order.lines.1');
  });

  test('6 levels: arrays count like objects', () => {
    expect(findMetadataProblem({ a: { b: { c: { d: { e: {} } } } } })).toEqual({ param: 'metadata.a.b.c.d.e', message: expect.stringMatching(/at most 5 levels/) });
    expect(findMetadataProblem({ a: [[[[[]]]]] })?.param).toBe('metadata.a.0.0.0.0');
  });

  test('not an object: left to the schema', () => {
    expect(findMetadataProblem('x'.repeat(10_000))).toBeUndefined();
    expect(findMetadataProblem(null)).toBeUndefined();
  });
});

describe('isIdOf', () => {
  test('every id the service issues has its shape', () => {
    for (const kind of ['charge', 'event', 'webhookEndpoint', 'delivery', 'merchant', 'apiKey'] as const) expect(isIdOf(kind, newId(kind))).toBe(true);
    expect(isIdOf('delivery', fanOutDeliveryId(newId('event'), newId('webhookEndpoint')))).toBe(true);
  });

  test.each(['', 'txn_', 'txn_short', `txn_${'a'.repeat(25)}`, `we_${'a'.repeat(24)}`, `txn_${'a'.repeat(23)}\u0000`, `txn_${'a'.repeat(23)}é`, `TXN_${'a'.repeat(24)}`])('%p is not a charge id', (text) => {
    expect(isIdOf('charge', text)).toBe(false);
  });
});

describe('listCursor', () => {
  const id = newId('webhookEndpoint');
  const cursor = (text: string) => Buffer.from(text).toString('base64url');

  test('a cursor the API wrote reads back', () => {
    const written = encodeListCursor({ createdAt: '2026-01-02T03:04:05.678Z', id });
    expect(listCursor(written, 'webhookEndpoint')).toEqual({ createdAt: '2026-01-02T03:04:05.678Z', id });
    expect(listCursor(undefined, 'webhookEndpoint')).toBeNull();
  });

  test.each([
    cursor(`garbage 2024|${id}`),
    cursor(`2024-02-30T00:00:00.000Z|${id}`),
    cursor(`2024-01-01T24:00:00.000Z|${id}`),
    cursor(`2024-01-01|${id}`),
    cursor(`2024-01-01T00:00:00.000Z|dlv_${'a'.repeat(24)}`),
    cursor(`2024-01-01T00:00:00.000Z|${id}|`),
    `${cursor(`2024-01-01T00:00:00.000Z|${id}`)}A`,
  ])('%s is refused with param cursor', (text) => {
    expect(() => listCursor(text, 'webhookEndpoint')).toThrow(expect.objectContaining({ code: 'invalid_request', extras: { param: 'cursor' } }));
  });
});
