import { upsertSearchAttributes } from '@temporalio/workflow';
import type { ChargeRecord } from '../src/domain/charge';
import { SA } from '../src/domain/search-attributes';

/** Keeps the operator-facing search attributes equal to the charge's current state. */
export function publishChargeState(charge: ChargeRecord): void {
  upsertSearchAttributes([
    { key: SA.PaymentStatus, value: charge.status },
    { key: SA.MerchantId, value: charge.merchantId },
    { key: SA.Environment, value: charge.environment },
    { key: SA.Channel, value: charge.channel },
    { key: SA.Currency, value: charge.currency },
    { key: SA.Amount, value: charge.amount },
    ...(charge.failureClass ? [{ key: SA.FailureClass, value: charge.failureClass }] : []),
  ]);
}
