import { SA } from './search-attributes';

/**
 * What a refund's search attributes say (INTERFACE.md): the same list at workflow start and at every
 * transition. NeedsAttention is set apart (false at start; true while a database step waits for an
 * operator).
 */
export function refundSearchAttributePairs(refund: { status: string; merchantId: string; environment: string; currency: string; amount: number; failureClass: string | null }) {
  return [
    { key: SA.PaymentStatus, value: refund.status },
    { key: SA.MerchantId, value: refund.merchantId },
    { key: SA.Environment, value: refund.environment },
    { key: SA.Currency, value: refund.currency },
    { key: SA.Amount, value: refund.amount },
    ...(refund.failureClass ? [{ key: SA.FailureClass, value: refund.failureClass }] : []),
  ];
}
