import { ApplicationFailure, condition, log, patched, setHandler } from '@temporalio/workflow';
import type { PayoutReview } from '../src/domain/payout';
import { DECISION_SENDER_ALIASES, decisionRequestRefusal, REVIEW_TIMEOUT_SENDER, UNNAMED_SENDER } from '../src/domain/payout-review';
import { operatorOf, type AuditOfChange } from '../src/domain/operator-action';
import { AUDIT_WITH_CHANGE_PATCH, auditOfChange, auditOperatorAction } from './operator-audit';
import { PAYOUT_REQUEST_REFUSED, type PayoutState } from '../src/domain/payout-state';
import { decidePayoutUpdate } from './payout-messages';
import type { TimerDesk } from './payout-timers';

export interface ReviewDesk {
  /**
   * Waits, on a durable timer until `deadline` (raced by `advance`), for `decidePayout`. Answers the
   * review to record: the operator's decision, or a rejection by `system` when the timer fired first.
   */
  decide(deadline: string, timers: TimerDesk): Promise<PayoutReview>;
  /**
   * The audit row of the operator's decision, for the transition that writes it (one transaction,
   * AUDIT_WITH_CHANGE_PATCH); undefined for a decision by the timeout, or in a run from before.
   */
  auditFor(): AuditOfChange | undefined;
}

/**
 * Registers the `decidePayout` update of one payout workflow. Its validator refuses a malformed
 * request (a decision other than approve|reject, an empty reason) and a payout that is not waiting
 * for review, or already has a decision; nothing is written then. A request that arrives before the
 * run has read its payout is accepted and refused once read, if the payout is not held for review.
 * The handler answers once the decision is written (`current()` is no longer held for review).
 */
export function reviewDesk(payoutId: string, current: () => PayoutState | undefined): ReviewDesk {
  let waiting = false;
  let decided = false;
  let decision: PayoutReview | undefined;
  /** The operator's decision's audit row, and whether the transition took it (else the handler writes it, as runs from before did). */
  let pendingAudit: AuditOfChange | undefined;
  let auditedWithChange = false;

  const refusal = (): string | null => {
    const payout = current();
    if (decided || decision) return `payout ${payoutId}: a review decision was already made`;
    if (payout && payout.status !== 'held_for_review') return `payout ${payoutId} is ${payout.status}: only a payout held for review can be approved or rejected`;
    return null;
  };

  setHandler(
    decidePayoutUpdate,
    async (request) => {
      await condition(() => current() !== undefined);
      if (!waiting && !decided) {
        const why = refusal();
        if (why) throw ApplicationFailure.create({ type: PAYOUT_REQUEST_REFUSED, message: why, nonRetryable: true });
      }
      await condition(() => waiting || decided);
      if (decided || decision) throw ApplicationFailure.create({ type: PAYOUT_REQUEST_REFUSED, message: `payout ${payoutId}: a review decision was already made`, nonRetryable: true });
      decision = {
        decision: request.decision === 'approve' ? 'approved' : 'rejected',
        reason: request.reason.trim(),
        decidedBy: operatorOf(request, DECISION_SENDER_ALIASES) || UNNAMED_SENDER,
        decidedAt: new Date().toISOString(),
      };
      log.info('payout review decision received', { payoutId, decision: decision.decision, decidedBy: decision.decidedBy });
      const before = current();
      const action = request.decision === 'approve' ? ('payout.approve' as const) : ('payout.reject' as const);
      // Before any await: the workflow's write of the decision takes it (auditFor).
      pendingAudit = auditOfChange({ action, operator: decision.decidedBy, reason: decision.reason, batchId: request.batch_id, before });
      await condition(() => current()?.status !== 'held_for_review');
      const after = current()!;
      if (!auditedWithChange) await auditOperatorAction({ paymentId: payoutId, action, operator: decision.decidedBy, reason: decision.reason, batchId: request.batch_id, before, after });
      return after;
    },
    {
      validator: (request) => {
        const why = decisionRequestRefusal(request) ?? refusal();
        if (why) throw new Error(why);
      },
    },
  );

  return {
    async decide(deadline, timers) {
      waiting = true;
      const ms = Math.max(1, Date.parse(deadline) - Date.now());
      const outcome = await timers.wait(ms, 'review timeout: no decision within PAYOUT_REVIEW_TIMEOUT, then declined', () => decision !== undefined);
      waiting = false;
      decided = true;
      // A decision that arrived in the same workflow task as the timer is still the decision.
      if (decision) return decision;
      const how = outcome === 'advanced' ? 'review timeout advanced (sandbox)' : 'no decision within PAYOUT_REVIEW_TIMEOUT';
      return { decision: 'rejected', reason: how, decidedBy: REVIEW_TIMEOUT_SENDER, decidedAt: new Date().toISOString() };
    },
    auditFor() {
      if (!pendingAudit || !patched(AUDIT_WITH_CHANGE_PATCH)) return undefined;
      auditedWithChange = true;
      return pendingAudit;
    },
  };
}
