import { ApplicationFailure, Context } from '@temporalio/activity';
import { LIVE_PAYOUT_DEADLINE_MS, RAIL_CALL_TIMEOUT_MS, type RailStepRequest } from '../src/domain/live-rail';
import type { Orm } from '../src/persistence/orm';
import { hasRailReference, railRequestFor, recordPartnerTransactionId } from '../src/persistence/partner/rail-request-store';
import { recordRailAnswer, statusAnswer, submitAnswer } from '../src/persistence/partner/rail-answer-store';
import { recordInstructions } from '../src/persistence/partner/payment-instructions-store';
import { RailUnavailable, type PartnerRail, type RailRequest, type RailStatus, type RailSubmitResult } from '../src/rail/partner-rail';
import { failOver, recordRefusedElsewhere, recordUnreached, type PartnerAdmits } from '../src/persistence/partner/rail-failover-store';
import type { FailoverResult } from '../src/domain/rail-failover';
import { partnerAdmits } from '../src/persistence/partner/partner-breaker-store';
import type { RailStatusAnswer, RailSubmitOutcome } from './types';
import type { SecretBox } from '../src/support/secret-box';

export interface RailActivityDeps {
  orm: Orm;
  secretBox: SecretBox;
  /** The live partner rail of this worker; absent, a payment that never reached the partner fails, one that may have is retried (another worker may have the rail). */
  rail?: PartnerRail;
  /** Issue 46: whether a partner takes new payments now; absent, its circuit breaker says (partner_breakers). */
  partnerAdmits?: PartnerAdmits;
}

/** How a final status's amount or currency differ from what we sent, or undefined (they match, or the partner gave none). */
export function statusMismatch(sent: Pick<RailRequest, 'amount' | 'currency'>, status: RailStatus): string | undefined {
  if (status.status !== 'succeeded' && status.status !== 'failed') return undefined;
  const problems: string[] = [];
  if (status.currency !== undefined && status.currency !== sent.currency) problems.push(`currency ${status.currency}, ours ${sent.currency}`);
  if (status.amount !== undefined && status.amount !== sent.amount) problems.push(`amount ${status.amount} minor units, ours ${sent.amount}`);
  return problems.length ? `the partner's ${status.status === 'succeeded' ? 'SUCCESSFUL' : 'FAILED'} says ${problems.join(' and ')}` : undefined;
}

/**
 * When a payout's, refund's or settlement batch's submit window closed (ISO), or undefined while it
 * is open or for a charge (its window is its expiry). A restarted run (`payments restart po_…|stl_…`) keeps the
 * first submission's window: past it, nothing is sent again (issue 43).
 */
export function payoutWindowClosed(paymentId: string, referenceCreatedAt: string, nowMs = Date.now()): string | undefined {
  if (!paymentId.startsWith('po_') && !paymentId.startsWith('stl_') && !paymentId.startsWith('re_')) return undefined;
  const closesMs = Date.parse(referenceCreatedAt) + LIVE_PAYOUT_DEADLINE_MS;
  return nowMs >= closesMs ? new Date(closesMs).toISOString() : undefined;
}

/**
 * The partner rail's two steps (src/rail/partner-rail.ts), regular activities (network calls with
 * their own timeout). Both read what they send from the database: the payment, its counterparty
 * (sealed) and its partner reference, chosen once (`rail_references`) so every retry is the same
 * request. A transient trouble (RailUnavailable: 5xx, timeout, connection) is thrown and retried by
 * Temporal; the workflow keeps asking the partner and marks the payment NeedsAttention meanwhile.
 */
