import { SA } from './search-attributes';

/**
 * What a payout's search attributes say (INTERFACE.md): the same list at workflow start and at every
 * transition. NeedsAttention is set apart (held for review, or a step that gave up).
 */
export function payoutSearchAttributePairs(payout: {
  status: string;
  merchantId: string;
  environment: string;
  channel: string;
  currency: string;
  amount: number;
  failureClass: string | null;
}) {
  return [
    { key: SA.PaymentStatus, value: payout.status },
    { key: SA.MerchantId, value: payout.merchantId },
    { key: SA.Environment, value: payout.environment },
    { key: SA.Channel, value: payout.channel },
    { key: SA.Currency, value: payout.currency },
    { key: SA.Amount, value: payout.amount },
    ...(payout.failureClass ? [{ key: SA.FailureClass, value: payout.failureClass }] : []),
  ];
}
