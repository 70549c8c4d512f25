import { payoutWindowClosed } from '../../activities/rail';
import { LIVE_PAYOUT_DEADLINE_MS } from '../../src/domain/live-rail';
import { reviewCarryProblem } from '../../src/domain/review-wait';

// Issue 43: a restarted payout or settlement batch keeps its first submission's 24 h window (from its
// reference's created_at), whatever window its new run computes; a charge's window is its expiry.
describe('payoutWindowClosed', () => {
  const created = '2026-11-01T10:00:00.000Z';
  const closes = Date.parse(created) + LIVE_PAYOUT_DEADLINE_MS;
  test.each(['po_abc', 'stl_abc'])('%s: open inside the window, closed (at its end) from then on', (id) => {
    expect(payoutWindowClosed(id, created, closes - 1)).toBeUndefined();
    expect(payoutWindowClosed(id, created, closes)).toBe(new Date(closes).toISOString());
    expect(payoutWindowClosed(id, created, closes + 90 * 24 * 3600_000)).toBe(new Date(closes).toISOString());
  });
  test('a charge: never (its window is its expiry)', () => {
    expect(payoutWindowClosed('txn_abc', created, closes + 1)).toBeUndefined();
  });
});

describe('reviewCarryProblem', () => {
  const carry = { at: 'return', round: 3, startedMs: 1, reasons: [{ source: 'late_watch', reason: 'r' }], resolved: [], partnerStatus: 'SUCCESSFUL', ourStatus: 'expired', returnNote: null, wake: false, runs: 1 };
  test('a carry as the review writes it', () => expect(reviewCarryProblem(carry)).toBeNull());
  test.each([
    [null, 'resume must be an object'],
    [{ ...carry, at: 'late' }, 'resume.at must be polling or return'],
    [{ ...carry, round: '3' }, 'resume.round must be a number'],
    [{ ...carry, reasons: [{ source: 'x' }] }, 'resume.reasons must be a list of { source, reason }'],
    [{ ...carry, resolved: [1] }, 'resume.resolved must be a list of sources'],
    [{ ...carry, returnNote: 5 }, 'resume.returnNote must be text'],
    [{ ...carry, wake: 'yes' }, 'resume.wake must be true or false'],
  ])('%j: %s', (value, problem) => expect(reviewCarryProblem(value)).toBe(problem));
});
