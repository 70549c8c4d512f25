import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { oldShapeOf, oldShapeQuery, patchIdsOf } from '../../src/services/old-shape-runs';

/**
 * `payments old-shape` (issue 43, finding 5) reads a run's `patched()` markers from its history.
 * Checked on the recorded histories of test/replay: runs recorded before `partner-word-only` (the old
 * shape: failed or expired at a deadline without the partner's word) and after it.
 */
const DIR = path.join(__dirname, '../replay/histories');
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));

describe('old-shape runs by their markers', () => {
  test('a live charge that took the partner rail before partner-word-only is of the old shape, at its rail', () => {
    const history = load('chargeWorkflow-live-partner-succeed.json');
    expect([...patchIdsOf(history)]).toEqual(expect.arrayContaining(['live-partner-rail', 'trust-only-the-database']));
    expect(oldShapeOf(history)).toEqual({ at_rail: true });
    expect(oldShapeOf(load('chargeWorkflow-live-partner-no-answer-expiry.json'))).toEqual({ at_rail: true });
  });

  test('a live settlement batch recorded before the partner rail carries no marker: old shape, not at the rail', () => {
    expect(oldShapeOf(load('settlementWorkflow/live-failed.json'))).toEqual({ at_rail: false });
  });

  test('runs that carry partner-word-only are not listed', () => {
    for (const file of ['chargeWorkflow-live-word-succeed.json', 'payoutWorkflow/live-word-succeed.json', 'settlementWorkflow/live-word-paid.json', 'payoutWorkflow/live-wait-resumed-succeed.json']) {
      expect(patchIdsOf(load(file)).has('partner-word-only')).toBe(true);
      expect(oldShapeOf(load(file))).toBeNull();
    }
  });

  test('the list query: running live payouts, batches and charges, narrowed by the operator', () => {
    expect(oldShapeQuery()).toBe("ExecutionStatus = 'Running' AND Environment = 'live' AND WorkflowType IN ('payoutWorkflow', 'settlementWorkflow', 'chargeWorkflow')");
    expect(oldShapeQuery("MerchantId = 'mer_1'")).toMatch(/ AND \(MerchantId = 'mer_1'\)$/);
  });
});
