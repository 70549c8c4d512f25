import { ApiError } from '../../src/domain/errors';
import { defineListFilters, isoInstant } from '../../src/services/list-filters';

// The reusable list filters (src/services/list-filters.ts): strict parsing with the offending `param`,
// and the SQL they add (values bound, column names from the spec only).

const REFUNDS = defineListFilters({ kind: 'refund', statuses: ['pending', 'succeeded', 'failed'], chargeColumn: 'charge_id' });

function paramOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'invalid_request') return error.extras.param;
    throw error;
  }
  return undefined;
}

test('only the filters a list declares are accepted', () => {
  expect(paramOf(() => REFUNDS.parse({ channel: 'bank' }))).toBe('channel');
  expect(paramOf(() => REFUNDS.parse({ reference: 'x' }))).toBe('reference');
  expect(paramOf(() => REFUNDS.parse({ charge: 'po_000000000000000000000000' }))).toBe('charge');
  expect(paramOf(() => REFUNDS.parse({ status: ['pending', 'failed'] }))).toBe('status');
  expect(REFUNDS.parse({ charge: 'txn_000000000000000000000000', status: 'failed' })).toEqual({ limit: 10, cursor: null, charge: 'txn_000000000000000000000000', status: 'failed' });
});

test('the SQL binds every value and ends with the page order and limit + 1', () => {
  const filters = REFUNDS.parse({ charge: 'txn_000000000000000000000000', status: 'failed', created_after: '2026-01-01', limit: '5' });
  expect(REFUNDS.pageSql(filters)).toEqual({
    sql: ' and status = ? and charge_id = ? and created_at > ?::timestamptz order by created_at desc, id desc limit ?',
    params: ['failed', 'txn_000000000000000000000000', '2026-01-01T00:00:00Z', 6],
  });
});

test.each([
  ['2026-11-23T13:00:00Z', Date.UTC(2026, 10, 23, 13)],
  ['2026-11-23T13:00Z', Date.UTC(2026, 10, 23, 13)],
  ['2026-11-23T14:30:00+01:30', Date.UTC(2026, 10, 23, 13)],
  ['2026-11-23T13:00:00.5-00:00', Date.UTC(2026, 10, 23, 13, 0, 0, 500)],
  ['2024-02-29', Date.UTC(2024, 1, 29)],
  ['0001-01-01T00:00:00Z', -62135596800000],
])('%s is an instant', (text, ms) => {
  expect(isoInstant('created_after', text).ms).toBe(ms);
});

test.each(['2025-02-29', '2026-13-01', '2026-11-23 13:00:00Z', '2026-11-23T13:00:00+1400', '2026-11-23T13:00:00+14:01', '2026-11-23T13', '+02026-11-23', '2026-11-23T13:00:00,5Z', ' 2026-11-23'])(
  '%s is refused',
  (text) => {
    expect(paramOf(() => isoInstant('created_before', text))).toBe('created_before');
  },
);
