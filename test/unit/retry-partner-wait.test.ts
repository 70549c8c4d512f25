import { NO_ATTENTION, retryRefusal, waitingRefusal } from '../../src/domain/charge-attention';
import { BULK_POLICY, retrySkip } from '../../src/services/bulk-policy';
import { idsOfTheSet } from '../../src/services/bulk-selection';

// Issue 43 (Medium): retryStep on a payment waiting for the partner, and the runbook's bulk
// `charges retry --query "NeedsAttention = true"`; `--yes --ids-file` bound to its dry run's token.

const request = { operator: 'ops@example.com', reason: 'database back' };

describe('retryStep on a payment waiting for the partner', () => {
  test('a payout flagged "waiting: partner rail" by its run (no step of its own gave up): refused, saying what it waits for', () => {
    expect(retryRefusal('po_1', NO_ATTENTION, request, 'waiting: partner rail')).toBe(waitingRefusal('po_1', 'waiting: partner rail'));
    expect(waitingRefusal('po_1', 'waiting: partner rail')).toMatch(/^po_1 waits for the partner's word \("waiting: partner rail"\), not for a database step that gave up: nothing to retry, nothing was written; .*follows its word by itself/);
    expect(waitingRefusal('txn_1', 'waiting: partner rail')).toMatch(/charges resolve txn_1 --as succeeded\|failed --evidence/);
  });
  test('a database step that gave up is retried whatever the published reason says', () => {
    const gaveUp = { ...NO_ATTENTION, needsAttention: true, step: 'payout -> succeeded', giveUps: 1 };
    expect(retryRefusal('po_1', gaveUp, request, 'step gave up: payout -> succeeded')).toBeNull();
    expect(retryRefusal('po_1', gaveUp, request, 'waiting: partner rail')).toBeNull();
  });
  test('no reason, or another kind: as before', () => {
    expect(retryRefusal('po_1', NO_ATTENTION, request, null)).toMatch(/is not waiting for an operator: nothing to retry/);
    expect(retryRefusal('po_1', NO_ATTENTION, request, 'held for review')).toMatch(/is not waiting for an operator/);
    expect(waitingRefusal('po_1', 'held for review')).toBeNull();
    expect(waitingRefusal('po_1', undefined)).toBeNull();
  });
});

describe('bulk charges retry skips what it cannot retry', () => {
  const row = (needs_attention: boolean, needs_attention_reason: string | null) => ({ id: 'po_1', needs_attention, needs_attention_reason });
  test('the policy of charges retry skips; the other commands do not', () => {
    expect(BULK_POLICY['charges retry']!.skip).toBe(retrySkip);
    expect(BULK_POLICY['payouts approve']!.skip).toBeUndefined();
  });
  test('a step that gave up, or a flag with no reason (marked before NeedsAttentionReason): kept', () => {
    expect(retrySkip(row(true, 'step gave up: payout -> succeeded'))).toBeNull();
    expect(retrySkip(row(true, null))).toBeNull();
  });
  test('waiting for the partner, an activity the worker still retries, a review, no flag: skipped with why', () => {
    expect(retrySkip(row(true, 'waiting: partner rail'))).toMatch(/waits for the partner's word/);
    expect(retrySkip(row(true, 'waiting: partner answer'))).toMatch(/waits for the partner's word/);
    expect(retrySkip(row(true, 'activity failing: railStatus'))).toMatch(/NeedsAttentionReason "activity failing: railStatus" is not a database step that gave up/);
    expect(retrySkip(row(true, 'held for review'))).toMatch(/is not a database step that gave up/);
    expect(retrySkip(row(false, null))).toMatch(/not waiting for an operator/);
  });
});

describe('idsOfTheSet: an ids file names part of its token\'s set, never more', () => {
  const selection = {
    payments: [
      { id: 'po_a', environment: 'live', merchant_id: 'mer_1' },
      { id: 'po_b', environment: 'sandbox', merchant_id: 'mer_1' },
      { id: 'po_c', environment: 'live', merchant_id: 'mer_1' },
    ],
  };
  test('a shortened file: those payments, in the dry run\'s order', () => {
    expect(idsOfTheSet(selection, 'opsel_x', '/tmp/ids', ['po_c', 'po_a']).map((p) => p.id)).toEqual(['po_a', 'po_c']);
    expect(idsOfTheSet(selection, 'opsel_x', '/tmp/ids', ['po_a', 'po_b', 'po_c'])).toEqual(selection.payments);
  });
  test('an id the dry run did not show refuses the whole run, naming it', () => {
    expect(() => idsOfTheSet(selection, 'opsel_x', '/tmp/ids', ['po_a', 'po_z'])).toThrow(
      "--ids-file /tmp/ids names 1 payment that dry run opsel_x did not show (po_z): an ids file may only leave ids out; run a new dry run for them. Nothing was done",
    );
    expect(() => idsOfTheSet(selection, 'opsel_x', '/tmp/ids', ['po_1', 'po_2', 'po_3', 'po_4', 'po_5', 'po_6'])).toThrow(/names 6 payments .*\(po_1, po_2, po_3, po_4, po_5 and 1 more\)/);
  });
});
