import type { PaymentReviewStart } from './payment-review';
import { SA } from './search-attributes';

/**
 * A payment review's search attributes (issue 29): its payment's MerchantId and Environment,
 * PaymentStatus `under_review`, and NeedsAttention true from its start (`payments stuck` lists it with
 * its reasons, the workflow's current details), until the review clears it.
 */
export function reviewSearchAttributePairs(start: Pick<PaymentReviewStart, 'merchantId' | 'environment'>) {
  return [
    { key: SA.MerchantId, value: start.merchantId },
    { key: SA.Environment, value: start.environment },
    { key: SA.PaymentStatus, value: 'under_review' },
    { key: SA.NeedsAttention, value: true },
  ];
}
