import { WithStartWorkflowOperation } from '@temporalio/client';
import type { PayoutRecord } from '../domain/payout';
import { PAYOUT_WORKFLOW_TYPE, type PayoutStart } from '../domain/payout-start';
import { payoutDetails, payoutStartOptions } from './payout-start';

type PayoutWorkflowFn = (input: PayoutStart) => Promise<unknown>;

/**
 * The start half of `payouts reverse` (update-with-start of `reversePayout`): while the payout's run
 * is open, the update goes to it (USE_EXISTING); once it has closed, a new run of payoutWorkflow
 * starts under the same id (ALLOW_DUPLICATE) with the same input, queue and search attributes, reads
 * the payout from the database and reverses it. The Temporal UI shows every run of a payout under its id.
 */
export function payoutReversalOperation(payout: PayoutRecord, baseQueue: string): WithStartWorkflowOperation<PayoutWorkflowFn> {
  return new WithStartWorkflowOperation<PayoutWorkflowFn>(PAYOUT_WORKFLOW_TYPE, {
    ...payoutStartOptions(payout, baseQueue),
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    staticSummary: `operator reversal of ${payout.id}`,
    staticDetails: payoutDetails(payout, { action: 'operator reversal' }),
  });
}
