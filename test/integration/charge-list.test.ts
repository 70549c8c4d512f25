/**
 * GET /v1/charges: newest first, cursor pages, and the list filters of INTERFACE.md (status,
 * created_after / created_before in strict ISO 8601, channel, the merchant's reference), each bad
 * value a 400 invalid_request naming its parameter; only the caller's merchant and environment.
 * Charges are written through the charge store (no workflow), with chosen creation times.
 */
import type { ChargeRecord } from '../../src/domain/charge';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';
import { expectError } from '../support/api-errors';
import { accept, draftCharge, succeed } from '../support/stored-charges';

let h: Harness;
let merchant: TestMerchant;
/** Seven charges, one hour apart from 2026-01-01T00:00:00Z, oldest first. */
const charges: ChargeRecord[] = [];

beforeAll(async () => {
  h = await startHarness({ worker: false });
  merchant = await h.merchant();
  for (let i = 0; i < 7; i++) {
    const draft = draftCharge(merchant.id, 1_000 + i);
    draft.createdAt = new Date(Date.UTC(2026, 0, 1, i)).toISOString();
    draft.channel = i % 3 === 0 ? 'bank' : 'mobile_money';
    draft.yourReference = i % 2 === 0 ? 'order-even' : `order-${i}`;
    charges.push(await accept(h.orm, draft));
  }
  for (const i of [1, 4]) charges[i] = await succeed(h.orm, charges[i].id);
  // Another merchant's charge and a live charge of the same merchant never show.
  const other = await h.merchant();
  await accept(h.orm, draftCharge(other.id, 5_000));
  await accept(h.orm, draftCharge(merchant.id, 5_000, { environment: 'live' }));
});
afterAll(() => h?.close());

const list = (query = '', key = merchant.testKey) => h.request('sandbox', 'GET', `/v1/charges${query}`, { key });
const ids = (body: { data: { id: string }[] }) => body.data.map((c) => c.id);
const newestFirst = (indexes: number[]) => indexes.sort((a, b) => b - a).map((i) => charges[i].id);

test('newest first, default limit, the charge objects as GET /v1/charges/{id} answers them', async () => {
  const res = await list();
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ object: 'list', has_more: false });
  expect(ids(res.json)).toEqual(newestFirst([0, 1, 2, 3, 4, 5, 6]));
  const one = await h.request('sandbox', 'GET', `/v1/charges/${charges[4].id}`, { key: merchant.testKey });
  expect(res.json.data[2]).toEqual(one.json);
  expect(res.json.data[2]).toMatchObject({ status: 'succeeded', your_reference: 'order-even' });
});

test('cursor pages walk every charge exactly once', async () => {
  const seen: string[] = [];
  let query = '?limit=3';
  for (let page = 0; page < 5; page++) {
    const res = await list(query);
    expect(res.status).toBe(200);
    seen.push(...ids(res.json));
    if (!res.json.has_more) {
      expect(res.json).not.toHaveProperty('next_cursor');
      break;
    }
    query = `?limit=3&cursor=${res.json.next_cursor}`;
  }
  expect(seen).toEqual(newestFirst([0, 1, 2, 3, 4, 5, 6]));
});

test('status, channel, reference and the creation window filter, alone and together', async () => {
  expect(ids((await list('?status=succeeded')).json)).toEqual(newestFirst([1, 4]));
  expect(ids((await list('?status=reversed')).json)).toEqual([]);
  expect(ids((await list('?channel=bank')).json)).toEqual(newestFirst([0, 3, 6]));
  expect(ids((await list('?reference=order-even')).json)).toEqual(newestFirst([0, 2, 4, 6]));
  expect(ids((await list('?reference=order-3')).json)).toEqual(newestFirst([3]));
  // Both bounds exclusive; offsets and fractions as ISO 8601 writes them.
  expect(ids((await list('?created_after=2026-01-01T01:00:00Z&created_before=2026-01-01T05:00:00Z')).json)).toEqual(newestFirst([2, 3, 4]));
  expect(ids((await list(`?created_after=${encodeURIComponent('2026-01-01T03:59:59.999999+01:00')}`)).json)).toEqual(newestFirst([3, 4, 5, 6]));
  expect(ids((await list('?created_before=2026-01-01T00:00:00.001Z')).json)).toEqual(newestFirst([0]));
  expect(ids((await list('?created_after=2026-01-01')).json)).toEqual(newestFirst([1, 2, 3, 4, 5, 6]));
  expect(ids((await list('?status=awaiting_action&channel=bank&reference=order-even&created_after=2026-01-01T00:30Z')).json)).toEqual(newestFirst([6]));
  // A filter with a cursor: the next page of the same filtered list.
  const first = await list('?reference=order-even&limit=2');
  expect(first.json.has_more).toBe(true);
  expect(ids((await list(`?reference=order-even&limit=2&cursor=${first.json.next_cursor}`)).json)).toEqual(newestFirst([0, 2]));
});

test.each([
  ['?limit=0', 'limit'],
  ['?limit=101', 'limit'],
  ['?limit=01', 'limit'],
  ['?limit=ten', 'limit'],
  ['?cursor=abc', 'cursor'],
  ['?status=paid', 'status'],
  ['?status=succeeded&status=failed', 'status'],
  ['?channel=cash', 'channel'],
  ['?reference=', 'reference'],
  [`?reference=${'x'.repeat(101)}`, 'reference'],
  ['?reference=a%00b', 'reference'],
  ['?created_after=yesterday', 'created_after'],
  ['?created_after=2026-02-30T00:00:00Z', 'created_after'],
  ['?created_after=2026-01-01T24:00:00Z', 'created_after'],
  ['?created_after=2026-01-01T10:00:00', 'created_after'],
  ['?created_after=2026-01-01T10:00:60Z', 'created_after'],
  ['?created_after=1767225600', 'created_after'],
  ['?created_after=0000-01-01', 'created_after'],
  ['?created_before=2026-01-01T10:00:00.1234567Z', 'created_before'],
  [`?created_before=${encodeURIComponent('2026-01-01T10:00:00+15:00')}`, 'created_before'],
  ['?created_after=2026-01-02&created_before=2026-01-01', 'created_before'],
  ['?created_after=2026-01-01T00:00:00Z&created_before=2026-01-01', 'created_before'],
  ['?charge=txn_x', 'charge'],
  ['?after_sequence=1', 'after_sequence'],
])('GET /v1/charges%s is 400 invalid_request on %s', async (query, param) => {
  expectError(await list(query), 400, 'invalid_request', param);
});

test('another list\'s cursor is refused; another merchant sees none of these charges; charges:read is required', async () => {
  const mine = await list('?limit=1');
  const other = await h.merchant();
  const theirs = await list('', other.testKey);
  expect(theirs.status).toBe(200);
  expect(ids(theirs.json).some((id) => charges.some((c) => c.id === id))).toBe(false);
  // A cursor names a charge, not a merchant: used by another merchant it pages their own list.
  expect((await list(`?cursor=${mine.json.next_cursor}`, other.testKey)).status).toBe(200);
  const fake = Buffer.from('2026-01-01T00:00:00.000Z|we_aaaaaaaaaaaaaaaaaaaaaaaa').toString('base64url');
  expectError(await list(`?cursor=${fake}`), 400, 'invalid_request', 'cursor');
});
