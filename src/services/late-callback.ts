import type { Client } from '@temporalio/client';
import { paymentReviewWorkflowId, reviewedKind } from '../domain/payment-review';
import { claimCallbackSignal, type CallbackSignalClaim, type CallbackSignalLimits } from '../persistence/partner/callback-signal-store';
import { endedWithMoney, endedWithoutMoney, lateSubject } from '../persistence/partner/late-answer-store';
import type { Orm } from '../persistence/orm';
import type { RailResource, RailStatus } from '../rail/partner-rail';
import { flagPaymentReview } from './payment-review';

/**
 * A verified callback for a payment that has ended (issue 29; its workflow closed, or still open
 * after the end, e.g. a failed settlement waiting for a retry): read, never dropped. When
 * what it claims contradicts how we ended the payment (SUCCESSFUL for a charge we expired or failed,
 * or a payout or settlement we failed; FAILED for one we recorded as paid), the payment is flagged
 * for review (source `callback`): the review asks the partner (the body is never a fact) and records
 * late money. A claim that agrees with our final status (a duplicate callback) is `replayed`.
 *
 * The flag first claims a signal of the review's workflow (issue 30, callback-signal-store.ts): a
 * replayed late callback flags it at most once per debounce window and up to the cap in all
 * (`debounced`, `capped`), so a leaked URL cannot start review after review.
 */
export async function lateCallbackOutcome(
  deps: { orm: Orm; client: Client; taskQueue: string; limits?: CallbackSignalLimits },
  paymentId: string,
  product: RailResource,
  claimed: RailStatus,
): Promise<'late' | 'replayed' | Exclude<CallbackSignalClaim, 'signal'>> {
  const kind = reviewedKind(paymentId);
  const subject = kind ? await lateSubject(deps.orm, paymentId) : null;
  if (!kind || !subject) return 'replayed';
  const contradicts =
    (claimed.status === 'succeeded' && endedWithoutMoney(kind, subject.status)) || (claimed.status === 'failed' && endedWithMoney(kind, subject.status));
  if (!contradicts) return 'replayed';
  const claim = await claimCallbackSignal(deps.orm, paymentReviewWorkflowId(paymentId), deps.limits);
  if (claim !== 'signal') return claim;
  await flagPaymentReview(
    deps.client,
    {
      paymentId,
      product,
      merchantId: subject.merchantId,
      environment: subject.environment,
      source: 'callback',
      reason: `the partner's callback says ${claimed.status === 'succeeded' ? 'SUCCESSFUL' : 'FAILED'} for ${paymentId}, which we ended ${subject.status}`,
    },
    deps.taskQueue,
  );
  return 'late';
}
