import { log, setHandler } from '@temporalio/workflow';
import type { ChargeState } from '../src/domain/charge-state';
import type { ChargeStatus } from '../src/domain/charge-status';
import type { FailureClass } from '../src/domain/failure-classes';
import { isCheckoutDecision, type CheckoutDecision } from '../src/domain/hosted-checkout';
import type { ChargeTimers } from './charge-timers';
import { checkoutDecisionSignal } from './messages';

/**
 * A sandbox card or bank charge on hosted checkout (docs/checkout.md): waits for the customer's
 * decision (`checkoutDecision`, sent by the web route after it marked the token used) against the
 * charge's expiry timer. Approved → succeeded; declined (or a wrong challenge code) → failed
 * `declined`; nothing by `expires_at` → expired. `POST /v1/sandbox/advance/{id}` fires the timer that
 * is waiting, the expiry: the charge expires. A decision that arrives in the same workflow task as
 * the expiry is still the decision.
 */
export async function awaitCheckout(
  charge: ChargeState,
  untilExpiry: number,
  timers: ChargeTimers,
  finish: (to: ChargeStatus, failureClass: FailureClass | null) => Promise<ChargeState>,
): Promise<ChargeState> {
  let decision: CheckoutDecision | undefined;
  setHandler(checkoutDecisionSignal, (signal) => {
    if (decision === undefined && isCheckoutDecision(signal)) decision = signal.decision;
    else log.info('checkout decision ignored (already decided, or not a decision)', { chargeId: charge.id });
  });
  await timers.wait(untilExpiry, 'hosted checkout: waiting for the customer until expires_at', () => decision !== undefined);
  if (decision === 'approved') return finish('succeeded', null);
  if (decision === 'declined') return finish('failed', 'declined');
  return finish('expired', null);
}
