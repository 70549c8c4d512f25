import { ApplicationFailure, condition, log, patched, setHandler } from '@temporalio/workflow';
import { REVERSAL_SENDER_ALIASES, reversalRequestRefusal, UNNAMED_SENDER } from '../src/domain/payout-review';
import { operatorOf, type AuditOfChange } from '../src/domain/operator-action';
import { AUDIT_WITH_CHANGE_PATCH, auditOfChange, auditOperatorAction } from './operator-audit';
import { PAYOUT_REQUEST_REFUSED, type PayoutState } from '../src/domain/payout-state';
import { reversePayoutUpdate } from './payout-messages';
import { liveReversalRefusal } from '../src/domain/live-reversal';

export interface OperatorReversal {
  reason: string;
  requestedBy: string;
  requestedAt: string;
}

export interface ReversalDesk {
  /** The operator's reversal request this run accepted, if any. */
  requested(): OperatorReversal | undefined;
  /** Its audit row, for the transition that writes the reversal (one transaction, AUDIT_WITH_CHANGE_PATCH); undefined without one, or in a run from before. */
  auditFor(): AuditOfChange | undefined;
}

/**
 * Registers the `reversePayout` update of one payout workflow. The validator refuses a request
 * without a reason, and a payout that is not succeeded once the run has read it (pending, held,
 * failed, already reversed or being reversed). A request that arrives before the run has read its
 * payout (update-with-start of a new run: src/services/reverse-payout.ts) is accepted and refused
 * once read unless the payout is succeeded. The handler answers once the payout is reversed.
 */
export function reversalDesk(payoutId: string, current: () => PayoutState | undefined): ReversalDesk {
  let request: OperatorReversal | undefined;
  let pendingAudit: AuditOfChange | undefined;
  let auditedWithChange = false;
  const refusal = (payout: PayoutState | undefined): string | null => {
    if (request) return `payout ${payoutId}: a reversal is already under way`;
    // Issue 43: a live payout is never reversed (src/domain/live-reversal.ts). In the validator only,
    // which runs no command and is not run on replay: runs already in flight are unchanged.
    if (payout?.environment === 'live') return liveReversalRefusal('payout', payoutId);
    if (payout && payout.status !== 'succeeded') return `payout ${payoutId} is ${payout.status}: only a succeeded payout can be reversed`;
    return null;
  };

  setHandler(
    reversePayoutUpdate,
    async (input) => {
      const mine: OperatorReversal = { reason: input.reason.trim(), requestedBy: operatorOf(input, REVERSAL_SENDER_ALIASES) || UNNAMED_SENDER, requestedAt: new Date().toISOString() };
      request = mine;
      // Before any await: the workflow's write of the reversal may follow in this same task (auditFor).
      pendingAudit = auditOfChange({ action: 'payout.reverse', operator: mine.requestedBy, reason: mine.reason, batchId: input.batch_id, before: null });
      await condition(() => current() !== undefined);
      const payout = current()!;
      if (payout.status !== 'succeeded' && payout.status !== 'reversed') {
        request = undefined;
        pendingAudit = undefined;
        throw ApplicationFailure.create({ type: PAYOUT_REQUEST_REFUSED, message: `payout ${payoutId} is ${payout.status}: only a succeeded payout can be reversed`, nonRetryable: true });
      }
      // Issue 31: a payout already reversed when the request is read (a repeated command: update-with-start
      // of a new run) is answered as it is: the request moved nothing, so it writes no audit row.
      if (payout.status === 'reversed' && patched(AUDIT_WITH_CHANGE_PATCH)) {
        pendingAudit = undefined;
        log.info('payout already reversed: the repeated reversal moves nothing and is not audited', { payoutId, requestedBy: mine.requestedBy });
        return payout;
      }
      log.info('payout reversal requested by an operator', { payoutId, requestedBy: mine.requestedBy });
      await condition(() => current()?.status === 'reversed');
      const after = current()!;
      // A reversal written without this request (the sandbox `reverse` outcome's, already under way)
      // moved nothing for it: answered as it is, no row. Runs from before write the row here.
      if (!auditedWithChange && !patched(AUDIT_WITH_CHANGE_PATCH)) {
        await auditOperatorAction({ paymentId: payoutId, action: 'payout.reverse', operator: mine.requestedBy, reason: mine.reason, batchId: input.batch_id, before: payout, after });
      }
      return after;
    },
    {
      validator: (input) => {
        const why = reversalRequestRefusal(input) ?? refusal(current());
        if (why) throw new Error(why);
      },
    },
  );

  return {
    requested: () => request,
    auditFor() {
      if (!pendingAudit || !patched(AUDIT_WITH_CHANGE_PATCH)) return undefined;
      auditedWithChange = true;
      return { ...pendingAudit, before: current() ?? null };
    },
  };
}