export function createRailActivities(deps: RailActivityDeps) {
  const noRail = () => ApplicationFailure.retryable('this worker has no live partner rail configured (PARTNER_BASE_URL)', 'NoLiveRail');
  const rail = (): PartnerRail => {
    if (!deps.rail) throw noRail();
    return deps.rail;
  };
  return {
    /**
     * `no_rail` only when this worker has no partner rail and the payment has no reference yet: then
     * nothing was ever sent, and the payment fails at once with `partner_unavailable`. With a
     * reference, an earlier attempt may have reached the partner: thrown (retried; a worker with the
     * rail asks the partner). A refusal of a retried or repeated submission is checked against the
     * partner's status first: a partner that validates before it de-duplicates may refuse the copy of
     * a request it is processing; only `unknown` makes the refusal final. A submission is repeated
     * when the workflow says so (`resubmit`), when this is the activity's second attempt or later,
     * and when the payment's reference existed before this call (issue 43, finding 1: a restarted
     * run's first submission, or any submission after an earlier one chose the reference).
     *
     * The partner's answers are recorded in `rail_answers` (the status gate reads them): an accepted
     * or duplicate submission as `acknowledged`, a first submission's refusal as `failed`
     * (`submit_refusal`), the status read after a repeat's refusal as that status.
     */
    async railSubmit(request: RailStepRequest): Promise<RailSubmitOutcome> {
      if (!deps.rail) {
        // An earlier attempt may have reached the partner: retried, for a worker that can ask it.
        if (await hasRailReference(deps.orm, request.paymentId)) throw noRail();
        return { kind: 'no_rail' };
      }
      // Issue 46: the send is counted before anything goes out (a window already closed counts one it never makes: that only forbids a failover).
      const { referenceId, railRequest, made, createdAt } = await railRequestFor(deps.orm, deps.secretBox, request, true);
      const closedAt = payoutWindowClosed(request.paymentId, createdAt);
      if (closedAt) {
        // A restarted payout or batch run keeps the first run's submit window: past it, nothing is sent.
        const what = request.paymentId.startsWith('stl_') ? 'settlement batch' : request.paymentId.startsWith('re_') ? 'refund' : 'payout';
        const status = await deps.rail.status(request.product, referenceId);
        await recordRailAnswer(deps.orm.em.fork(), statusAnswer(request.paymentId, status));
        if (status.status !== 'unknown') return { kind: 'duplicate' };
        // A submission of the first run may still be in flight for one call's budget after the window.
        if (Date.now() < Date.parse(closedAt) + RAIL_CALL_TIMEOUT_MS) throw ApplicationFailure.retryable(`${what} ${request.paymentId}: its submit window closed at ${closedAt}; asking again once no submission can be in flight`, 'SubmitWindowClosing');
        return { kind: 'refused', failureClass: 'partner_unavailable', reason: `the partner does not know ${what} ${request.paymentId} and its submit window closed at ${closedAt}: nothing was sent again` };
      }
      let answer: RailSubmitResult;
      try {
        answer = await deps.rail.submit(request.product, { ...railRequest, referenceId });
      } catch (error) {
        // Issue 46: a request that provably never reached the partner is counted; a payment that may fail over hears it at once.
        if (error instanceof RailUnavailable && error.notReached) {
          await recordUnreached(deps.orm.em.fork(), request.paymentId, referenceId);
          if (request.failover) return { kind: 'not_reached', reason: error.message };
        }
        throw error;
      }
      // Issue 45: a bank transfer's account to pay into, for the hosted checkout page.
      if (answer.kind !== 'refused' && answer.instructions) await recordInstructions(deps.orm.em.fork(), request.paymentId, answer.instructions);
      const repeated = request.resubmit === true || Context.current().info.attempt > 1 || !made;
      const recorded = submitAnswer(request.paymentId, answer, !repeated);
      if (recorded) await recordRailAnswer(deps.orm.em.fork(), recorded);
      if (answer.kind === 'refused' && answer.retryElsewhere && !repeated) await recordRefusedElsewhere(deps.orm.em.fork(), request.paymentId, referenceId, answer.reason);
      if (answer.kind !== 'refused' || !repeated) return answer;
      const status = await deps.rail.status(request.product, referenceId);
      await recordRailAnswer(deps.orm.em.fork(), statusAnswer(request.paymentId, status));
      return status.status === 'unknown' ? answer : { kind: 'duplicate' };
    },
    /**
     * Issue 46: the failover gate. Moves the payment to the next partner of its route only when the
     * database shows its attempt moved no money (src/persistence/partner/rail-failover-store.ts);
     * else answers why not, changing nothing.
     */
    async railFailover(request: RailStepRequest): Promise<FailoverResult> {
      // The breaker is asked inside the gate's transaction: a half-open probe is claimed only when the payment moves there.
      return failOver(deps.orm, request.paymentId, deps.partnerAdmits ?? partnerAdmits);
    },
    /**
     * The partner's status; a SUCCESSFUL's transaction id is kept on the payment, and a final answer's
     * amount and currency are compared with ours. Every answer is recorded in `rail_answers` (a
     * PENDING as `acknowledged`, once per payment) before it is returned: the status gate ends a live
     * payment only on a recorded answer.
     */
    async railStatus(request: RailStepRequest): Promise<RailStatusAnswer> {
      const { referenceId, railRequest } = await railRequestFor(deps.orm, deps.secretBox, request);
      const status = await rail().status(request.product, referenceId);
      if (status.status === 'pending' && status.instructions) await recordInstructions(deps.orm.em.fork(), request.paymentId, status.instructions);
      if (status.status === 'succeeded' && status.financialTransactionId) await recordPartnerTransactionId(deps.orm.em.fork(), request.paymentId, status.financialTransactionId);
      await recordRailAnswer(deps.orm.em.fork(), statusAnswer(request.paymentId, status));
      const mismatch = statusMismatch(railRequest, status);
      return mismatch ? { ...status, mismatch } : status;
    },
  };
}
