import { defineQuery, setHandler } from '@temporalio/workflow';

/**
 * One query name on every payment workflow type (charge, charge reversal, payout, refund, dispute,
 * settlement batch, webhook delivery): the record as the workflow last wrote it, no customer data.
 * `temporal workflow query --workflow-id ID --type record`, or the UI's Queries tab. The per-type
 * queries (`chargeState`, `payoutState`, …) answer the same.
 */
export const recordQuery = defineQuery<unknown>('record');

export function answerRecord(current: () => unknown): void {
  setHandler(recordQuery, () => current() ?? null);
}
