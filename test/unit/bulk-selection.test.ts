/**
 * Issue 31, finding 1: a bulk `--yes` is bound to its dry run. The token serves the command and
 * options it was made for, once, within the hour; live money needs `--expect N`; a listing outside
 * `--merchant` or the command's run state is refused whole; the dry run shows the count by
 * environment and merchant.
 */
import type { BulkSelection } from '../../src/persistence/operators/bulk-selection-store';
import { BULK_POLICY } from '../../src/services/bulk-policy';
import { listedTypeOf } from '../../src/services/bulk-operator';
import { breakdown, bulkParams, canonicalJson, checkListing, expectRefusal, tokenRefusal, type ListedPayment } from '../../src/services/bulk-selection';

const TOKEN = 'opsel_0123456789ABCDEFGHIJabcd';
const now = new Date('2026-12-08T10:00:00Z');

function selection(overrides: Partial<BulkSelection> = {}): BulkSelection {
  return {
    token: TOKEN,
    command: 'payouts approve',
    query: "ExecutionStatus = 'Running' AND (PaymentStatus = 'held_for_review')",
    merchantId: null,
    params: {},
    payments: [
      { id: 'po_1', environment: 'sandbox', merchant_id: 'mer_a' },
      { id: 'po_2', environment: 'live', merchant_id: 'mer_a' },
      { id: 'po_3', environment: 'live', merchant_id: 'mer_b' },
    ],
    createdBy: 'cli:ama',
    createdAt: new Date(now.getTime() - 60_000),
    expiresAt: new Date(now.getTime() + 3_540_000),
    usedAt: null,
    usedBy: null,
    batchId: null,
    ...overrides,
  };
}

describe('tokenRefusal', () => {
  const use = { command: 'payouts approve', params: {}, now };
  test('the command, options and time it was made for: accepted', () => {
    expect(tokenRefusal(selection(), TOKEN, use)).toBeNull();
    expect(tokenRefusal(selection({ params: { resolution: { as: 'succeeded' } }, command: 'charges resolve' }), TOKEN, { ...use, command: 'charges resolve', params: { resolution: { as: 'succeeded' } } })).toBeNull();
  });
  test('unknown', () => expect(tokenRefusal(null, TOKEN, use)).toMatch(/is unknown: run the command without --yes/));
  test('another command', () => expect(tokenRefusal(selection(), TOKEN, { ...use, command: 'payouts reject' })).toMatch(/was made for "payouts approve", not "payouts reject"/));
  test('used once already', () => {
    expect(tokenRefusal(selection({ usedAt: now, usedBy: 'cli:kofi', batchId: 'opb_x' }), TOKEN, use)).toMatch(/was used already .* by cli:kofi, batch opb_x/);
  });
  test('expired', () => expect(tokenRefusal(selection({ expiresAt: now }), TOKEN, use)).toMatch(/expired at/));
  test('another query', () => expect(tokenRefusal(selection(), TOKEN, { ...use, query: "ExecutionStatus = 'Running' AND (A = 1)" })).toMatch(/was made for the query/));
  test('other options (charges resolve --as failed after a dry run --as succeeded)', () => {
    const made = selection({ command: 'charges resolve', params: { resolution: { as: 'succeeded' } } });
    expect(tokenRefusal(made, TOKEN, { ...use, command: 'charges resolve', params: { resolution: { as: 'failed' } } })).toMatch(/was made with the options \{"resolution":\{"as":"succeeded"\}\}/);
  });
});

test('bulkParams: every option but who and why; canonicalJson ignores key order', () => {
  expect(bulkParams({ operator: 'a', reason: 'b', resolution: { as: 'failed', failure_class: 'declined' } })).toEqual({ resolution: { as: 'failed', failure_class: 'declined' } });
  expect(bulkParams({ operator: 'a', reason: 'b' })).toEqual({});
  expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
});

