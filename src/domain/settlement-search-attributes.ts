import { SA } from './search-attributes';

/**
 * A settlement batch's search attributes (INTERFACE.md "Operators and engineers").
 *
 * - At the start (the settlement run, or anyone starting a batch by hand): MerchantId, Environment,
 *   Currency and NeedsAttention false (`settlementStartSearchAttributePairs`).
 * - From the workflow once the batch exists, and at every transition: PaymentStatus, Amount,
 *   FailureClass once failed (`settlementSearchAttributePairs`). NeedsAttention is set apart: true
 *   once the batch failed (an operator should look at the settlement account), or while a database
 *   step waits for an operator.
 */
export function settlementStartSearchAttributePairs(start: { merchantId: string; environment: string; currency: string }) {
  return [
    { key: SA.MerchantId, value: start.merchantId },
    { key: SA.Environment, value: start.environment },
    { key: SA.Currency, value: start.currency },
    { key: SA.NeedsAttention, value: false },
  ];
}

export function settlementSearchAttributePairs(batch: { status: string; amount: number; failureClass: string | null }) {
  return [
    { key: SA.PaymentStatus, value: batch.status },
    { key: SA.Amount, value: batch.amount },
    ...(batch.failureClass ? [{ key: SA.FailureClass, value: batch.failureClass }] : []),
  ];
}
