import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ReviewedKind, SettleLateAction } from '../src/domain/payment-review';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import {
  endedWithMoney,
  endedWithoutMoney,
  findLateAnswer,
  lateAnswerDifference,
  lateReturnOf,
  lateSubject,
  LateSettleRefusedError,
  markLateReturn,
  recordLateSuccess,
  settleLateMoney,
  type LateAnswer,
  type SettledLate,
} from '../src/persistence/partner/late-answer-store';
import type { Orm } from '../src/persistence/orm';
import { railRequestFor } from '../src/persistence/partner/rail-request-store';
import { resolutionEvidence } from '../src/persistence/charges/resolution-evidence';
import { evidenceMismatch } from '../src/domain/charge-resolution';
import type { PartnerRail, RailStatus, RailSubmitResult, RailResource } from '../src/rail/partner-rail';
import type { SecretBox } from '../src/support/secret-box';
import { openBreaksOfPayment } from '../src/persistence/reconcile/break-store';

/** What the review makes of the partner's final status against our record. */
export type LateVerdict =
  /** The partner says SUCCESSFUL for a payment we ended without its money: late money, recorded. */
  | { verdict: 'late_money'; ourStatus: string; kind: ReviewedKind; settledAction: SettleLateAction | null }
  /** The partner's final answer is what we recorded (or the payment is still open: its own workflow follows it). */
  | { verdict: 'agrees'; ourStatus: string; kind: ReviewedKind }
  /** The partner's final answer contradicts ours in a way no settle action covers: an operator looks. */
  | { verdict: 'disagrees'; ourStatus: string; kind: ReviewedKind | null; why: string };

export interface CompareLateRequest {
  paymentId: string;
  product: RailResource;
  status: RailStatus;
  /** Workflow time (ISO). */
  at: string;
}

export interface SettleLateActivityRequest {
  paymentId: string;
  action: SettleLateAction;
  operator: string;
  at: string;
}

/** The payment review's steps (workflows/payment-review.ts). Answers carry no customer data. */
export interface PaymentReviewActivities {
  compareLateAnswer(request: CompareLateRequest): Promise<LateVerdict>;
  settleLateAnswer(request: SettleLateActivityRequest): Promise<SettledLate>;
  /** Sends the return transfer of a settled `return` (its own reference); `no_rail` without a partner rail. */
  submitLateReturn(paymentId: string): Promise<RailSubmitResult | { kind: 'no_rail' } | { kind: 'nothing'; status?: 'succeeded' | 'failed' }>;
  lateReturnStatus(paymentId: string): Promise<RailStatus>;
  recordLateReturn(request: { paymentId: string; status: 'submitted' | 'succeeded' | 'failed'; at: string }): Promise<void>;
  /** The payment's open reconciliation breaks: a review checks there is none before a resolved reviewFlag closes its reconciliation reasons. */
  openReconciliationBreaks(paymentId: string): Promise<number>;
}

/**
 * Late money as the review sees it: to settle, or (issue 43) a SUCCESSFUL whose amount or currency
 * differ from ours, recorded with nothing moved: a contradiction an operator takes up with the partner.
 */
function lateVerdict(answer: LateAnswer, ourStatus: string, kind: ReviewedKind): LateVerdict {
  const difference = answer.settled_action ? null : lateAnswerDifference(answer);
  if (difference) {
    return {
      verdict: 'disagrees',
      ourStatus,
      kind,
      why: `late SUCCESSFUL recorded, nothing credited or moved: ${difference}; settle-late is refused while they differ: take it up with the partner`,
    };
  }
  return { verdict: 'late_money', ourStatus, kind, settledAction: answer.settled_action };
}

function asFailure(error: unknown): unknown {
  if (error instanceof LateSettleRefusedError) return ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
  if (isDeterministicDbError(error)) return ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
  return error;
}

/** Worker metric `payments_late_answers{kind,environment}`: late money recorded (exported by the SDK, as every worker metric). */
function countLateAnswer(kind: ReviewedKind, environment: string): void {
  Context.current().metricMeter.createCounter('payments_late_answers', '1', 'Late money recorded: the partner said SUCCESSFUL after we had ended the payment').add(1, { kind, environment });
}