describe('expectRefusal', () => {
  const payments = selection().payments;
  test('live money needs --expect N, N the live payments in the set', () => {
    expect(expectRefusal('payouts approve', BULK_POLICY['payouts approve']!, payments, undefined)).toMatch(/moves live money: the set has 2 live payments \(of 3\); repeat with --expect 2/);
    expect(expectRefusal('payouts approve', BULK_POLICY['payouts approve']!, payments, 3)).toMatch(/--expect 3 does not match: the set has 2 live payments/);
    expect(expectRefusal('payouts approve', BULK_POLICY['payouts approve']!, payments, 2)).toBeNull();
  });
  test('no live payment, or a command that moves no money: not needed, but checked when given', () => {
    expect(expectRefusal('payouts approve', BULK_POLICY['payouts approve']!, [payments[0]!], undefined)).toBeNull();
    expect(expectRefusal('charges retry', BULK_POLICY['charges retry']!, payments, undefined)).toBeNull();
    expect(expectRefusal('charges retry', BULK_POLICY['charges retry']!, payments, 1)).toMatch(/does not match/);
  });
});

describe('checkListing (finding 7, defence in depth)', () => {
  const row = (id: string, merchant: string | null, status = 'RUNNING'): ListedPayment => ({ id, merchant_id: merchant, environment: 'sandbox', type: 'payout', status: 'held_for_review', needs_attention: true, needs_attention_reason: 'held for review', workflow_status: status });
  test('a row of another merchant refuses the whole selection', () => {
    expect(() => checkListing([row('po_1', 'mer_a'), row('po_2', 'mer_b')], 'mer_a', 'running')).toThrow(/selected po_2 of mer_b, outside --merchant mer_a/);
    expect(() => checkListing([row('po_1', null)], 'mer_a', 'running')).toThrow(/of no merchant/);
    expect(() => checkListing([row('po_1', 'mer_a'), row('po_2', 'mer_b')], undefined, 'running')).not.toThrow();
  });
  test('a closed run for a command on running ones refuses it too', () => {
    expect(() => checkListing([row('po_1', 'mer_a', 'COMPLETED')], 'mer_a', 'running')).toThrow(/whose workflow is COMPLETED/);
    expect(() => checkListing([row('po_1', 'mer_a', 'COMPLETED')], 'mer_a', 'completed')).not.toThrow();
  });
});

test('breakdown: counts by environment and by merchant, most first; merchants past 50 summed', () => {
  expect(breakdown(selection().payments)).toEqual({ by_environment: { live: 2, sandbox: 1 }, by_merchant: { mer_a: 2, mer_b: 1 } });
  const many = Array.from({ length: 53 }, (_, i) => ({ id: `po_${i}`, environment: 'sandbox', merchant_id: `mer_${String(i).padStart(2, '0')}` }));
  const out = breakdown([...many, { id: 'po_x', environment: 'sandbox', merchant_id: 'mer_52' }]);
  expect(Object.keys(out.by_merchant)).toHaveLength(50);
  expect(Object.keys(out.by_merchant)[0]).toBe('mer_52');
  expect(out.other_merchants).toEqual({ merchants: 3, payments: 3 });
});

describe('listedTypeOf: payment reviews are selected by the commands that act on them (issue 43)', () => {
  test('settle-late and review-close act on reviews; the others do not', () => {
    expect(BULK_POLICY['payments settle-late']!.reviews).toBe(true);
    expect(BULK_POLICY['payments review-close']!.reviews).toBe(true);
    expect(Object.entries(BULK_POLICY).filter(([, p]) => p.reviews).map(([c]) => c)).toEqual(['payments settle-late', 'payments review-close']);
  });
  test("a review of a payment is listed as 'review' only when asked; other workflows never", () => {
    expect(listedTypeOf('review-txn_a1b2c3', true)).toBe('review');
    expect(listedTypeOf('review-stl_a1b2c3', true)).toBe('review');
    expect(listedTypeOf('review-txn_a1b2c3', false)).toBeNull();
    expect(listedTypeOf('review-nothing', true)).toBeNull();
    expect(listedTypeOf('po_a1b2c3', false)).toBe('payout');
    expect(listedTypeOf('settlement-run-2026', true)).toBeNull();
  });
});
