import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { PayoutDecisionRequest, PayoutReversalRequest } from '../src/domain/payout-review';
import type { PayoutState } from '../src/domain/payout-state';

/** Current state as the payout workflow last wrote it (no recipient data; `temporal workflow query --type payoutState`). */
export const payoutStateQuery = defineQuery<PayoutState | undefined>('payoutState');

/**
 * The review decision on a payout held for review (`payouts approve|reject po_… --reason TEXT`, or
 * the Temporal UI with `{"decision":"approve","reason":"…"}`). Validated by the workflow: a valid
 * decision, a non-empty reason, and a payout waiting for review. Answers the payout's state once the
 * decision is written (approved: `pending`; rejected: `failed`, `declined`).
 */
export const decidePayoutUpdate = defineUpdate<PayoutState, [PayoutDecisionRequest]>('decidePayout');

/**
 * An operator's reversal of a succeeded payout (`payouts reverse po_… --reason TEXT`): the amount
 * goes back to the merchant's available balance, the fee is kept, `payout.reversed`. Sent with
 * update-with-start (src/services/reverse-payout.ts): to the payout's run while it is open, else to a
 * new run of payoutWorkflow under the same id. Answers the payout's state once reversed.
 */
export const reversePayoutUpdate = defineUpdate<PayoutState, [PayoutReversalRequest]>('reversePayout');