export function createPaymentReviewActivities(deps: { orm: Orm; secretBox: SecretBox; rail?: PartnerRail }): PaymentReviewActivities {
  const returnOf = async (paymentId: string) => {
    const found = await lateReturnOf(deps.orm, paymentId);
    if (!found) throw ApplicationFailure.create({ type: 'LateReturnNotFound', message: `payment ${paymentId} has no return transfer requested`, nonRetryable: true });
    return found;
  };
  return {
    async openReconciliationBreaks(paymentId) {
      return openBreaksOfPayment(deps.orm, paymentId);
    },
    async compareLateAnswer(request) {
      try {
        const subject = await lateSubject(deps.orm, request.paymentId);
        if (!subject) return { verdict: 'disagrees', ourStatus: 'missing', kind: null, why: `the partner answered for ${request.paymentId}, which we have no record of` };
        const { kind, status: ourStatus } = subject;
        const partner = request.status;
        if (partner.status === 'succeeded') {
          if (endedWithoutMoney(kind, ourStatus)) {
            const { recorded, answer } = await recordLateSuccess(deps.orm, {
              paymentId: request.paymentId,
              product: request.product,
              financialTransactionId: partner.financialTransactionId ?? null,
              ...(partner.amount === undefined ? {} : { partnerAmount: partner.amount }),
              ...(partner.currency === undefined ? {} : { partnerCurrency: partner.currency }),
              at: request.at,
            });
            if (recorded) {
              countLateAnswer(kind, subject.environment);
              Context.current().log.warn('late money recorded: the partner said SUCCESSFUL after we had ended the payment', { paymentId: request.paymentId, kind, ourStatus });
            }
            if (answer) return lateVerdict(answer, ourStatus, kind);
          }
          const known = await findLateAnswer(deps.orm, request.paymentId);
          if (known) return lateVerdict(known, ourStatus, kind);
          if (endedWithMoney(kind, ourStatus)) {
            const amountDiffers = partner.amount !== undefined && partner.amount !== subject.amount;
            const currencyDiffers = partner.currency !== undefined && partner.currency !== subject.currency;
            if (amountDiffers || currencyDiffers) {
              return { verdict: 'disagrees', ourStatus, kind, why: `the partner's SUCCESSFUL is for ${partner.amount ?? '?'} ${partner.currency ?? '?'}, ours is ${subject.amount} ${subject.currency}` };
            }
            // An operator resolved it with the partner's evidence: the partner's own transaction id must be that evidence.
            const evidence = await resolutionEvidence(deps.orm, request.paymentId);
            const evidenceProblem = evidence ? evidenceMismatch(evidence, partner.financialTransactionId) : null;
            if (evidenceProblem) return { verdict: 'disagrees', ourStatus, kind, why: evidenceProblem };
          }
          return { verdict: 'agrees', ourStatus, kind };
        }
        if (endedWithMoney(kind, ourStatus)) {
          const said = partner.status === 'failed' ? `FAILED (${partner.reason})` : 'that it does not know the reference';
          return { verdict: 'disagrees', ourStatus, kind, why: `the partner says ${said}, but we recorded ${ourStatus}` };
        }
        return { verdict: 'agrees', ourStatus, kind };
      } catch (error) {
        throw asFailure(error);
      }
    },
    async settleLateAnswer(request) {
      try {
        const settled = await settleLateMoney(deps.orm, request);
        Context.current().log.info('late money settled', { paymentId: request.paymentId, action: request.action, operator: request.operator, applied: settled.applied });
        return settled;
      } catch (error) {
        throw asFailure(error);
      }
    },
    async submitLateReturn(paymentId) {
      if (!deps.rail) return { kind: 'no_rail' };
      const ret = await returnOf(paymentId);
      // Already ended (a review run after the one that followed it: payments review-open): nothing to send.
      if (ret.status === 'succeeded' || ret.status === 'failed') return { kind: 'nothing', status: ret.status };
      // The payer of the charge, as its request-to-pay named them; the transfer has its own reference.
      const { railRequest } = await railRequestFor(deps.orm, deps.secretBox, { paymentId, product: 'collection' });
      const answer = await deps.rail.submit('disbursement', {
        referenceId: ret.referenceId,
        amount: ret.amount,
        currency: ret.currency,
        externalId: `${paymentId}-return`,
        party: railRequest.party,
        message: 'Return of a payment that arrived too late',
      });
      // Issue 43, finding 2: a partner that validates before it de-duplicates (fake `0013`) refuses the
      // copy of a transfer it is processing (this activity retried after a lost answer, a restarted
      // review, a return submitted before). Any refusal is checked against the partner's status first:
      // only `unknown` (it never kept the reference) makes it final; otherwise the transfer is the one
      // it has, and the review follows it to the partner's word.
      if (answer.kind !== 'refused') return answer;
      const status = await deps.rail.status('disbursement', ret.referenceId);
      if (status.status === 'unknown') return answer;
      Context.current().log.warn('return transfer refused, but the partner has its reference: a duplicate, followed to its final status', {
        paymentId,
        refused: answer.reason,
        partnerStatus: status.status,
      });
      return { kind: 'duplicate' };
    },
    async lateReturnStatus(paymentId) {
      if (!deps.rail) throw ApplicationFailure.retryable('this worker has no live partner rail configured (PARTNER_BASE_URL)', 'NoLiveRail');
      const ret = await returnOf(paymentId);
      return deps.rail.status('disbursement', ret.referenceId);
    },
    async recordLateReturn(request) {
      try {
        await markLateReturn(deps.orm, request.paymentId, request.status, request.at);
      } catch (error) {
        throw asFailure(error);
      }
    },
  };
}
