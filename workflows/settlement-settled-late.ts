import { defineSignal, getExternalWorkflowHandle, isCancellation, log } from '@temporalio/workflow';

/**
 * `patched()` id: a payment review that accepts a failed settlement batch as paid (the partner paid it
 * after all) tells the batch's run, which still waits for a retry, to end (issue 29).
 */
export const REVIEW_ENDS_SETTLEMENT_WAIT_PATCH = 'review-ends-settlement-wait';

/** To a failed batch's run waiting for `retrySettlement`: the batch was accepted as paid late; end, retry nothing. */
export const settlementSettledLateSignal = defineSignal('settlementSettledLate');

/** Signals the batch's run, if it still runs (a closed run has nothing to end). */
export async function endSettlementWait(settlementId: string): Promise<void> {
  try {
    await getExternalWorkflowHandle(settlementId).signal(settlementSettledLateSignal);
  } catch (error) {
    // The run has ended (retried, or terminated): nothing waits any more.
    if (isCancellation(error)) throw error;
    log.info('settlement batch run not waiting any more', { settlementId, error: error instanceof Error ? error.message : String(error) });
  }
}
