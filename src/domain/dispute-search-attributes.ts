import { SA } from './search-attributes';

/**
 * What a dispute's search attributes say (INTERFACE.md): the same list at workflow start and at every
 * transition. No Channel (a dispute has none) and no FailureClass (a dispute does not fail: it is won
 * or lost). NeedsAttention is set apart (false at start; true while a database step waits for an operator).
 */
export function disputeSearchAttributePairs(dispute: { status: string; merchantId: string; environment: string; currency: string; amount: number }) {
  return [
    { key: SA.PaymentStatus, value: dispute.status },
    { key: SA.MerchantId, value: dispute.merchantId },
    { key: SA.Environment, value: dispute.environment },
    { key: SA.Currency, value: dispute.currency },
    { key: SA.Amount, value: dispute.amount },
  ];
}
