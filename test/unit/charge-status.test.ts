import { canSettleLate, canTransition, CHARGE_STATUSES, eventTypeForStatus, initialState } from '../../src/domain/charge-status';
import { railPlan } from '../../src/domain/sandbox-outcome';
import { FAILURE_CLASSES } from '../../src/domain/failure-classes';

describe('charge state machine', () => {
  test('only the transitions of SPEC 3 are allowed', () => {
    const allowed = CHARGE_STATUSES.flatMap((from) => CHARGE_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual(
      [
        'awaiting_action->expired',
        'awaiting_action->failed',
        'awaiting_action->succeeded',
        'pending->expired',
        'pending->failed',
        'pending->succeeded',
        'succeeded->reversed',
      ].sort(),
    );
  });

  test('a late success (issue 29) has its own way out of expired and failed, to succeeded only; the normal machine never takes it', () => {
    const late = CHARGE_STATUSES.flatMap((from) => CHARGE_STATUSES.filter((to) => canSettleLate(from, to)).map((to) => `${from}->${to}`));
    expect(late.sort()).toEqual(['expired->succeeded', 'failed->succeeded']);
    for (const from of ['expired', 'failed'] as const) expect(canTransition(from, 'succeeded')).toBe(false);
  });

  test('initial state per channel', () => {
    expect(initialState('mobile_money')).toEqual({ status: 'awaiting_action', action: { type: 'prompt' } });
    expect(initialState('card')).toEqual({ status: 'pending', action: null });
    expect(initialState('bank')).toEqual({ status: 'pending', action: null });
  });

  test('each status maps to its event', () => {
    expect(eventTypeForStatus('succeeded')).toBe('transaction.succeeded');
    expect(eventTypeForStatus('failed')).toBe('transaction.failed');
    expect(eventTypeForStatus('expired')).toBe('transaction.expired');
    expect(eventTypeForStatus('reversed')).toBe('transaction.reversed');
    expect(eventTypeForStatus('pending')).toBe('transaction.created');
  });
});

describe('sandbox outcomes (SPEC 4.2)', () => {
  test('absent, succeed and unknown values succeed after three seconds', () => {
    for (const outcome of [undefined, null, 'succeed', 'no-such-outcome', 42]) {
      expect(railPlan('sandbox', outcome)).toEqual({ kind: 'succeed', afterMs: 3000 });
    }
  });
  test('pending times out after ten minutes', () => {
    expect(railPlan('sandbox', 'pending')).toEqual({ kind: 'time_out', afterMs: 600000 });
  });
  test('indeterminate stays unresolved', () => {
    expect(railPlan('sandbox', 'indeterminate')).toEqual({ kind: 'unresolved' });
  });
  test.each(FAILURE_CLASSES)('%s fails immediately with that failure class', (fc) => {
    expect(railPlan('sandbox', fc)).toEqual({ kind: 'fail', failureClass: fc });
  });
  test('live ignores sandbox_outcome', () => {
    expect(railPlan('live', 'declined')).toEqual({ kind: 'succeed', afterMs: 3000 });
  });
});
